package cronjobrun

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// backfillRun is the run "backfill" of "hourly": a range backfill from `from` to `to`, created at IsTime.
func backfillRun(from, to time.Time) *builders.CronJobRunWrapper {
	return builders.MakeCronJobRun("backfill", Namespace, "hourly").UID("backfill-uid").CreationTimestamp(IsTime).Range(from, to)
}

// backfillLog is what a backfill did from its first reconcile to its end.
type backfillLog struct {
	created     []string // the Jobs it created, in the order of their creates
	maxRunning  int      // the most Jobs of the run unfinished at once
	reconciles  int
	final       *cronjobv1.CronJobRun
	eventReason []string
}

// createLog records the names of the Jobs created through the fake client, in order.
type createLog struct{ names []string }

func (l *createLog) funcs() interceptor.Funcs {
	return interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		err := c.Create(ctx, obj, opts...)
		if _, ok := obj.(*batchv1.Job); ok && err == nil {
			l.names = append(l.names, obj.GetName())
		}
		return err
	}}
}

// drive reconciles the run until it has finished, ending every Job of the run that runs after each
// reconcile as end says (true: it completes; false: it fails), a minute later each round.
func (f *runFixture) drive(t *testing.T, log *createLog, end func(name string) bool) backfillLog {
	t.Helper()
	var out backfillLog
	for out.reconciles = 1; out.reconciles <= 100; out.reconciles++ {
		f.mustReconcileRun(t, "backfill")
		run := f.run(t, "backfill")
		if run == nil || finished(run) {
			out.final = run
			break
		}
		running := 0
		for _, name := range f.jobNames(t) {
			job := f.job(t, name)
			if done, _ := jobs.Finished(job); done || job.Annotations[cronjobv1.CronJobRunAnnotation] != "backfill" {
				continue
			}
			running++
			if end(name) {
				f.finishJob(t, name)
			} else {
				f.failJob(t, name)
			}
		}
		out.maxRunning = max(out.maxRunning, running)
		f.clock.SetTime(f.clock.Now().Add(time.Minute))
	}
	out.created = log.names
	out.eventReason = f.eventReasons()
	return out
}

