package cronjobrun

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// Manual runs at scale: many runs of one CronJob, a cache that lags, the cap on waiting runs, and what a
// Rejected run is owned by.

// queuedRuns returns n runs of "hourly" named run-000, run-001, ..., created a second apart from IsTime.
func queuedRuns(n int) []client.Object {
	out := make([]client.Object, 0, n)
	for i := range n {
		name := fmt.Sprintf("run-%03d", i)
		out = append(out, builders.MakeCronJobRun(name, Namespace, "hourly").UID(types.UID("uid-"+name)).
			CreationTimestamp(IsTime.Add(time.Duration(i)*time.Second)).Obj())
	}
	return out
}

// finishJob marks the Job of that name Complete, as the Job controller would.
func (f *runFixture) finishJob(t *testing.T, name string) {
	t.Helper()
	job := f.job(t, name)
	done := metav1.NewTime(f.clock.Now())
	job.Status.CompletionTime = &done
	job.Status.Conditions = append(job.Status.Conditions,
		batchv1.JobCondition{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue},
		batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue})
	if err := f.client.Status().Update(context.Background(), job); err != nil {
		t.Fatal(err)
	}
}

// hideJobs is a cache that has not seen any Job yet: Gets of Jobs are NotFound, lists of Jobs empty. The
// API reader (the fixture's client) sees them.
func hideJobs(c client.Client) client.Client {
	return interceptor.NewClient(c.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*batchv1.Job); ok {
				return apierrors.NewNotFound(batchv1.Resource("jobs"), key.Name)
			}
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*batchv1.JobList); ok {
				return nil
			}
			return c.List(ctx, list, opts...)
		},
	})
}

func TestCronJobRunForbidWithALaggingCache(t *testing.T) {
	// The cache has not seen the Jobs created a moment ago: Forbid must still never start a second Job.
	// The Jobs the controller knows of by name (a run's status.jobName, the CronJob's status.active) are
	// read from the API server when the cache does not hold them.
	t.Run("a run's Job", func(t *testing.T) {
		f := newRunFixture(t, IsTime, interceptor.Funcs{}, append(queuedRuns(3), Hourly().Forbid().Obj())...)
		f.runs.Client = hideJobs(f.client)
		for range 3 {
			f.mustReconcileRun(t, "run-000")
		}
		if diff := cmp.Diff([]string{jobs.RunName("hourly", "uid-run-000")}, f.jobNames(t)); diff != "" {
			t.Errorf("Jobs (-want,+got): one, the oldest run's:\n%s", diff)
		}
		for _, name := range []string{"run-001", "run-002"} {
			if got := f.run(t, name); got.Status.Phase != cronjobv1.RunPending || readyReason(got) != cronjobv1.ReasonJobAlreadyActive {
				t.Errorf("%s: %s %s, want Pending JobAlreadyActive", name, got.Status.Phase, readyReason(got))
			}
		}
	})
	t.Run("the runs' status lags too", func(t *testing.T) {
		// The cache shows the runs as they were before the first reconcile: the oldest finds its own Job by
		// its name and adopts it, and the others count it.
		f := newRunFixture(t, IsTime, interceptor.Funcs{}, append(queuedRuns(3), Hourly().Forbid().Obj())...)
		var before cronjobv1.CronJobRunList
		if err := f.client.List(context.Background(), &before); err != nil {
			t.Fatal(err)
		}
		f.mustReconcileRun(t, "run-000")
		stale := hideJobs(f.client)
		f.runs.Client = interceptor.NewClient(stale.(client.WithWatch), interceptor.Funcs{
			List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				if l, ok := list.(*cronjobv1.CronJobRunList); ok {
					before.DeepCopyInto(l)
					return nil
				}
				return c.List(ctx, list, opts...)
			},
		})
		for range 3 {
			_, _ = f.reconcileRun(t, "run-000") // stale status writes conflict; what matters is the Jobs
		}
		if diff := cmp.Diff([]string{jobs.RunName("hourly", "uid-run-000")}, f.jobNames(t)); diff != "" {
			t.Errorf("Jobs (-want,+got): one, the oldest run's:\n%s", diff)
		}
	})
	t.Run("a scheduled Job in the CronJob's status.active", func(t *testing.T) {
		f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Forbid().LastScheduleTime(TopOfTheHour).Active(RunningJob(TopOfTheHour)).Obj(),
			RunningJob(TopOfTheHour), manualRun().Obj())
		f.runs.Client = hideJobs(f.client)
		f.mustReconcileRun(t, "manual")
		if diff := cmp.Diff([]string{JobName(TopOfTheHour)}, f.jobNames(t)); diff != "" {
			t.Errorf("Jobs (-want,+got): the scheduled one only:\n%s", diff)
		}
		if got := f.run(t, "manual"); got.Status.Phase != cronjobv1.RunPending {
			t.Errorf("run: %s, want Pending behind the scheduled Job", got.Status.Phase)
		}
	})
}

