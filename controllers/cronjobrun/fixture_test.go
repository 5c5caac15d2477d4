package cronjobrun

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/cronjob"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// The CronJobRun tests run manual runs of the matrix's CronJob "hourly" ("0 * * * *", created at 09:00 on
// 2026-03-02, UTC). The run "manual" has the UID runUID and is created at IsTime (10:00:05) unless a case
// says otherwise; a run now gets the Job manualJob.
const runUID types.UID = "run-uid"

var manualJob = jobs.RunName("hourly", runUID)

// manualRun is the run "manual" of "hourly": a run now that honours the concurrency policy.
func manualRun() *builders.CronJobRunWrapper {
	return builders.MakeCronJobRun("manual", Namespace, "hourly").UID(runUID).CreationTimestamp(IsTime)
}

// runFixture is the CronJobRun reconciler and the CronJob reconciler on one fake client, one fake clock
// and one fake event recorder, as Setup wires them into one manager.
type runFixture struct {
	client   client.Client
	clock    *clocktesting.FakePassiveClock
	recorder *events.FakeRecorder
	metrics  *metrics.Metrics
	runs     *Reconciler
	cronJobs *cronjob.Reconciler
	// outcome is what the last reconcile of the CronJob did.
	outcome cronjob.Outcome
}

// newRunFixture builds the fixture at now. Created objects get UID "uid-<name>" and the clock's time as
// their creation time, as an API server would give them.
func newRunFixture(t *testing.T, now time.Time, funcs interceptor.Funcs, objs ...client.Object) *runFixture {
	t.Helper()
	clk := clocktesting.NewFakePassiveClock(now)
	c := FakeClient(clk.Now, funcs, objs...)
	rec := events.NewFakeRecorder(100)
	m := metrics.NewMetrics()
	return &runFixture{
		client: c, clock: clk, recorder: rec, metrics: m,
		runs:     &Reconciler{Client: c, APIReader: c, Scheme: c.Scheme(), Clock: clk, Recorder: rec, Metrics: m},
		cronJobs: &cronjob.Reconciler{Client: c, APIReader: c, Scheme: c.Scheme(), Clock: clk, Recorder: rec, Metrics: m},
	}
}

// reconcileRun reconciles the CronJobRun of that name: the reconciler takes the runs of a CronJob
// together, so this reconciles the runs of its spec.cronJobName.
func (f *runFixture) reconcileRun(t *testing.T, name string) (ctrl.Result, error) {
	t.Helper()
	return f.runs.Reconcile(context.Background(), f.runRequest(t, name))
}

// runRequest is the request that reconciles the CronJobRun of that name: its CronJob's, or the CronJob
// "hourly"'s when the run does not exist.
func (f *runFixture) runRequest(t *testing.T, name string) ctrl.Request {
	t.Helper()
	cronJob := "hourly"
	if run := f.run(t, name); run != nil {
		cronJob = run.Spec.CronJobName
	}
	return ctrl.Request{NamespacedName: types.NamespacedName{Namespace: Namespace, Name: cronJob}}
}

// mustReconcileRun reconciles the CronJobRun of that name and fails the test on an error.
func (f *runFixture) mustReconcileRun(t *testing.T, name string) ctrl.Result {
	t.Helper()
	res, err := f.reconcileRun(t, name)
	if err != nil {
		t.Fatalf("Reconcile of CronJobRun %s: %v", name, err)
	}
	return res
}

// reconcileCronJob reconciles the CronJob "hourly" and fails the test on an error.
func (f *runFixture) reconcileCronJob(t *testing.T) cronjob.Outcome {
	t.Helper()
	f.cronJobs.OnReconcile = func(_ types.NamespacedName, out cronjob.Outcome) { f.outcome = out }
	if _, err := f.cronJobs.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: Namespace, Name: "hourly"}}); err != nil {
		t.Fatalf("Reconcile of the CronJob: %v", err)
	}
	return f.outcome
}

// run returns the CronJobRun of that name, or nil when it does not exist.
func (f *runFixture) run(t *testing.T, name string) *cronjobv1.CronJobRun {
	t.Helper()
	var run cronjobv1.CronJobRun
	err := f.client.Get(context.Background(), types.NamespacedName{Namespace: Namespace, Name: name}, &run)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return &run
}

// job returns the Job of that name.
func (f *runFixture) job(t *testing.T, name string) *batchv1.Job {
	t.Helper()
	var job batchv1.Job
	if err := f.client.Get(context.Background(), types.NamespacedName{Namespace: Namespace, Name: name}, &job); err != nil {
		t.Fatal(err)
	}
	return &job
}

// cronJob returns the CronJob "hourly".
func (f *runFixture) cronJob(t *testing.T) *cronjobv1.CronJob {
	t.Helper()
	var cj cronjobv1.CronJob
	if err := f.client.Get(context.Background(), types.NamespacedName{Namespace: Namespace, Name: "hourly"}, &cj); err != nil {
		t.Fatal(err)
	}
	return &cj
}

// jobNames lists the Jobs of the namespace, sorted.
func (f *runFixture) jobNames(t *testing.T) []string {
	t.Helper()
	return JobNames(t, f.client)
}

// eventReasons drains the recorder into "Type Reason" strings.
func (f *runFixture) eventReasons() []string {
	return EventReasons(f.recorder)
}

// readyReason is the reason of the run's Ready condition, or "" without one.
func readyReason(run *cronjobv1.CronJobRun) string {
	if c := meta.FindStatusCondition(run.Status.Conditions, cronjobv1.ConditionReady); c != nil {
		return c.Reason
	}
	return ""
}
