package cronjob

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// Issue 24's run history followed across reconciles on the fake clock (README "Run history"): the whole
// status.recentRuns entry (trigger, scheduled time, start, end, result, reason) as the reconcile writes
// it, not as steadyStatus derives it.

// entry is a status.recentRuns entry; end is zero while the run is Running.
func entry(job string, trigger cronjobv1.RunTrigger, scheduled, start time.Time, result cronjobv1.RunResult, reason string, end time.Time) cronjobv1.RunRecord {
	r := cronjobv1.RunRecord{JobName: job, Trigger: trigger, ScheduledTime: TimePtr(scheduled),
		StartTime: metav1.NewTime(start), Result: result, Reason: reason}
	if !end.IsZero() {
		r.EndTime = TimePtr(end)
	}
	return r
}

// historyFixture is a fixture whose status writes are counted in rec.
func historyFixture(t *testing.T, now time.Time, rec *outcome, w *builders.CronJobWrapper, jobs ...*batchv1.Job) *fixture {
	t.Helper()
	cj := CronJobOf(w)
	steadyStatus(cj, jobs...)
	objs := []client.Object{cj}
	for _, j := range jobs {
		objs = append(objs, j.DeepCopy())
	}
	f := newFixture(t, now, recording(interceptor.Funcs{}, nil, rec), objs...)
	f.r.APIReader = withManagedFields(f.r.APIReader, cj)
	return f
}

func mustReconcile(t *testing.T, f *fixture) time.Duration {
	t.Helper()
	res, err := f.reconcile(t)
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return res.RequeueAfter
}

func wantRuns(t *testing.T, f *fixture, step string, want ...cronjobv1.RunRecord) *cronjobv1.CronJob {
	t.Helper()
	cj := f.cronJob(t)
	if diff := cmp.Diff(want, cj.Status.RecentRuns); diff != "" {
		t.Errorf("%s: recentRuns (-want,+got):\n%s", step, diff)
	}
	return cj
}

func wantCounts(t *testing.T, cj *cronjobv1.CronJob, step string, succeeded, failed int64, consecutive int32) {
	t.Helper()
	st := cj.Status
	if st.SucceededRuns != succeeded || st.FailedRuns != failed || st.ConsecutiveFailures != consecutive {
		t.Errorf("%s: succeededRuns %d, failedRuns %d, consecutiveFailures %d; want %d, %d, %d", step,
			st.SucceededRuns, st.FailedRuns, st.ConsecutiveFailures, succeeded, failed, consecutive)
	}
}

// finishJob marks the Job named name succeeded (or failed) at `at`, as the Job controller would.
func finishJob(t *testing.T, f *fixture, name string, succeeded bool, at time.Time) {
	t.Helper()
	var job batchv1.Job
	if err := f.client.Get(context.Background(), types.NamespacedName{Namespace: Namespace, Name: name}, &job); err != nil {
		t.Fatal(err)
	}
	w := &builders.JobWrapper{Job: job}
	if succeeded {
		w.Succeeded(at)
	} else {
		w.Failed(at)
	}
	if err := f.client.Status().Update(context.Background(), w.Obj()); err != nil {
		t.Fatal(err)
	}
}