func TestCronJobRunStatusWritesAreLinear(t *testing.T) {
	// n runs wait behind a Forbid Job; each Job that finishes starts the next run. Each run's status is
	// written when its own state changes (Pending, Running, Succeeded), not whenever another run starts.
	const n = 30
	writes := 0
	objs := append(queuedRuns(n), Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).Obj(), RunningJob(PriorHour))
	f := newRunFixture(t, IsTime.Add(time.Hour), interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if _, ok := obj.(*cronjobv1.CronJobRun); ok {
				writes++
			}
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}, objs...)
	f.mustReconcileRun(t, "run-000")
	if writes != n {
		t.Fatalf("%d status writes for %d runs that start waiting, want %d", writes, n, n)
	}
	writes = 0
	running := JobName(PriorHour)
	for i := range n {
		f.finishJob(t, running)
		f.mustReconcileRun(t, "run-000")
		name := fmt.Sprintf("run-%03d", i)
		run := f.run(t, name)
		if run.Status.Phase != cronjobv1.RunRunning {
			t.Fatalf("after %d finished Jobs: %s is %s, want Running", i+1, name, run.Status.Phase)
		}
		running = run.Status.JobName
	}
	t.Logf("%d CronJobRun status writes to start and finish %d runs", writes, n)
	if want := 2*n + 2; writes > want {
		t.Errorf("%d CronJobRun status writes to start %d waiting runs one after another, want at most %d (one to start each, one to finish each)", writes, n, want)
	}
	if got := len(f.jobNames(t)); got != n+1 {
		t.Errorf("%d Jobs, want %d: the scheduled one and one per run, none twice", got, n+1)
	}
}

func TestCronJobRunTooManyWaitingRuns(t *testing.T) {
	cj := Hourly().Forbid().Active(RunningJob(PriorHour)).Obj()
	f := newRunFixture(t, IsTime.Add(time.Hour), interceptor.Funcs{}, append(queuedRuns(4), cj, RunningJob(PriorHour))...)
	f.runs.MaxWaitingRuns = 2
	f.mustReconcileRun(t, "run-000")
	type state struct {
		Phase  cronjobv1.CronJobRunPhase
		Reason string
		Owner  string
	}
	got := map[string]state{}
	for i := range 4 {
		name := fmt.Sprintf("run-%03d", i)
		run := f.run(t, name)
		st := state{Phase: run.Status.Phase, Reason: readyReason(run)}
		for _, ref := range run.OwnerReferences {
			st.Owner = ref.Kind + "/" + ref.Name
		}
		got[name] = st
	}
	want := map[string]state{
		"run-000": {Phase: cronjobv1.RunPending, Reason: cronjobv1.ReasonJobAlreadyActive},
		"run-001": {Phase: cronjobv1.RunPending, Reason: cronjobv1.ReasonJobAlreadyActive},
		"run-002": {Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonTooManyWaitingRuns, Owner: "CronJob/hourly"},
		"run-003": {Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonTooManyWaitingRuns, Owner: "CronJob/hourly"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs (-want,+got): the two oldest wait, the others are Rejected and owned by the CronJob:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Normal JobAlreadyActive", "Normal JobAlreadyActive", "Warning TooManyWaitingRuns", "Warning TooManyWaitingRuns"}, f.eventReasons()); diff != "" {
		t.Errorf("events (-want,+got):\n%s", diff)
	}

	// The runs already waiting keep their turn when the limit goes lower; a negative limit is none.
	f.runs.MaxWaitingRuns = 1
	f.mustReconcileRun(t, "run-000")
	if got := f.run(t, "run-001"); got.Status.Phase != cronjobv1.RunPending {
		t.Errorf("run-001 after the limit went to 1: %s, want still Pending", got.Status.Phase)
	}
	if err := f.client.Create(context.Background(), builders.MakeCronJobRun("late", Namespace, "hourly").Obj()); err != nil {
		t.Fatal(err)
	}
	f.runs.MaxWaitingRuns = -1
	f.mustReconcileRun(t, "late")
	if got := f.run(t, "late"); got.Status.Phase != cronjobv1.RunPending {
		t.Errorf("a new run without a limit: %s, want Pending", got.Status.Phase)
	}
}

func TestCronJobRunRejectedRunsOwner(t *testing.T) {
	// A Rejected run goes with its CronJob (owner reference, not a controller); a run of no CronJob has no
	// owner to go with, and goes at the end of its TTL.
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Obj(),
		manualRun().ScheduledTime(IsTime.Add(time.Hour)).Obj(),
		builders.MakeCronJobRun("orphan", Namespace, "nothing").UID("orphan-uid").CreationTimestamp(IsTime).Obj())
	f.mustReconcileRun(t, "manual")
	f.mustReconcileRun(t, "orphan")
	cj := f.cronJob(t)
	want := []metav1.OwnerReference{{APIVersion: cronjobv1.GroupVersion.String(), Kind: "CronJob", Name: "hourly", UID: cj.UID}}
	run := f.run(t, "manual")
	if run.Status.Phase != cronjobv1.RunRejected {
		t.Fatalf("run: %s, want Rejected (scheduledTime in the future)", run.Status.Phase)
	}
	if diff := cmp.Diff(want, run.OwnerReferences); diff != "" {
		t.Errorf("owner references of the Rejected run (-want,+got):\n%s", diff)
	}
	f.mustReconcileRun(t, "manual")
	if diff := cmp.Diff(want, f.run(t, "manual").OwnerReferences); diff != "" {
		t.Errorf("after another reconcile (-want,+got): the reference is added once:\n%s", diff)
	}
	if orphan := f.run(t, "orphan"); orphan.Status.Phase != cronjobv1.RunRejected || len(orphan.OwnerReferences) != 0 {
		t.Errorf("run of no CronJob: %s, owners %v; want Rejected without owner", orphan.Status.Phase, orphan.OwnerReferences)
	}
}

