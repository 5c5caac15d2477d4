package cronjob

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// Issue 24's rules, one reconcile per row on the fake clock (README "Run timeouts", "Run history",
// "Dead-man's switch", "Pause after failures"). "hourly" last ran at 09:00; its Job of 09:00 was created
// then and still runs; the 10:00 run is due at 10:00. Every expectation is worked out from the README.

// runsOutcome is what a reconcile left that these rules decide.
type runsOutcome struct {
	Created, Deleted []string // Job names, in order
	Active           []string // status.active
	Runs             []string // status.recentRuns as "<job>=<result>/<reason>", newest first
	Succeeded        int64
	Failed           int64
	Consecutive      int32
	LastFailure      *metav1.Time
	Events           []string
	Ready, Healthy   string // reasons of the conditions ("" when absent)
	Suspend          bool
	PausedAt         string
	Requeue          time.Duration
	StatusWrites     int
}

// runsCase is one row: the CronJob (with its status), the Jobs the cache and the server have, and now.
type runsCase struct {
	cronJob *builders.CronJobWrapper
	jobs    []*batchv1.Job
	now     time.Time
	want    runsOutcome
}

// reconcileRuns reconciles tc once on a new Reconciler (a restart between rows is free: nothing is kept in
// memory) and returns what it left.
func reconcileRuns(t *testing.T, tc runsCase) runsOutcome {
	t.Helper()
	var rec outcome
	f := steadyFixture(t, tc.cronJob, tc.jobs, tc.now, &rec)
	res, err := f.reconcile(t)
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return collectRuns(t, f, rec, res.RequeueAfter)
}

func collectRuns(t *testing.T, f *fixture, rec outcome, requeue time.Duration) runsOutcome {
	t.Helper()
	after := f.cronJob(t)
	got := runsOutcome{Deleted: rec.Deleted, Events: f.eventReasons(), Requeue: requeue, StatusWrites: rec.StatusWrites,
		Succeeded: after.Status.SucceededRuns, Failed: after.Status.FailedRuns, Consecutive: after.Status.ConsecutiveFailures,
		LastFailure: after.Status.LastFailureTime, Suspend: ptr.Deref(after.Spec.Suspend, false),
		PausedAt: after.Annotations[cronjobv1.PausedAtAnnotation]}
	for _, c := range rec.Created {
		got.Created = append(got.Created, c.Name)
	}
	for _, ref := range after.Status.Active {
		got.Active = append(got.Active, ref.Name)
	}
	for _, r := range after.Status.RecentRuns {
		got.Runs = append(got.Runs, fmt.Sprintf("%s=%s/%s", r.JobName, r.Result, r.Reason))
	}
	if c := meta.FindStatusCondition(after.Status.Conditions, cronjobv1.ConditionReady); c != nil {
		got.Ready = c.Reason
	}
	if c := meta.FindStatusCondition(after.Status.Conditions, cronjobv1.ConditionHealthy); c != nil {
		got.Healthy = c.Reason
	}
	return got
}

func runRows(t *testing.T, cases map[string]runsCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, reconcileRuns(t, tc), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want,+got):\n%s", diff)
			}
		})
	}
}

// job0900 is the Job of 09:00, created and started at 09:00; readyJob is the same with a ready Pod.
var (
	job0900  = JobName(PriorHour)
	job1000  = JobName(TopOfTheHour)
	deadline = HM(9, 30) // 09:00 plus a timeout of 1800 s
)

func readyJob(slot time.Time) *batchv1.Job {
	j := RunningJob(slot)
	j.Status.Ready, j.Status.Active = ptr.To[int32](1), 1
	return j
}

func running(name string) string { return name + "=Running/" }

