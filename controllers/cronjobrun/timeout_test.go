package cronjobrun

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// TestCronJobRunEndedByATimeout: a run now of a suspended "hourly" with runTimeoutSeconds 600, started at
// 10:00:05, so its Job's deadline is 10:10:05. Both controllers run on one client and one clock, in the
// orders a cache may deliver their events (README "Manual runs": timeouts apply).
func TestCronJobRunEndedByATimeout(t *testing.T) {
	deadline := IsTime.Add(600 * time.Second)
	for name, tc := range map[string]struct {
		// jobGoneFirst: the run sees its Job gone before the CronJob controller has recorded why (another
		// deleted it, or the delete's event came first): the run must wait, not be deleted.
		jobGoneFirst bool
	}{
		"the CronJob records the timeout, then the run follows":     {},
		"the run sees its Job gone first, and waits for the record": {jobGoneFirst: true},
	} {
		t.Run(name, func(t *testing.T) {
			cj := Hourly().Suspend().RunTimeoutSeconds(600).LastScheduleTime(PriorHour).Obj()
			f := newRunFixture(t, IsTime, interceptor.Funcs{}, cj, manualRun().Obj())
			f.mustReconcileRun(t, "manual")
			f.reconcileCronJob(t)
			run := f.run(t, "manual")
			if run.Status.Phase != cronjobv1.RunRunning || len(run.OwnerReferences) != 2 {
				t.Fatalf("before the deadline: phase %s, owners %v; want Running, owned by its Job and, under a timeout, its CronJob",
					run.Status.Phase, run.OwnerReferences)
			}

			f.clock.SetTime(deadline)
			if tc.jobGoneFirst {
				if err := f.client.Delete(context.Background(), f.job(t, manualJob)); err != nil {
					t.Fatal(err)
				}
				f.mustReconcileRun(t, "manual")
				if got := f.run(t, "manual"); got == nil || got.Status.Phase != cronjobv1.RunRunning {
					t.Fatalf("Job gone, not yet recorded: the run must wait untouched; got %+v", got)
				}
			}
			f.reconcileCronJob(t)
			if e := f.cronJob(t).Status.RecentRuns; len(e) != 1 || e[0].Result != cronjobv1.RunResultTimedOut {
				t.Fatalf("the CronJob's record of the run: %+v, want one entry TimedOut", e)
			}
			res := f.mustReconcileRun(t, "manual")
			got := f.run(t, "manual")
			if got == nil {
				t.Fatal("the run was deleted with its Job; want it kept, Failed")
			}
			if got.Status.Phase != cronjobv1.RunFailed || readyReason(got) != cronjobv1.ReasonRunTimedOut ||
				got.Status.CompletionTime == nil || !got.Status.CompletionTime.Equal(&metav1.Time{Time: deadline}) {
				t.Errorf("the run: phase %s, reason %s, completion %v; want Failed, RunTimedOut, %v",
					got.Status.Phase, readyReason(got), got.Status.CompletionTime, deadline)
			}
			if want := time.Duration(cronjobv1.DefaultRunTTLSecondsAfterFinished) * time.Second; res.RequeueAfter < want-time.Second || res.RequeueAfter > want+time.Second {
				t.Errorf("requeue %v, want its TTL %v (plus padding)", res.RequeueAfter, want)
			}
			// Once more, on another pass: nothing changes, the run is not deleted before its TTL.
			f.mustReconcileRun(t, "manual")
			if again := f.run(t, "manual"); again == nil || again.Status.Phase != cronjobv1.RunFailed {
				t.Errorf("a second pass: %+v", again)
			}
		})
	}
}

// TestCronJobRunJobGoneWithoutTimeout: without a timeout on the CronJob nothing changes: a run whose Job
// is gone is deleted with it.
func TestCronJobRunJobGoneWithoutTimeout(t *testing.T) {
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Suspend().LastScheduleTime(PriorHour).Obj(), manualRun().Obj())
	f.mustReconcileRun(t, "manual")
	if owners := f.run(t, "manual").OwnerReferences; len(owners) != 1 || owners[0].Kind != "Job" {
		t.Fatalf("owners %v, want only its Job", owners)
	}
	var job batchv1.Job
	if err := f.client.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: manualJob}, &job); err != nil {
		t.Fatal(err)
	}
	if err := f.client.Delete(context.Background(), &job); err != nil {
		t.Fatal(err)
	}
	f.mustReconcileRun(t, "manual")
	if got := f.run(t, "manual"); got != nil {
		t.Errorf("the run outlived its Job: %+v", got.Status)
	}
}

// TestCronJobRunJobGoneBeforeAnyRecord: the CronJob controller ended the run's Job in the reconcile that
// first saw it, so the Job was never in status.active, and its recentRuns entry is not in the cache yet
// when the run sees the Job gone. Past a timeout, the run waits for that record instead of being deleted
// as if its Job had been removed by someone (the envtest spec of a manual run past its timeout found it).
func TestCronJobRunJobGoneBeforeAnyRecord(t *testing.T) {
	for name, tc := range map[string]struct {
		at       time.Time
		wantKept bool
	}{
		"1 s before the run timeout: deleted with its Job, as usual": {at: IsTime.Add(299 * time.Second), wantKept: false},
		"at the run timeout: kept, waiting for the CronJob's record": {at: IsTime.Add(300 * time.Second), wantKept: true},
	} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Suspend().RunTimeoutSeconds(300).LastScheduleTime(PriorHour).Obj(), manualRun().Obj())
			f.mustReconcileRun(t, "manual")
			var job batchv1.Job
			if err := f.client.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: manualJob}, &job); err != nil {
				t.Fatal(err)
			}
			if err := f.client.Delete(context.Background(), &job); err != nil {
				t.Fatal(err)
			}
			f.clock.SetTime(tc.at)
			f.mustReconcileRun(t, "manual")
			if got := f.run(t, "manual"); (got != nil) != tc.wantKept {
				t.Errorf("run kept: %v, want %v", got != nil, tc.wantKept)
			}
		})
	}
}