func TestCronJobRunTTLIsClamped(t *testing.T) {
	// A run stored before the schema's maximum keeps at most MaxRunTTLSecondsAfterFinished.
	done := HM(10, 30)
	run := manualRun().TTLSecondsAfterFinished(1 << 30).
		Status(cronjobv1.CronJobRunStatus{Phase: cronjobv1.RunRejected, CompletionTime: TimePtr(done)}).Obj()
	want := done.Add(time.Duration(cronjobv1.MaxRunTTLSecondsAfterFinished) * time.Second)
	if got := runExpiry(run, done); !got.Equal(want) {
		t.Errorf("runExpiry = %s, want %s (seven days after completion)", got, want)
	}
	f := newRunFixture(t, want, interceptor.Funcs{}, Hourly().Obj(), run)
	f.mustReconcileRun(t, "manual")
	if f.run(t, "manual") != nil {
		t.Error("the run is still there seven days after it was Rejected")
	}
}

func TestCronJobRunIgnoredRunsCountBeforeTheLineStarts(t *testing.T) {
	// The younger run says Ignore and created its Job, but its status write was lost and the cache has not
	// seen the Job: it is adopted before the older run, which honours Forbid, looks for a free slot, so
	// the older run counts that Job and waits.
	older := builders.MakeCronJobRun("older", Namespace, "hourly").UID("uid-older").CreationTimestamp(IsTime).Obj()
	ignoring := builders.MakeCronJobRun("ignoring", Namespace, "hourly").UID("uid-ignoring").CreationTimestamp(IsTime.Add(time.Second)).IgnoreConcurrency().Obj()
	ignoringJob := HourlyJob(IsTime).Obj()
	ignoringJob.Name = jobs.RunName("hourly", "uid-ignoring")
	ignoringJob.UID = "uid-" + types.UID(ignoringJob.Name)
	ignoringJob.Annotations[cronjobv1.CronJobRunAnnotation] = "ignoring"
	f := newRunFixture(t, IsTime.Add(time.Minute), interceptor.Funcs{}, Hourly().Forbid().Obj(), older, ignoring, ignoringJob)
	f.runs.Client = hideJobs(f.client)
	f.mustReconcileRun(t, "older")
	if diff := cmp.Diff([]string{ignoringJob.Name}, f.jobNames(t)); diff != "" {
		t.Errorf("Jobs (-want,+got): the ignoring run's only:\n%s", diff)
	}
	if got := f.run(t, "older"); got.Status.Phase != cronjobv1.RunPending {
		t.Errorf("older run: %s, want Pending behind the ignoring run's Job", got.Status.Phase)
	}
	if got := f.run(t, "ignoring"); got.Status.JobName != ignoringJob.Name {
		t.Errorf("ignoring run: job %q, want %q adopted", got.Status.JobName, ignoringJob.Name)
	}
}