func TestRunTimeoutsMatrix(t *testing.T) {
	policies := []cronjobv1.ConcurrencyPolicy{cronjobv1.AllowConcurrent, cronjobv1.ForbidConcurrent,
		cronjobv1.ReplaceConcurrent, cronjobv1.EnqueueConcurrent}
	timeouts := []struct {
		name   string
		set    func(*builders.CronJobWrapper) *builders.CronJobWrapper
		result cronjobv1.RunResult
		reason string
	}{
		{"runTimeoutSeconds", func(w *builders.CronJobWrapper) *builders.CronJobWrapper { return w.RunTimeoutSeconds(1800) },
			cronjobv1.RunResultTimedOut, cronjobv1.ReasonRunTimedOut},
		{"startTimeoutSeconds", func(w *builders.CronJobWrapper) *builders.CronJobWrapper { return w.StartTimeoutSeconds(1800) },
			cronjobv1.RunResultNeverStarted, cronjobv1.ReasonRunNeverStarted},
	}
	cases := map[string]runsCase{}
	for _, p := range policies {
		for _, to := range timeouts {
			base := func() *builders.CronJobWrapper {
				return to.set(Hourly().ConcurrencyPolicy(p).LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)))
			}
			ended := job0900 + "=" + string(to.result) + "/" + to.reason
			cases[fmt.Sprintf("%s, %s: a millisecond before the deadline, nothing ends", p, to.name)] = runsCase{
				cronJob: base(), jobs: []*batchv1.Job{RunningJob(PriorHour)}, now: deadline.Add(-time.Millisecond),
				want: runsOutcome{Active: []string{job0900}, Runs: []string{running(job0900)}, Ready: cronjobv1.ReasonScheduled,
					Requeue: time.Millisecond + schedule.RequeuePadding},
			}
			cases[fmt.Sprintf("%s, %s: at the deadline, the Job is deleted and the run failed", p, to.name)] = runsCase{
				cronJob: base(), jobs: []*batchv1.Job{RunningJob(PriorHour)}, now: deadline,
				want: runsOutcome{Deleted: []string{job0900}, Runs: []string{ended}, Failed: 1, Consecutive: 1,
					LastFailure: TimePtr(deadline), Ready: cronjobv1.ReasonScheduled,
					Events:  []string{"Normal SuccessfulDelete", "Warning " + to.reason},
					Requeue: 30*time.Minute + schedule.RequeuePadding, StatusWrites: 1},
			}
			cases[fmt.Sprintf("%s, %s: a millisecond after the deadline, the same", p, to.name)] = runsCase{
				cronJob: base(), jobs: []*batchv1.Job{RunningJob(PriorHour)}, now: deadline.Add(time.Millisecond),
				want: runsOutcome{Deleted: []string{job0900}, Runs: []string{ended}, Failed: 1, Consecutive: 1,
					LastFailure: TimePtr(deadline), Ready: cronjobv1.ReasonScheduled, // stored to the second
					Events:  []string{"Normal SuccessfulDelete", "Warning " + to.reason},
					Requeue: 30*time.Minute - time.Millisecond + schedule.RequeuePadding, StatusWrites: 1},
			}
			cases[fmt.Sprintf("%s, %s: the clock jumps over the deadline to 10:00:05, the run of 10:00 starts in the same reconcile", p, to.name)] = runsCase{
				cronJob: base(), jobs: []*batchv1.Job{RunningJob(PriorHour)}, now: IsTime,
				want: runsOutcome{Created: []string{job1000}, Deleted: []string{job0900}, Active: []string{job1000},
					Runs: []string{running(job1000), ended}, Failed: 1, Consecutive: 1, LastFailure: TimePtr(IsTime),
					Ready:  cronjobv1.ReasonScheduled,
					Events: []string{"Normal SuccessfulDelete", "Warning " + to.reason, "Normal SuccessfulCreate"},
					// the 10:00 Job's own deadline, 10:30:05, comes before 11:00
					Requeue: 30*time.Minute + schedule.RequeuePadding, StatusWrites: 1},
			}
		}
		cases[fmt.Sprintf("%s, startTimeoutSeconds: a Job with a ready Pod is not ended", p)] = runsCase{
			cronJob: Hourly().ConcurrencyPolicy(p).LastScheduleTime(PriorHour).Active(readyJob(PriorHour)).
				StartTimeoutSeconds(1800).LastScheduleTime(TopOfTheHour),
			jobs: []*batchv1.Job{readyJob(PriorHour)}, now: deadline,
			want: runsOutcome{Active: []string{job0900}, Runs: []string{running(job0900)}, Ready: cronjobv1.ReasonScheduled,
				Requeue: 90*time.Minute + schedule.RequeuePadding},
		}
	}
	cases["suspended: a run past its timeout is ended all the same"] = runsCase{
		cronJob: Hourly().Suspend().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).RunTimeoutSeconds(1800),
		jobs:    []*batchv1.Job{RunningJob(PriorHour)}, now: IsTime,
		want: runsOutcome{Deleted: []string{job0900}, Runs: []string{job0900 + "=TimedOut/RunTimedOut"}, Failed: 1,
			Consecutive: 1, LastFailure: TimePtr(IsTime), Ready: cronjobv1.ReasonSuspended, Suspend: true,
			Events: []string{"Normal SuccessfulDelete", "Warning RunTimedOut"}, StatusWrites: 1},
	}
	cases["suspended: the requeue wakes at the deadline though the schedule asks for none"] = runsCase{
		cronJob: Hourly().Suspend().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).RunTimeoutSeconds(1800),
		jobs:    []*batchv1.Job{RunningJob(PriorHour)}, now: HM(9, 10),
		want: runsOutcome{Active: []string{job0900}, Runs: []string{running(job0900)}, Ready: cronjobv1.ReasonSuspended,
			Suspend: true, Requeue: 20*time.Minute + schedule.RequeuePadding},
	}
	// Failover: a leader deleted the Job at its deadline and died before the status write. The next finds
	// the Job gone, its entry Running and past the deadline: TimedOut, counted once, not Deleted.
	gone := func() *builders.CronJobWrapper {
		w := Hourly().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).RunTimeoutSeconds(1800)
		w.Status.RecentRuns = []cronjobv1.RunRecord{{JobName: job0900, StartTime: metav1.NewTime(PriorHour),
			ScheduledTime: TimePtr(PriorHour), Trigger: cronjobv1.TriggeredBySchedule, Result: cronjobv1.RunResultRunning}}
		return w
	}
	cases["failover: the Job gone past its deadline is recorded TimedOut"] = runsCase{
		cronJob: gone(), now: HM(9, 31),
		want: runsOutcome{Runs: []string{job0900 + "=TimedOut/RunTimedOut"}, Failed: 1, Consecutive: 1,
			LastFailure: TimePtr(HM(9, 31)), Ready: cronjobv1.ReasonScheduled, Events: []string{"Normal MissingJob"},
			Requeue: 29*time.Minute + schedule.RequeuePadding, StatusWrites: 1},
	}
	cases["failover: the Job gone before its deadline is Deleted, not counted"] = runsCase{
		cronJob: gone(), now: HM(9, 29),
		want: runsOutcome{Runs: []string{job0900 + "=Deleted/MissingJob"}, Ready: cronjobv1.ReasonScheduled,
			Events: []string{"Normal MissingJob"}, Requeue: 31*time.Minute + schedule.RequeuePadding, StatusWrites: 1},
	}
	runRows(t, cases)
}