// failJob marks the Job of that name Failed (BackoffLimitExceeded), as the Job controller would.
func (f *runFixture) failJob(t *testing.T, name string) {
	t.Helper()
	job := f.job(t, name)
	job.Status.Conditions = append(job.Status.Conditions,
		batchv1.JobCondition{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"},
		batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", LastTransitionTime: metav1.NewTime(f.clock.Now())})
	if err := f.client.Status().Update(context.Background(), job); err != nil {
		t.Fatal(err)
	}
}

func succeed(string) bool { return true }

// hours returns the hourly Job names of 2026-03-02 at those hours (UTC).
func hours(hs ...int) []string {
	out := make([]string, 0, len(hs))
	for _, h := range hs {
		out = append(out, JobName(HM(h, 0)))
	}
	return out
}

func TestBackfillRunsEachSlotOnceOldestFirst(t *testing.T) {
	cases := map[string]struct {
		cronJob     *builders.CronJobWrapper
		run         *builders.CronJobRunWrapper
		jobs        []client.Object
		fail        []string // Jobs that fail
		wantCreated []string
		wantMax     int
		want        cronjobv1.BackfillStatus
		wantPhase   cronjobv1.CronJobRunPhase
		wantReason  string
	}{
		"parallelism 1: one slot after the other": {
			cronJob: Hourly(), run: backfillRun(HM(5, 0), HM(8, 0)),
			wantCreated: hours(5, 6, 7, 8), wantMax: 1,
			want:      cronjobv1.BackfillStatus{Total: 4, Succeeded: 4},
			wantPhase: cronjobv1.RunSucceeded, wantReason: cronjobv1.ReasonBackfillComplete,
		},
		"parallelism 3: three at a time, oldest first": {
			cronJob: Hourly(), run: backfillRun(HM(1, 0), HM(8, 0)).Parallelism(3),
			wantCreated: hours(1, 2, 3, 4, 5, 6, 7, 8), wantMax: 3,
			want:      cronjobv1.BackfillStatus{Total: 8, Succeeded: 8},
			wantPhase: cronjobv1.RunSucceeded, wantReason: cronjobv1.ReasonBackfillComplete,
		},
		"the ends are inclusive, instants between slots are not slots": {
			cronJob: Hourly(), run: backfillRun(HM(4, 59), HM(7, 0)),
			wantCreated: hours(5, 6, 7), wantMax: 1,
			want:      cronjobv1.BackfillStatus{Total: 3, Succeeded: 3},
			wantPhase: cronjobv1.RunSucceeded, wantReason: cronjobv1.ReasonBackfillComplete,
		},
		"a slot whose Job exists is skipped, not run again": {
			cronJob: Hourly(), run: backfillRun(HM(5, 0), HM(7, 0)).Parallelism(2),
			jobs:        []client.Object{DoneJob(HM(6, 0))},
			wantCreated: hours(5, 7), wantMax: 2,
			want: cronjobv1.BackfillStatus{Total: 3, Succeeded: 2, Skipped: 1,
				SkippedSlots: []cronjobv1.BackfillSlot{{ScheduledTime: metav1.NewTime(HM(6, 0)), JobName: JobName(HM(6, 0)), Reason: cronjobv1.ReasonJobExisted}}},
			wantPhase: cronjobv1.RunSucceeded, wantReason: cronjobv1.ReasonBackfillComplete,
		},
		"a slot whose name a stranger's Job holds fails": {
			cronJob: Hourly(), run: backfillRun(HM(5, 0), HM(6, 0)),
			jobs:        []client.Object{builders.MakeJob(JobName(HM(5, 0)), Namespace).Obj()},
			wantCreated: hours(6), wantMax: 1,
			want: cronjobv1.BackfillStatus{Total: 2, Succeeded: 1, Failed: 1,
				FailedSlots: []cronjobv1.BackfillSlot{{ScheduledTime: metav1.NewTime(HM(5, 0)), JobName: JobName(HM(5, 0)), Reason: cronjobv1.ReasonJobNameTaken}}},
			wantPhase: cronjobv1.RunFailed, wantReason: cronjobv1.ReasonBackfillFailed,
		},
		"a failed Job fails its slot, the others go on": {
			cronJob: Hourly(), run: backfillRun(HM(5, 0), HM(7, 0)),
			fail:        hours(6),
			wantCreated: hours(5, 6, 7), wantMax: 1,
			want: cronjobv1.BackfillStatus{Total: 3, Succeeded: 2, Failed: 1,
				FailedSlots: []cronjobv1.BackfillSlot{{ScheduledTime: metav1.NewTime(HM(6, 0)), JobName: JobName(HM(6, 0)), Reason: "BackoffLimitExceeded"}}},
			wantPhase: cronjobv1.RunFailed, wantReason: cronjobv1.ReasonBackfillFailed,
		},
		"a calendar's excluded slot is no slot": {
			cronJob: Hourly().Calendars("freeze"), run: backfillRun(HM(5, 0), HM(7, 0)),
			jobs:        []client.Object{freezeCalendar("2026-03-02T06:00", "2026-03-02T06:30")},
			wantCreated: hours(5, 7), wantMax: 1,
			want:      cronjobv1.BackfillStatus{Total: 2, Succeeded: 2},
			wantPhase: cronjobv1.RunSucceeded, wantReason: cronjobv1.ReasonBackfillComplete,
		},
		"the union of two schedules, an instant of both once": {
			cronJob: Hourly().Schedules("0 */2 * * *", "0 */3 * * *"), run: backfillRun(HM(0, 0), HM(6, 0)).Parallelism(20),
			wantCreated: hours(0, 2, 3, 4, 6), wantMax: 5,
			want:      cronjobv1.BackfillStatus{Total: 5, Succeeded: 5},
			wantPhase: cronjobv1.RunSucceeded, wantReason: cronjobv1.ReasonBackfillComplete,
		},
		"Honor under Forbid: one slot at a time whatever parallelism says": {
			cronJob: Hourly().Forbid(), run: backfillRun(HM(5, 0), HM(7, 0)).Parallelism(3),
			wantCreated: hours(5, 6, 7), wantMax: 1,
			want:      cronjobv1.BackfillStatus{Total: 3, Succeeded: 3},
			wantPhase: cronjobv1.RunSucceeded, wantReason: cronjobv1.ReasonBackfillComplete,
		},
		"Honor under Enqueue with maxActiveJobs 2: two at a time": {
			cronJob: Hourly().ConcurrencyPolicy(cronjobv1.EnqueueConcurrent).MaxActiveJobs(2), run: backfillRun(HM(5, 0), HM(8, 0)).Parallelism(3),
			wantCreated: hours(5, 6, 7, 8), wantMax: 2,
			want:      cronjobv1.BackfillStatus{Total: 4, Succeeded: 4},
			wantPhase: cronjobv1.RunSucceeded, wantReason: cronjobv1.ReasonBackfillComplete,
		},
		"Ignore under Forbid: parallelism alone bounds it": {
			cronJob: Hourly().Forbid(), run: backfillRun(HM(5, 0), HM(7, 0)).Parallelism(3).IgnoreConcurrency(),
			wantCreated: hours(5, 6, 7), wantMax: 3,
			want:      cronjobv1.BackfillStatus{Total: 3, Succeeded: 3},
			wantPhase: cronjobv1.RunSucceeded, wantReason: cronjobv1.ReasonBackfillComplete,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			log := &createLog{}
			objs := append([]client.Object{CronJobOf(tc.cronJob), tc.run.Obj()}, tc.jobs...)
			f := newRunFixture(t, IsTime, log.funcs(), objs...)
			got := f.drive(t, log, func(name string) bool { return !slices.Contains(tc.fail, name) })
			if diff := cmp.Diff(tc.wantCreated, got.created); diff != "" {
				t.Errorf("Jobs created, in order (-want +got):\n%s", diff)
			}
			if got.maxRunning != tc.wantMax {
				t.Errorf("at most %d Jobs of the run ran at once, want %d", got.maxRunning, tc.wantMax)
			}
			if got.final == nil {
				t.Fatal("the run is gone")
			}
			if got.final.Status.Phase != tc.wantPhase || readyReason(got.final) != tc.wantReason {
				t.Errorf("phase %s, Ready reason %s; want %s, %s", got.final.Status.Phase, readyReason(got.final), tc.wantPhase, tc.wantReason)
			}
			if diff := cmp.Diff(&tc.want, got.final.Status.Backfill); diff != "" {
				t.Errorf("status.backfill (-want +got):\n%s", diff)
			}
			if got.final.Status.CompletionTime == nil {
				t.Error("no completionTime: the run's TTL would never start")
			}
		})
	}
}

// freezeCalendar is the CronCalendar "freeze" that excludes [start, end), wall times in UTC.
func freezeCalendar(start, end string) *cronjobv1.CronCalendar {
	return &cronjobv1.CronCalendar{
		ObjectMeta: metav1.ObjectMeta{Name: "freeze", Namespace: Namespace},
		Spec:       cronjobv1.CronCalendarSpec{ExcludeRanges: []cronjobv1.CalendarRange{{Start: start, End: end}}},
	}
}

func TestBackfillAcrossDST(t *testing.T) {
	// "30 2 * * *" in Europe/Berlin: 02:30 does not exist on 2026-03-29 (the clocks go from 02:00 to
	// 03:00) and runs at the jump; 02:30 happens twice on 2026-10-25 and runs once, the first time.
	cases := map[string]struct {
		from, to time.Time
		want     []time.Time
	}{
		"spring forward": {
			from: MustTime("2026-03-28T00:00:00+01:00"), to: MustTime("2026-03-30T23:59:00+02:00"),
			want: []time.Time{MustTime("2026-03-28T02:30:00+01:00"), MustTime("2026-03-29T03:00:00+02:00"), MustTime("2026-03-30T02:30:00+02:00")},
		},
		"fall back": {
			from: MustTime("2026-10-24T00:00:00+02:00"), to: MustTime("2026-10-26T23:59:00+01:00"),
			want: []time.Time{MustTime("2026-10-24T02:30:00+02:00"), MustTime("2026-10-25T02:30:00+02:00"), MustTime("2026-10-26T02:30:00+01:00")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			now := tc.to.Add(time.Hour)
			cj := Hourly().Schedule("30 2 * * *").TimeZone("Europe/Berlin")
			run := backfillRun(tc.from, tc.to).CreationTimestamp(now).Parallelism(2)
			log := &createLog{}
			f := newRunFixture(t, now, log.funcs(), CronJobOf(cj), run.Obj())
			got := f.drive(t, log, succeed)
			want := make([]string, 0, len(tc.want))
			for _, slot := range tc.want {
				want = append(want, JobName(slot))
			}
			if diff := cmp.Diff(want, got.created); diff != "" {
				t.Errorf("Jobs created (-want +got):\n%s", diff)
			}
			for i, slot := range tc.want {
				job := f.job(t, want[i])
				if at := job.Annotations[cronjobv1.ScheduledAtAnnotation]; at != slot.Format(time.RFC3339) {
					t.Errorf("Job %s is for %s, want %s", want[i], at, slot.Format(time.RFC3339))
				}
			}
			if b := got.final.Status.Backfill; b.Total != int32(len(tc.want)) || b.Succeeded != int32(len(tc.want)) {
				t.Errorf("total %d, succeeded %d; want %d each", b.Total, b.Succeeded, len(tc.want))
			}
		})
	}
}

func TestBackfillRejected(t *testing.T) {
	cases := map[string]struct {
		cronJob    *builders.CronJobWrapper // nil: none
		run        *builders.CronJobRunWrapper
		now        time.Time // zero: IsTime
		wantReason string
		wantInMsg  string
	}{
		"range.to in the future": {
			cronJob: Hourly(), run: backfillRun(HM(5, 0), HM(11, 0)),
			wantReason: cronjobv1.ReasonScheduledTimeInFuture, wantInMsg: "spec.range.to 2026-03-02T11:00:00Z is in the future (now is 2026-03-02T10:00:05Z)",
		},
		"no scheduled time in the range": {
			cronJob: Hourly(), run: backfillRun(HM(5, 1), HM(5, 59)),
			wantReason: cronjobv1.ReasonNoScheduledTimeInRange, wantInMsg: "the next one after the range is 2026-03-02T06:00:00Z",
		},
		"more than 1000 slots": {
			cronJob: Hourly().Schedule("* * * * *"), run: backfillRun(HM(0, 0), MustTime("2026-03-02T23:59:00Z")), now: MustTime("2026-03-03T00:00:00Z"),
			wantReason: cronjobv1.ReasonTooManySlots, wantInMsg: "split it into CronJobRuns of at most 1000, the first from 2026-03-02T00:00:00Z to 2026-03-02T16:39:00Z",
		},
		"a parameter the CronJob does not declare": {
			cronJob: Hourly(), run: backfillRun(HM(5, 0), HM(6, 0)).Parameter("DATE", "2026-01-01"),
			wantReason: cronjobv1.ReasonInvalidParameters, wantInMsg: "DATE",
		},
		"no such CronJob": {
			run:        backfillRun(HM(5, 0), HM(6, 0)),
			wantReason: cronjobv1.ReasonCronJobNotFound, wantInMsg: "CronJob hourly does not exist",
		},
		"a calendar the CronJob lists does not exist": {
			cronJob: Hourly().Calendars("freeze"), run: backfillRun(HM(5, 0), HM(6, 0)),
			wantReason: cronjobv1.ReasonCalendarNotFound, wantInMsg: `CronCalendar "freeze" does not exist`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := []client.Object{tc.run.Obj()}
			if tc.cronJob != nil {
				objs = append(objs, CronJobOf(tc.cronJob))
			}
			now := tc.now
			if now.IsZero() {
				now = IsTime
			}
			f := newRunFixture(t, now, interceptor.Funcs{}, objs...)
			f.mustReconcileRun(t, "backfill")
			run := f.run(t, "backfill")
			if run.Status.Phase != cronjobv1.RunRejected || readyReason(run) != tc.wantReason {
				t.Fatalf("phase %s, reason %s; want Rejected, %s", run.Status.Phase, readyReason(run), tc.wantReason)
			}
			if c := meta.FindStatusCondition(run.Status.Conditions, cronjobv1.ConditionReady); !strings.Contains(c.Message, tc.wantInMsg) {
				t.Errorf("message %q does not say %q", c.Message, tc.wantInMsg)
			}
			if names := f.jobNames(t); len(names) != 0 {
				t.Errorf("a rejected backfill created Jobs %v", names)
			}
			if run.Status.Backfill != nil {
				t.Errorf("a rejected backfill has progress %+v", run.Status.Backfill)
			}
		})
	}
}