// TestRunHistoryFollowsARun: a scheduled run is listed Schedule in the write that records its start, ends
// once when its Job finishes (the success resets consecutiveFailures), and counts nothing twice across
// repeated reconciles and a restart; a second run fails and carries the Job's reason.
func TestRunHistoryFollowsARun(t *testing.T) {
	var rec outcome
	f := historyFixture(t, BeforeHour, &rec, Hourly().LastScheduleTime(PriorHour).ConsecutiveFailures(2))
	mustReconcile(t, f) // the process's first reconcile, before 10:00: the 10:00 run is on time
	f.setTime(IsTime)
	mustReconcile(t, f)
	running := entry(job1000, cronjobv1.TriggeredBySchedule, TopOfTheHour, IsTime, cronjobv1.RunResultRunning, "", time.Time{})
	wantCounts(t, wantRuns(t, f, "10:00:05, created", running), "10:00:05", 0, 0, 2)

	finishJob(t, f, job1000, true, HM(10, 10))
	writes := rec.StatusWrites // the fixture's Job status write counts too
	f.setTime(HM(10, 15))
	mustReconcile(t, f)
	done := entry(job1000, cronjobv1.TriggeredBySchedule, TopOfTheHour, IsTime, cronjobv1.RunResultSucceeded, "", HM(10, 10))
	wantCounts(t, wantRuns(t, f, "10:15, succeeded", done), "10:15", 1, 0, 0)
	if got := rec.StatusWrites - writes; got != 1 {
		t.Errorf("10:15: %d status writes, want 1 (the end rides in the write of status.active)", got)
	}
	writes = rec.StatusWrites

	f.setTime(HM(10, 16))
	mustReconcile(t, f)
	f.r = &Reconciler{Client: f.client, APIReader: f.r.APIReader, Scheme: f.client.Scheme(),
		Clock: clocktesting.NewFakePassiveClock(HM(10, 17)), Recorder: f.recorder}
	mustReconcile(t, f)
	wantCounts(t, wantRuns(t, f, "10:16 and after a restart at 10:17", done), "10:17", 1, 0, 0)
	if got := rec.StatusWrites - writes; got != 0 {
		t.Errorf("10:16-10:17: %d status writes, want 0 (nothing changed)", got)
	}

	f.setTime(HM(11, 0).Add(time.Second))
	mustReconcile(t, f)
	job1100 := JobName(HM(11, 0))
	finishJob(t, f, job1100, false, HM(11, 5))
	f.setTime(HM(11, 6))
	mustReconcile(t, f)
	mustReconcile(t, f)
	failed := entry(job1100, cronjobv1.TriggeredBySchedule, HM(11, 0), HM(11, 0).Add(time.Second), cronjobv1.RunResultFailed,
		batchv1.JobReasonBackoffLimitExceeded, HM(11, 5))
	cj := wantRuns(t, f, "11:06, failed", failed, done)
	wantCounts(t, cj, "11:06", 1, 1, 1)
	if !cj.Status.LastFailureTime.Time.Equal(HM(11, 5)) {
		t.Errorf("lastFailureTime %v, want 11:05", cj.Status.LastFailureTime)
	}
}