// TestRunTimeoutAcrossRestart reconciles before the deadline, then on a new Reconciler (a restart, or a
// new leader) at the deadline: the second ends the run, once, from the Job's own start time.
func TestRunTimeoutAcrossRestart(t *testing.T) {
	var rec outcome
	f := steadyFixture(t, Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).RunTimeoutSeconds(1800),
		[]*batchv1.Job{RunningJob(PriorHour)}, HM(9, 29), &rec)
	if _, err := f.reconcile(t); err != nil {
		t.Fatal(err)
	}
	restarted := &Reconciler{Client: f.client, APIReader: f.r.APIReader, Scheme: f.client.Scheme(),
		Clock: clocktesting.NewFakePassiveClock(deadline), Recorder: f.recorder}
	f.r = restarted
	for range 2 { // and once more: nothing twice
		res, err := f.reconcile(t)
		if err != nil {
			t.Fatal(err)
		}
		rec.Created = nil
		got := collectRuns(t, f, rec, res.RequeueAfter)
		if got.Failed != 1 || got.Consecutive != 1 || len(got.Runs) != 1 || got.Runs[0] != job0900+"=TimedOut/RunTimedOut" {
			t.Errorf("after the restart: failed %d, consecutive %d, runs %v; want 1, 1, [%s=TimedOut/RunTimedOut]",
				got.Failed, got.Consecutive, got.Runs, job0900)
		}
	}
	if want := []string{job0900}; !cmp.Equal(rec.Deleted, want) {
		t.Errorf("deleted %v, want %v", rec.Deleted, want)
	}
}