// TestBackfillSurvivesLostStatusWrites loses the run's status write after every reconcile that created
// Jobs, as a manager killed between its creates and its write would, and checks that the next reconcile
// (a new leader, from the last status written) finds those Jobs by their names and counts each slot once.
func TestBackfillSurvivesLostStatusWrites(t *testing.T) {
	log := &createLog{}
	lose, lost := true, 0
	funcs := log.funcs()
	funcs.SubResourceUpdate = func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
		if run, ok := obj.(*cronjobv1.CronJobRun); ok && lose && run.Status.Backfill != nil && run.Status.Backfill.Running > 0 {
			lose, lost = false, lost+1
			return apierrors.NewServiceUnavailable("the manager was killed before its status write")
		}
		lose = true
		return c.SubResource(sub).Update(ctx, obj, opts...)
	}
	f := newRunFixture(t, IsTime, funcs, CronJobOf(Hourly()), backfillRun(HM(1, 0), HM(8, 0)).Parallelism(3).Obj())
	var got backfillLog
	for got.reconciles = 1; got.reconciles <= 100; got.reconciles++ {
		_, err := f.reconcileRun(t, "backfill")
		if err != nil && !apierrors.IsServiceUnavailable(errors.Unwrap(err)) && !strings.Contains(err.Error(), "killed") {
			t.Fatalf("reconcile: %v", err)
		}
		if err != nil {
			continue // the write was lost: reconcile again from the stored status
		}
		run := f.run(t, "backfill")
		if finished(run) {
			got.final = run
			break
		}
		for _, slot := range run.Status.Backfill.Active {
			f.finishJob(t, slot.JobName)
		}
		f.clock.SetTime(f.clock.Now().Add(time.Minute))
	}
	if got.final == nil {
		t.Fatal("the backfill did not finish")
	}
	if lost < 3 {
		t.Errorf("%d status writes were lost, want one after each of the 3 rounds of creates at least", lost)
	}
	if diff := cmp.Diff(hours(1, 2, 3, 4, 5, 6, 7, 8), log.names); diff != "" {
		t.Errorf("Jobs created, each once (-want +got):\n%s", diff)
	}
	if b := got.final.Status.Backfill; b.Succeeded != 8 || b.Total != 8 || b.Failed+b.Skipped != 0 {
		t.Errorf("status.backfill %+v: want 8 of 8 succeeded, none skipped or failed (a Job of its own is not a skip)", b)
	}
}