// TestRunHistoryTriggers: the trigger of each way a run starts, from the reconcile that starts it.
func TestRunHistoryTriggers(t *testing.T) {
	manualNow := builders.MakeJob("hourly-now", Namespace).OwnedBy(Hourly().Obj()).ScheduledAt(HM(9, 40)).
		UID("uid-hourly-now").CreationTimestamp(HM(9, 40)).StartedAt(HM(9, 40)).Obj()
	manualNow.Annotations[cronjobv1.CronJobRunAnnotation] = "run-now"
	backfill := HourlyJob(HM(8, 0)).CreationTimestamp(HM(9, 40)).Obj()
	backfill.Annotations[cronjobv1.CronJobRunAnnotation] = "run-backfill"
	cases := map[string]struct {
		cronJob *builders.CronJobWrapper
		jobs    []*batchv1.Job
		now     time.Time
		want    []cronjobv1.RunRecord
	}{
		"a run due before the process started (a restart at 10:00:05) is CatchUp, as runs_started_total counts it": {
			cronJob: Hourly().LastScheduleTime(PriorHour), now: IsTime,
			want: []cronjobv1.RunRecord{entry(job1000, cronjobv1.TriggeredByCatchUp, TopOfTheHour, IsTime, cronjobv1.RunResultRunning, "", time.Time{})},
		},
		"missedRunPolicy All: the oldest missed run is CatchUp": {
			cronJob: Hourly().CatchUp(5).LastScheduleTime(HM(7, 0)), now: IsTime,
			want: []cronjobv1.RunRecord{entry(JobName(HM(8, 0)), cronjobv1.TriggeredByCatchUp, HM(8, 0), IsTime, cronjobv1.RunResultRunning, "", time.Time{})},
		},
		"Enqueue: the queue's head is Queue": {
			cronJob: Hourly().Enqueue().LastScheduleTime(HM(8, 0)).Queued(PriorHour), now: HM(9, 30),
			want: []cronjobv1.RunRecord{entry(job0900, cronjobv1.TriggeredByQueue, PriorHour, HM(9, 30), cronjobv1.RunResultRunning, "", time.Time{})},
		},
		"a CronJobRun's Job is Manual, one for a scheduled time Backfill, when first seen": {
			cronJob: Hourly().LastScheduleTime(PriorHour), jobs: []*batchv1.Job{manualNow, backfill}, now: HM(9, 45),
			want: []cronjobv1.RunRecord{
				entry("hourly-now", cronjobv1.TriggeredByManual, HM(9, 40), HM(9, 40), cronjobv1.RunResultRunning, "", time.Time{}),
				entry(JobName(HM(8, 0)), cronjobv1.TriggeredByBackfill, HM(8, 0), HM(9, 40), cronjobv1.RunResultRunning, "", time.Time{})},
		},
		// A Job created by a reconcile whose status write was lost is adopted by the next: its entry gets
		// the trigger of the run it is, which its Job does not tell.
		"adopted catch-up run: CatchUp": {
			cronJob: Hourly().CatchUp(5).LastScheduleTime(HM(7, 0)), jobs: []*batchv1.Job{HourlyJob(HM(8, 0)).CreationTimestamp(IsTime).StartedAt(IsTime).Obj()},
			now:  IsTime.Add(time.Second),
			want: []cronjobv1.RunRecord{entry(JobName(HM(8, 0)), cronjobv1.TriggeredByCatchUp, HM(8, 0), IsTime, cronjobv1.RunResultRunning, "", time.Time{})},
		},
		"adopted queue head: Queue": {
			cronJob: Hourly().Enqueue().LastScheduleTime(HM(8, 0)).Queued(PriorHour),
			jobs:    []*batchv1.Job{HourlyJob(PriorHour).CreationTimestamp(HM(9, 30)).StartedAt(HM(9, 30)).Obj()}, now: HM(9, 31),
			want: []cronjobv1.RunRecord{entry(job0900, cronjobv1.TriggeredByQueue, PriorHour, HM(9, 30), cronjobv1.RunResultRunning, "", time.Time{})},
		},
		"adopted run due at 10:00 after a restart: Schedule (another process started it on time)": {
			cronJob: Hourly().LastScheduleTime(PriorHour), jobs: []*batchv1.Job{HourlyJob(TopOfTheHour).CreationTimestamp(TopOfTheHour).Obj()},
			now:  IsTime,
			want: []cronjobv1.RunRecord{entry(job1000, cronjobv1.TriggeredBySchedule, TopOfTheHour, TopOfTheHour, cronjobv1.RunResultRunning, "", time.Time{})},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var rec outcome
			f := historyFixture(t, tc.now, &rec, tc.cronJob)
			for _, j := range tc.jobs { // in the cache, not in the status: no entry yet
				if err := f.client.Create(context.Background(), j.DeepCopy()); err != nil {
					t.Fatal(err)
				}
			}
			mustReconcile(t, f)
			wantRuns(t, f, name, tc.want...)
			if rec.StatusWrites != 1 {
				t.Errorf("%d status writes, want 1", rec.StatusWrites)
			}
		})
	}
}

// TestRunTimeoutEndsTheQueueHeadsBlocker: under Enqueue the run of 08:00 times out at 09:30 (5400 s); in
// the same reconcile the queue's head, the run of 09:00, starts.
func TestRunTimeoutEndsTheQueueHeadsBlocker(t *testing.T) {
	for _, at := range []time.Duration{-time.Millisecond, 0} {
		var rec outcome
		f := historyFixture(t, HM(9, 30).Add(at), &rec,
			Hourly().Enqueue().LastScheduleTime(HM(8, 0)).Active(RunningJob(HM(8, 0))).Queued(PriorHour).RunTimeoutSeconds(5400),
			RunningJob(HM(8, 0)))
		requeue := mustReconcile(t, f)
		cj := f.cronJob(t)
		if at < 0 {
			wantRuns(t, f, "09:29:59.999", entry(JobName(HM(8, 0)), cronjobv1.TriggeredBySchedule, HM(8, 0), HM(8, 0), cronjobv1.RunResultRunning, "", time.Time{}))
			if len(cj.Status.Queued) != 1 || requeue != time.Millisecond+10*time.Millisecond {
				t.Errorf("09:29:59.999: queued %v, requeue %v; want the 09:00 run queued, 11ms", cj.Status.Queued, requeue)
			}
			continue
		}
		wantRuns(t, f, "09:30",
			entry(job0900, cronjobv1.TriggeredByQueue, PriorHour, HM(9, 30), cronjobv1.RunResultRunning, "", time.Time{}),
			entry(JobName(HM(8, 0)), cronjobv1.TriggeredBySchedule, HM(8, 0), HM(8, 0), cronjobv1.RunResultTimedOut, cronjobv1.ReasonRunTimedOut, HM(9, 30)))
		wantCounts(t, cj, "09:30", 0, 1, 1)
		if got := activeNames(cj); !cmp.Equal(got, []string{job0900}) || len(cj.Status.Queued) != 0 {
			t.Errorf("09:30: active %v, queued %v; want [%s], none", got, cj.Status.Queued, job0900)
		}
		if want := []string{JobName(HM(8, 0))}; !cmp.Equal(rec.Deleted, want) {
			t.Errorf("deleted %v, want %v", rec.Deleted, want)
		}
		if rec.StatusWrites != 1 {
			t.Errorf("%d status writes, want 1", rec.StatusWrites)
		}
	}
}