func TestRunHistoryRows(t *testing.T) {
	manual := func(name string, scheduled time.Time) *batchv1.Job {
		j := builders.MakeJob(name, Namespace).OwnedBy(Hourly().Obj()).ScheduledAt(scheduled).UID(types.UID("uid-" + name)).
			CreationTimestamp(HM(9, 40)).StartedAt(HM(9, 40)).Obj()
		j.Annotations[cronjobv1.CronJobRunAnnotation] = "run-" + name
		return j
	}
	cases := map[string]runsCase{
		"a success ends its entry, counts once and resets consecutiveFailures": {
			cronJob: Hourly().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).ConsecutiveFailures(3),
			jobs:    []*batchv1.Job{DoneJob(PriorHour)}, now: HM(9, 30),
			want: runsOutcome{Runs: []string{job0900 + "=Succeeded/"}, Succeeded: 1, Ready: cronjobv1.ReasonScheduled,
				Events: []string{"Normal SawCompletedJob"}, Requeue: 30*time.Minute + schedule.RequeuePadding, StatusWrites: 1},
		},
		"a failure carries the Job's reason and adds to consecutiveFailures": {
			cronJob: Hourly().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).ConsecutiveFailures(2),
			jobs:    []*batchv1.Job{FailedJob(PriorHour)}, now: HM(9, 30),
			want: runsOutcome{Runs: []string{job0900 + "=Failed/BackoffLimitExceeded"}, Failed: 1, Consecutive: 3,
				LastFailure: TimePtr(HM(9, 1)), Ready: cronjobv1.ReasonScheduled,
				Events: []string{"Normal SawCompletedJob"}, Requeue: 30*time.Minute + schedule.RequeuePadding, StatusWrites: 1},
		},
		"Replace: the replaced run is Replaced, neither counted nor resetting": {
			cronJob: Hourly().Replace().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).ConsecutiveFailures(1),
			jobs:    []*batchv1.Job{RunningJob(PriorHour)}, now: IsTime,
			want: runsOutcome{Created: []string{job1000}, Deleted: []string{job0900}, Active: []string{job1000},
				Runs: []string{running(job1000), job0900 + "=Replaced/Replaced"}, Consecutive: 1, Ready: cronjobv1.ReasonScheduled,
				Events:  []string{"Normal SuccessfulDelete", "Normal SuccessfulCreate"},
				Requeue: time.Hour - 5*time.Second + schedule.RequeuePadding, StatusWrites: 1},
		},
		"recentRunsLimit 2 keeps the two newest finished runs, and older Jobs are not listed again": {
			cronJob: Hourly().LastScheduleTime(HM(9, 0)).RecentRunsLimit(2).HistoryLimits(5, 5).
				LastSuccessfulTime(HM(9, 1)).LastFailureTime(HM(7, 1)),
			jobs: []*batchv1.Job{DoneJob(HM(6, 0)), FailedJob(HM(7, 0)), DoneJob(HM(8, 0)), DoneJob(HM(9, 0))},
			now:  HM(9, 30),
			want: runsOutcome{Runs: []string{JobName(HM(9, 0)) + "=Succeeded/", JobName(HM(8, 0)) + "=Succeeded/"},
				Succeeded: 3, Failed: 1, LastFailure: TimePtr(HM(7, 1)), Ready: cronjobv1.ReasonScheduled,
				Requeue: 30*time.Minute + schedule.RequeuePadding},
		},
		"manual runs: Manual for a run now, Backfill for a scheduled time": {
			cronJob: Hourly().LastScheduleTime(PriorHour),
			jobs:    []*batchv1.Job{manual("hourly-now", HM(9, 40)), manual(JobName(HM(8, 0)), HM(8, 0))},
			now:     HM(9, 45),
			want: runsOutcome{Active: []string{JobName(HM(8, 0)), "hourly-now"},
				Runs:  []string{running("hourly-now"), running(JobName(HM(8, 0)))},
				Ready: cronjobv1.ReasonScheduled, Requeue: 15*time.Minute + schedule.RequeuePadding,
				StatusWrites: 1}, // they join status.active
		},
	}
	runRows(t, cases)

	// Triggers, which runsOutcome does not show.
	cj := CronJobOf(Hourly().LastScheduleTime(PriorHour))
	jobs := []*batchv1.Job{manual("hourly-now", HM(9, 40)), manual(JobName(HM(8, 0)), HM(8, 0))}
	steadyStatus(cj, jobs...)
	byJob := map[string]cronjobv1.RunTrigger{}
	for _, r := range cj.Status.RecentRuns {
		byJob[r.JobName] = r.Trigger
	}
	if want := map[string]cronjobv1.RunTrigger{"hourly-now": cronjobv1.TriggeredByManual,
		JobName(HM(8, 0)): cronjobv1.TriggeredByBackfill}; !cmp.Equal(byJob, want) {
		t.Errorf("triggers %v, want %v", byJob, want)
	}
}