func TestBackfillJobGoneBeforeItEnded(t *testing.T) {
	cases := map[string]struct {
		record    *cronjobv1.RunRecord // the CronJob's recentRuns entry of the Job, if any
		active    bool                 // the CronJob's status.active lists the Job
		want      cronjobv1.BackfillStatus
		wantPhase cronjobv1.CronJobRunPhase
	}{
		"recentRuns says it succeeded (the history limits deleted it)": {
			record:    &cronjobv1.RunRecord{JobName: JobName(HM(5, 0)), Result: cronjobv1.RunResultSucceeded, StartTime: metav1.NewTime(IsTime)},
			want:      cronjobv1.BackfillStatus{Total: 1, Succeeded: 1},
			wantPhase: cronjobv1.RunSucceeded,
		},
		"recentRuns says a timeout ended it": {
			record: &cronjobv1.RunRecord{JobName: JobName(HM(5, 0)), Result: cronjobv1.RunResultTimedOut, Reason: cronjobv1.ReasonRunTimedOut, StartTime: metav1.NewTime(IsTime)},
			want: cronjobv1.BackfillStatus{Total: 1, Failed: 1,
				FailedSlots: []cronjobv1.BackfillSlot{{ScheduledTime: metav1.NewTime(HM(5, 0)), JobName: JobName(HM(5, 0)), Reason: cronjobv1.ReasonRunTimedOut}}},
			wantPhase: cronjobv1.RunFailed,
		},
		"deleted, the CronJob's status.active still lists it (its end not recorded yet): the slot waits": {
			active: true,
			want: cronjobv1.BackfillStatus{Total: 1, Running: 1,
				Active: []cronjobv1.BackfillSlot{{ScheduledTime: metav1.NewTime(HM(5, 0)), JobName: JobName(HM(5, 0))}}},
			wantPhase: cronjobv1.RunRunning,
		},
		"deleted, recentRuns still says Running: the slot waits": {
			record: &cronjobv1.RunRecord{JobName: JobName(HM(5, 0)), Result: cronjobv1.RunResultRunning, StartTime: metav1.NewTime(IsTime)},
			want: cronjobv1.BackfillStatus{Total: 1, Running: 1,
				Active: []cronjobv1.BackfillSlot{{ScheduledTime: metav1.NewTime(HM(5, 0)), JobName: JobName(HM(5, 0))}}},
			wantPhase: cronjobv1.RunRunning,
		},
		"deleted, no record": {
			want: cronjobv1.BackfillStatus{Total: 1, Failed: 1,
				FailedSlots: []cronjobv1.BackfillSlot{{ScheduledTime: metav1.NewTime(HM(5, 0)), JobName: JobName(HM(5, 0)), Reason: cronjobv1.ReasonJobDeleted}}},
			wantPhase: cronjobv1.RunFailed,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, IsTime, interceptor.Funcs{}, CronJobOf(Hourly()), backfillRun(HM(5, 0), HM(5, 0)).Obj())
			f.mustReconcileRun(t, "backfill")
			if err := f.client.Delete(context.Background(), f.job(t, JobName(HM(5, 0)))); err != nil {
				t.Fatal(err)
			}
			cj := f.cronJob(t)
			if tc.record != nil {
				cj.Status.RecentRuns = []cronjobv1.RunRecord{*tc.record}
			}
			if tc.active {
				cj.Status.Active = []corev1.ObjectReference{{Name: JobName(HM(5, 0))}}
			}
			if err := f.client.Status().Update(context.Background(), cj); err != nil {
				t.Fatal(err)
			}
			f.mustReconcileRun(t, "backfill")
			run := f.run(t, "backfill")
			if run.Status.Phase != tc.wantPhase {
				t.Errorf("phase %s, want %s", run.Status.Phase, tc.wantPhase)
			}
			if diff := cmp.Diff(&tc.want, run.Status.Backfill); diff != "" {
				t.Errorf("status.backfill (-want +got):\n%s", diff)
			}
			if names := f.jobNames(t); len(names) != 0 {
				t.Errorf("the slot ran again: %v", names)
			}
		})
	}
}