// TestRunTimeoutOfAManualRun: a CronJobRun's Job is one of the CronJob's Jobs (its controller), so the
// CronJob's timeouts end it as they end a scheduled run's, whatever the policy and while suspended.
func TestRunTimeoutOfAManualRun(t *testing.T) {
	manual := func() *batchv1.Job {
		j := builders.MakeJob("hourly-m1", Namespace).OwnedBy(Hourly().Obj()).ScheduledAt(HM(9, 10)).UID("uid-hourly-m1").
			CreationTimestamp(HM(9, 10)).NotStarted().Obj()
		j.Annotations[cronjobv1.CronJobRunAnnotation] = "run-1"
		j.Labels = map[string]string{cronjobv1.TriggerLabel: cronjobv1.TriggerManual}
		return j
	}
	for _, tc := range []struct {
		name string
		w    *builders.CronJobWrapper
	}{
		{"Forbid", Hourly().Forbid()},
		{"suspended", Hourly().Suspend()},
	} {
		var rec outcome
		f := historyFixture(t, HM(9, 15), &rec, tc.w.LastScheduleTime(PriorHour).StartTimeoutSeconds(300).Active(manual()), manual())
		mustReconcile(t, f)
		cj := wantRuns(t, f, tc.name, entry("hourly-m1", cronjobv1.TriggeredByManual, HM(9, 10), HM(9, 10),
			cronjobv1.RunResultNeverStarted, cronjobv1.ReasonRunNeverStarted, HM(9, 15)))
		wantCounts(t, cj, tc.name, 0, 1, 1)
		if len(cj.Status.Active) != 0 || !cmp.Equal(rec.Deleted, []string{"hourly-m1"}) {
			t.Errorf("%s: active %v, deleted %v; want none, [hourly-m1]", tc.name, cj.Status.Active, rec.Deleted)
		}
		if got := f.eventReasons(); !cmp.Equal(got, []string{evDeleted, corev1.EventTypeWarning + " " + cronjobv1.ReasonRunNeverStarted}) {
			t.Errorf("%s: events %v", tc.name, got)
		}
	}
}

// TestRunTimeoutRestartAfterTheDeadline: a new Reconciler after the reconcile that ended the run (the
// status written, the Job gone) changes nothing and counts nothing again; one before the write (the Job
// deleted, the status not written: a failover) records the same end from the entry, once.
func TestRunTimeoutRestartAfterTheDeadline(t *testing.T) {
	var rec outcome
	f := historyFixture(t, deadline, &rec, Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).RunTimeoutSeconds(1800),
		RunningJob(PriorHour))
	mustReconcile(t, f)
	ended := entry(job0900, cronjobv1.TriggeredBySchedule, PriorHour, PriorHour, cronjobv1.RunResultTimedOut, cronjobv1.ReasonRunTimedOut, deadline)
	wantCounts(t, wantRuns(t, f, "09:30", ended), "09:30", 0, 1, 1)
	writes := rec.StatusWrites
	for _, at := range []time.Time{HM(9, 31), HM(9, 45)} {
		f.r = &Reconciler{Client: f.client, APIReader: f.r.APIReader, Scheme: f.client.Scheme(),
			Clock: clocktesting.NewFakePassiveClock(at), Recorder: f.recorder}
		mustReconcile(t, f)
	}
	wantCounts(t, wantRuns(t, f, "restarted at 09:31 and 09:45", ended), "09:45", 0, 1, 1)
	if rec.StatusWrites != writes || len(rec.Deleted) != 1 {
		t.Errorf("after the restarts: %d more status writes, deleted %v; want 0, [%s]", rec.StatusWrites-writes, rec.Deleted, job0900)
	}
}

func activeNames(cj *cronjobv1.CronJob) []string {
	var names []string
	for _, ref := range cj.Status.Active {
		names = append(names, ref.Name)
	}
	return names
}