// planned gives the CronJob the plan digest of its own planning fields in status.observedSchedule, as the
// controller would have recorded it, so that a row sees the plan in force rather than an edit of it.
func planned(w *builders.CronJobWrapper) *builders.CronJobWrapper {
	cj := w.Obj()
	obs := *cj.Status.ObservedSchedule
	obs.Plan = planDigest(&cj.Spec, nil)
	return w.ObservedSchedule(obs)
}

func TestDeadMansSwitchRows(t *testing.T) {
	// successDeadlineSeconds 3600; "hourly" was created at 09:00 and observedSchedule.since is 09:00.
	base := func() *builders.CronJobWrapper {
		return Hourly().SuccessDeadlineSeconds(3600).LastScheduleTime(PriorHour).
			ObservedSchedule(cronjobv1.ObservedSchedule{Schedule: "0 * * * *", Since: metav1.NewTime(CreationTime)})
	}
	cases := map[string]runsCase{
		"never succeeded, a millisecond before an hour of scheduling: SucceededRecently": {
			cronJob: base(), now: TopOfTheHour.Add(-time.Millisecond),
			want: runsOutcome{Ready: cronjobv1.ReasonScheduled, Healthy: cronjobv1.ReasonSucceededRecently,
				Requeue: time.Millisecond + schedule.RequeuePadding, StatusWrites: 1},
		},
		"never succeeded, an hour of scheduling: NoRecentSuccess with one event": {
			cronJob: base().LastScheduleTime(TopOfTheHour), now: TopOfTheHour.Add(time.Second),
			want: runsOutcome{Ready: cronjobv1.ReasonScheduled, Healthy: cronjobv1.ReasonNoRecentSuccess,
				Events:  []string{"Warning NoRecentSuccess"},
				Requeue: time.Hour - time.Second + schedule.RequeuePadding, StatusWrites: 1},
		},
		"succeeded at 09:30: healthy until 10:30, woken then": {
			cronJob: base().LastScheduleTime(TopOfTheHour).LastSuccessfulTime(HM(9, 30)), now: HM(10, 10),
			want: runsOutcome{Ready: cronjobv1.ReasonScheduled, Healthy: cronjobv1.ReasonSucceededRecently,
				Requeue: 20*time.Minute + schedule.RequeuePadding, StatusWrites: 1},
		},
		"suspended by a user for days: Suspended, no event": {
			cronJob: base().Suspend().ObservedSchedule(cronjobv1.ObservedSchedule{Schedule: "0 * * * *", Suspended: true, Since: metav1.NewTime(HM(9, 10))}),
			now:     WeekLate,
			want: runsOutcome{Ready: cronjobv1.ReasonSuspended, Healthy: cronjobv1.ReasonHealthSuspended, Suspend: true,
				StatusWrites: 1},
		},
		"just resumed after a week: counts from the resume": {
			cronJob: base().ObservedSchedule(cronjobv1.ObservedSchedule{Schedule: "0 * * * *", Since: metav1.NewTime(WeekLate.Add(-time.Minute))}),
			now:     WeekLate,
			want: runsOutcome{Ready: cronjobv1.ReasonScheduled, Healthy: cronjobv1.ReasonSucceededRecently,
				Requeue: 59*time.Minute + schedule.RequeuePadding, StatusWrites: 1},
		},
		"suspendUntil a week ahead, no success for a day: Suspended, no event": {
			cronJob: planned(base().SuspendUntil(WeekLate.Add(24 * time.Hour))), now: TopOfTheHour.Add(24 * time.Hour),
			want: runsOutcome{Ready: cronjobv1.ReasonSuspendedUntil, Healthy: cronjobv1.ReasonHealthSuspended,
				Requeue: WeekLate.Sub(TopOfTheHour) + schedule.RequeuePadding, StatusWrites: 1}, // woken at suspendUntil
		},
		"suspendUntil passed 30 s ago after a week: counts from its end": {
			cronJob: planned(base().SuspendUntil(WeekLate.Add(-30 * time.Second))), now: WeekLate,
			want: runsOutcome{Ready: cronjobv1.ReasonScheduled, Healthy: cronjobv1.ReasonSucceededRecently,
				Requeue: 59*time.Minute + schedule.RequeuePadding, StatusWrites: 1},
		},
		"the active window ended at 09:30, a week ago: Suspended, no event": {
			cronJob: planned(base().ActiveWindow(time.Time{}, HM(9, 30))), now: WeekLate,
			want: runsOutcome{Ready: cronjobv1.ReasonActiveWindowEnded, Healthy: cronjobv1.ReasonHealthSuspended, StatusWrites: 1},
		},
		"paused after failures a week ago: keeps counting from creation": {
			cronJob: base().Suspend().Annotation(cronjobv1.PausedAtAnnotation, "2026-03-02T09:10:00Z").ConsecutiveFailures(3).
				ObservedSchedule(cronjobv1.ObservedSchedule{Schedule: "0 * * * *", Suspended: true, Since: metav1.NewTime(HM(9, 10))}),
			now: WeekLate,
			want: runsOutcome{Ready: cronjobv1.ReasonPausedAfterFailures, Healthy: cronjobv1.ReasonNoRecentSuccess,
				Suspend: true, PausedAt: "2026-03-02T09:10:00Z", Consecutive: 3, Events: []string{"Warning NoRecentSuccess"},
				StatusWrites: 1},
		},
	}
	runRows(t, cases)
}