func TestBackfillProgressAndWaiting(t *testing.T) {
	// Forbid with a scheduled Job running: the backfill waits, Pending, and says why.
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, CronJobOf(Hourly().Forbid()), RunningJob(PriorHour),
		backfillRun(HM(5, 0), HM(7, 0)).Obj())
	f.mustReconcileRun(t, "backfill")
	run := f.run(t, "backfill")
	if run.Status.Phase != cronjobv1.RunPending || readyReason(run) != cronjobv1.ReasonJobAlreadyActive {
		t.Fatalf("phase %s, reason %s; want Pending, JobAlreadyActive", run.Status.Phase, readyReason(run))
	}
	want := &cronjobv1.BackfillStatus{Total: 3, Next: TimePtr(HM(5, 0))}
	if diff := cmp.Diff(want, run.Status.Backfill); diff != "" {
		t.Errorf("status.backfill while waiting (-want +got):\n%s", diff)
	}
	// The scheduled Job ends: the first slot starts and the progress says so.
	f.finishJob(t, JobName(PriorHour))
	f.mustReconcileRun(t, "backfill")
	run = f.run(t, "backfill")
	want = &cronjobv1.BackfillStatus{Total: 3, Running: 1, Next: TimePtr(HM(6, 0)),
		Active: []cronjobv1.BackfillSlot{{ScheduledTime: metav1.NewTime(HM(5, 0)), JobName: JobName(HM(5, 0))}}}
	if diff := cmp.Diff(want, run.Status.Backfill); diff != "" {
		t.Errorf("status.backfill after the first start (-want +got):\n%s", diff)
	}
	c := meta.FindStatusCondition(run.Status.Conditions, cronjobv1.ConditionReady)
	if run.Status.Phase != cronjobv1.RunRunning || c.Reason != cronjobv1.ReasonBackfillRunning ||
		c.Message != "0 of 3 slots ended (0 succeeded, 0 failed, 0 skipped), 1 running; next slot 2026-03-02T06:00:00Z" {
		t.Errorf("phase %s, Ready %s %q", run.Status.Phase, c.Reason, c.Message)
	}
	// A reconcile with nothing new writes nothing.
	rv := run.ResourceVersion
	f.mustReconcileRun(t, "backfill")
	if f.run(t, "backfill").ResourceVersion != rv {
		t.Error("a reconcile that changed nothing wrote the run")
	}
}

func TestBackfillParallelismRaisedWhileRunning(t *testing.T) {
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, CronJobOf(Hourly()), backfillRun(HM(1, 0), HM(8, 0)).Obj())
	f.mustReconcileRun(t, "backfill")
	run := f.run(t, "backfill")
	run.Spec.Parallelism = new(int32)
	*run.Spec.Parallelism = 4
	if err := f.client.Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	f.mustReconcileRun(t, "backfill")
	if diff := cmp.Diff(hours(1, 2, 3, 4), f.jobNames(t)); diff != "" {
		t.Errorf("Jobs after parallelism 1 -> 4 (-want +got):\n%s", diff)
	}
}

// TestBackfillReadErrorKeepsTheSlotsNotLookedAt: a read of one running slot's Job fails in the middle of
// the list; the slots before it that ended are counted once, the others stay running as they were.
func TestBackfillReadErrorKeepsTheSlotsNotLookedAt(t *testing.T) {
	fail := false
	funcs := interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
		if _, ok := obj.(*batchv1.Job); ok && fail && key.Name == JobName(HM(7, 0)) {
			return apierrors.NewServiceUnavailable("etcd is slow")
		}
		return c.Get(ctx, key, obj, opts...)
	}}
	f := newRunFixture(t, IsTime, funcs, CronJobOf(Hourly()), backfillRun(HM(5, 0), HM(8, 0)).Parallelism(3).Obj())
	f.mustReconcileRun(t, "backfill")
	f.finishJob(t, JobName(HM(5, 0)))
	fail = true
	if _, err := f.reconcileRun(t, "backfill"); err == nil {
		t.Fatal("the failed read was not returned")
	}
	b := f.run(t, "backfill").Status.Backfill
	want := []cronjobv1.BackfillSlot{{ScheduledTime: metav1.NewTime(HM(6, 0)), JobName: JobName(HM(6, 0))}, {ScheduledTime: metav1.NewTime(HM(7, 0)), JobName: JobName(HM(7, 0))}}
	if b.Succeeded != 1 || !cmp.Equal(want, b.Active) {
		t.Errorf("succeeded %d, active %v; want 1 and 06:00, 07:00 once each", b.Succeeded, b.Active)
	}
	fail = false
	got := f.drive(t, &createLog{}, succeed)
	if fb := got.final.Status.Backfill; fb.Total != 4 || fb.Succeeded != 4 {
		t.Errorf("final total %d, succeeded %d; want 4 and 4", fb.Total, fb.Succeeded)
	}
}