func TestPauseAfterFailuresRows(t *testing.T) {
	failed := FailedJob(PriorHour)
	base := func() *builders.CronJobWrapper {
		return Hourly().PauseAfterFailures(3).LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).HistoryLimits(3, 3)
	}
	cases := map[string]runsCase{
		"the second failure in a row of three allowed: no pause, the 10:00 run starts": {
			cronJob: base().ConsecutiveFailures(1), jobs: []*batchv1.Job{failed}, now: IsTime,
			want: runsOutcome{Created: []string{job1000}, Active: []string{job1000},
				Runs: []string{running(job1000), job0900 + "=Failed/BackoffLimitExceeded"}, Failed: 1, Consecutive: 2,
				LastFailure: TimePtr(HM(9, 1)), Ready: cronjobv1.ReasonScheduled,
				Events:  []string{"Normal SawCompletedJob", "Normal SuccessfulCreate"},
				Requeue: time.Hour - 5*time.Second + schedule.RequeuePadding, StatusWrites: 1},
		},
		"the third: paused, and the 10:00 run does not start": {
			cronJob: base().ConsecutiveFailures(2), jobs: []*batchv1.Job{failed}, now: IsTime,
			want: runsOutcome{Runs: []string{job0900 + "=Failed/BackoffLimitExceeded"}, Failed: 1, Consecutive: 3,
				LastFailure: TimePtr(HM(9, 1)), Ready: cronjobv1.ReasonPausedAfterFailures, Suspend: true,
				PausedAt: "2026-03-02T10:00:05Z",
				Events:   []string{"Normal SawCompletedJob", "Warning PausedAfterFailures"}, StatusWrites: 1},
		},
		"suspended by a user with failures past the limit: not reported as paused": {
			cronJob: Hourly().PauseAfterFailures(3).Suspend().ConsecutiveFailures(5).LastScheduleTime(PriorHour), now: IsTime,
			want: runsOutcome{Consecutive: 5, Ready: cronjobv1.ReasonSuspended, Suspend: true},
		},
		"resumed at 10:30 after missing 10:00: the annotation goes, the count restarts, no surprise run": {
			cronJob: Hourly().PauseAfterFailures(3).ConsecutiveFailures(3).LastScheduleTime(PriorHour).
				Annotation(cronjobv1.PausedAtAnnotation, "2026-03-02T09:10:00Z").
				ObservedSchedule(cronjobv1.ObservedSchedule{Schedule: "0 * * * *", Suspended: true, Since: metav1.NewTime(HM(9, 10))}),
			now: HM(10, 30),
			want: runsOutcome{Ready: cronjobv1.ReasonScheduled, Events: []string{"Normal Resumed"},
				Requeue: 30*time.Minute + schedule.RequeuePadding, StatusWrites: 1},
		},
	}
	runRows(t, cases)
}