// TestBackfillOwnJobGoneAfterALostStatusWrite: the run created the 05:00 Job, its status write was lost,
// the Job failed and its TTL deleted it; the CronJob recorded the failure. The next reconcile counts the
// slot as failed, from that record, and neither skips nor runs it again.
func TestBackfillOwnJobGoneAfterALostStatusWrite(t *testing.T) {
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, CronJobOf(Hourly()), backfillRun(HM(5, 0), HM(5, 0)).Obj())
	cj := f.cronJob(t)
	cj.Status.RecentRuns = []cronjobv1.RunRecord{{JobName: JobName(HM(5, 0)), Trigger: cronjobv1.TriggeredByBackfill, StartTime: metav1.NewTime(IsTime.Add(time.Second)),
		Result: cronjobv1.RunResultFailed, Reason: "BackoffLimitExceeded"}}
	if err := f.client.Status().Update(context.Background(), cj); err != nil {
		t.Fatal(err)
	}
	f.mustReconcileRun(t, "backfill")
	run := f.run(t, "backfill")
	if b := run.Status.Backfill; run.Status.Phase != cronjobv1.RunFailed || b.Failed != 1 || b.Skipped != 0 || len(f.jobNames(t)) != 0 {
		t.Errorf("phase %s, %+v, Jobs %v; want Failed with the slot failed (BackoffLimitExceeded), none run again", run.Status.Phase, b, f.jobNames(t))
	}
}