// TestPauseAgainAfterResume: a CronJob resumed after a pause starts counting from 0 and pauses again at the
// N-th failure after the resume, not before. Three reconciles on one client, the clock moving.
func TestPauseAgainAfterResume(t *testing.T) {
	var rec outcome
	f := steadyFixture(t, Hourly().PauseAfterFailures(2).LastScheduleTime(PriorHour).HistoryLimits(5, 5).ConsecutiveFailures(2).
		Annotation(cronjobv1.PausedAtAnnotation, "2026-03-02T09:10:00Z").
		ObservedSchedule(cronjobv1.ObservedSchedule{Schedule: "0 * * * *", Suspended: true, Since: metav1.NewTime(HM(9, 10))}),
		nil, HM(9, 30), &rec)
	clk := clocktesting.NewFakePassiveClock(HM(9, 30))
	f.r.Clock = clk
	step := func(at time.Time, failJobs ...time.Time) runsOutcome {
		t.Helper()
		for _, slot := range failJobs {
			var job batchv1.Job
			if err := f.client.Get(t.Context(), client.ObjectKey{Namespace: Namespace, Name: JobName(slot)}, &job); err != nil {
				t.Fatal(err)
			}
			failed := FailedJob(slot)
			job.Status = failed.Status
			if err := f.client.Status().Update(t.Context(), &job); err != nil {
				t.Fatal(err)
			}
		}
		clk.SetTime(at)
		rec = outcome{}
		res, err := f.reconcile(t)
		if err != nil {
			t.Fatal(err)
		}
		return collectRuns(t, f, rec, res.RequeueAfter)
	}
	if got := step(HM(9, 30)); got.PausedAt != "" || got.Consecutive != 0 || got.Suspend {
		t.Fatalf("resume at 09:30: %+v", got)
	}
	if got := step(HM(10, 0).Add(time.Second)); len(got.Created) != 1 || got.Suspend {
		t.Fatalf("10:00 after the resume: %+v", got)
	}
	if got := step(HM(11, 0).Add(time.Second), HM(10, 0)); got.Consecutive != 1 || got.Suspend || len(got.Created) != 1 {
		t.Errorf("one failure after the resume, limit 2: want no pause and the 11:00 run; got %+v", got)
	}
	got := step(HM(12, 0).Add(time.Second), HM(11, 0))
	if got.Consecutive != 2 || !got.Suspend || got.PausedAt != "2026-03-02T12:00:01Z" || len(got.Created) != 0 ||
		got.Ready != cronjobv1.ReasonPausedAfterFailures {
		t.Errorf("the second failure after the resume: want paused at 12:00:01 and no 12:00 run; got %+v", got)
	}
}
