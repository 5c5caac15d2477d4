package cronjobrun

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/conflict"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// Edges of manual runs: who goes first when two runs were created in the same second, a run that finds
// its own Job (a status write lost after the create), a wait announced once, a conflicted status write,
// and which runs the events of Jobs and CronJobs wake.

func TestCronJobRunSameCreationSecondStartsByName(t *testing.T) {
	// Creation times have a resolution of a second: two runs created in the same second are ordered by
	// name, so exactly one of them takes the one slot, whichever is reconciled first.
	for _, first := range []string{"run-a", "run-b"} {
		t.Run(first+" reconciled first", func(t *testing.T) {
			cj := Hourly().Enqueue().Obj()
			a := builders.MakeCronJobRun("run-a", Namespace, "hourly").UID("uid-run-a").CreationTimestamp(IsTime).Obj()
			b := builders.MakeCronJobRun("run-b", Namespace, "hourly").UID("uid-run-b").CreationTimestamp(IsTime).Obj()
			f := newRunFixture(t, IsTime.Add(time.Minute), interceptor.Funcs{}, cj, a, b, DoneJob(PriorHour))
			f.mustReconcileRun(t, first)
			for _, n := range []string{"run-a", "run-b"} {
				f.mustReconcileRun(t, n)
			}
			want := []string{JobName(PriorHour), jobs.RunName("hourly", "uid-run-a")}
			sort.Strings(want)
			if diff := cmp.Diff(want, f.jobNames(t)); diff != "" {
				t.Errorf("Jobs (-want,+got): run-a, first by name, starts; run-b waits:\n%s", diff)
			}
			if got := f.run(t, "run-b"); got.Status.Phase != cronjobv1.RunPending {
				t.Errorf("run-b: phase %s, want Pending", got.Status.Phase)
			}
		})
	}
}

func TestCronJobRunAdoptsItsJobFromTheCache(t *testing.T) {
	// The Job was created a minute ago and its status write was lost: the run takes it as its own, with
	// the scheduled time the Job carries, not the time of this reconcile.
	created := IsTime.Add(-time.Minute)
	job := HourlyJob(created).Obj()
	job.Name = manualJob
	job.Annotations = map[string]string{cronjobv1.CronJobRunAnnotation: "manual", cronjobv1.ScheduledAtAnnotation: created.Format(time.RFC3339)}
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Forbid().Obj(), manualRun().Obj(), job)
	f.mustReconcileRun(t, "manual")
	run := f.run(t, "manual")
	if run.Status.Phase != cronjobv1.RunRunning || run.Status.JobName != manualJob {
		t.Errorf("status: %s %q, want Running %q", run.Status.Phase, run.Status.JobName, manualJob)
	}
	if run.Status.ScheduledTime == nil || !run.Status.ScheduledTime.Time.Equal(created) {
		t.Errorf("status.scheduledTime = %v, want the Job's %s", run.Status.ScheduledTime, created)
	}
	if diff := cmp.Diff([]string{manualJob}, f.jobNames(t)); diff != "" {
		t.Errorf("Jobs (-want,+got): adopted, not created twice:\n%s", diff)
	}
}

func TestCronJobRunWaitIsAnnouncedOnce(t *testing.T) {
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Forbid().Obj(), manualRun().Obj(), RunningJob(PriorHour))
	f.mustReconcileRun(t, "manual")
	f.mustReconcileRun(t, "manual")
	if diff := cmp.Diff([]string{"Normal " + cronjobv1.ReasonJobAlreadyActive}, f.eventReasons()); diff != "" {
		t.Errorf("events (-want,+got): one when the run starts waiting, none while it still waits for the same:\n%s", diff)
	}
}

func TestCronJobRunStatusConflictRequeues(t *testing.T) {
	conflicts := 1
	f := newRunFixture(t, IsTime, interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if _, ok := obj.(*cronjobv1.CronJobRun); ok && conflicts > 0 {
				conflicts--
				return apierrors.NewConflict(cronjobv1.GroupVersion.WithResource("cronjobruns").GroupResource(), obj.GetName(), nil)
			}
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}, Hourly().Obj(), manualRun().Obj())
	res, err := f.reconcileRun(t, "manual")
	if err != nil || res.RequeueAfter != conflict.RequeueDelay {
		t.Errorf("after a conflicted status write: %v, RequeueAfter %v; want no error (it is retried) and %v", err, res.RequeueAfter, conflict.RequeueDelay)
	}
}

func TestCronJobRunMapper(t *testing.T) {
	// Every event maps to one request, the CronJob whose runs to reconcile, whatever the number of its runs.
	cj := Hourly().Obj()
	scheduled := RunningJob(PriorHour) // the CronJob's scheduled Job: no CronJobRun annotation
	manual := HourlyJob(IsTime).Obj()
	manual.Name, manual.Annotations = manualJob, map[string]string{cronjobv1.CronJobRunAnnotation: "manual"}
	loose := builders.MakeJob("loose", Namespace).Obj()
	loose.Annotations = map[string]string{cronjobv1.CronJobRunAnnotation: "other"}
	other := builders.MakeCronJobRun("other", Namespace, "daily").UID("uid-other").Obj()
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, cj, manualRun().Obj(), other)
	m := runMapper{c: f.client}
	key := func(name string) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: Namespace, Name: name}}}
	}
	ctx := context.Background()
	for what, tc := range map[string]struct {
		got, want []reconcile.Request
	}{
		"a scheduled Job of the CronJob: the CronJob":                 {got: m.cronJobOfJob(ctx, scheduled), want: key("hourly")},
		"a run's Job: its CronJob, once":                              {got: m.cronJobOfJob(ctx, manual), want: key("hourly")},
		"a Job of no CronJob naming a run: that run's CronJob":        {got: m.cronJobOfJob(ctx, loose), want: key("daily")},
		"a Job of no CronJob naming no run: nothing":                  {got: m.cronJobOfJob(ctx, builders.MakeJob("plain", Namespace).Obj()), want: nil},
		"a Job of no CronJob naming a run that is gone: nothing":      {got: (runMapper{c: newRunFixture(t, IsTime, interceptor.Funcs{}).client}).cronJobOfJob(ctx, loose), want: nil},
		"the CronJob: itself":                                         {got: cronJobItself(ctx, cj), want: key("hourly")},
		"a run: its CronJob (spec.cronJobName), which need not exist": {got: cronJobOfRun(ctx, other), want: key("daily")},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want,+got):\n%s", what, diff)
		}
	}
}

func TestCronJobRunJobEvents(t *testing.T) {
	// A Job's status changes as its Pods run; only its end (or a change of what identifies it) can free a
	// slot or move a run's phase, so only those updates wake the CronJob's runs.
	running := RunningJob(PriorHour)
	done := DoneJob(PriorHour)
	annotated := running.DeepCopy()
	annotated.Annotations = map[string]string{cronjobv1.CronJobRunAnnotation: "manual"}
	progressed := running.DeepCopy()
	progressed.Status.Ready = ptr.To[int32](1)
	progressed.Status.Active = 3
	for what, tc := range map[string]struct {
		old, new *batchv1.Job
		want     bool
	}{
		"the Job finished":        {old: running, new: done, want: true},
		"its annotations changed": {old: running, new: annotated, want: true},
		"only its Pods' counts":   {old: running, new: progressed, want: false},
		"nothing":                 {old: running, new: running.DeepCopy(), want: false},
	} {
		if got := jobChange().Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}); got != tc.want {
			t.Errorf("%s: wakes the runs = %v, want %v", what, got, tc.want)
		}
	}
}

func TestCronJobRunAdoptingAFinishedJobAppliesItsTTL(t *testing.T) {
	// A backfill of a time that already ran finds that run's Job finished: the run is Succeeded at once,
	// and with ttlSecondsAfterFinished 0 it is deleted in the same reconcile.
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Obj(),
		manualRun().ScheduledTime(PriorHour).TTLSecondsAfterFinished(0).Obj(), DoneJob(PriorHour))
	f.mustReconcileRun(t, "manual")
	if run := f.run(t, "manual"); run != nil {
		t.Errorf("run: phase %s, still there; want it deleted, its Job finished and its TTL 0", run.Status.Phase)
	}
	if diff := cmp.Diff([]string{JobName(PriorHour)}, f.jobNames(t)); diff != "" {
		t.Errorf("Jobs (-want,+got): the run's Job stays, it is the scheduled run's:\n%s", diff)
	}
}

func TestCronJobRunKeepsOwnersOfOtherKinds(t *testing.T) {
	// A tool that creates CronJobRuns may own them, here with a Job of another API group (Volcano's) and a
	// batch/v1 object of another kind: the controller adds the reference to the run's batch/v1 Job beside
	// theirs, so the run still goes when either owner goes.
	run := manualRun().Owner("batch.volcano.sh/v1alpha1", "Job", "launcher", "uid-launcher").Owner("batch/v1", "CronJob", "legacy", "uid-legacy")
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Obj(), run.Obj())
	f.mustReconcileRun(t, "manual")
	job := f.job(t, manualJob)
	want := []metav1.OwnerReference{
		{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job", Name: "launcher", UID: "uid-launcher"},
		{APIVersion: "batch/v1", Kind: "CronJob", Name: "legacy", UID: "uid-legacy"},
		{APIVersion: "batch/v1", Kind: "Job", Name: manualJob, UID: job.UID},
	}
	if diff := cmp.Diff(want, f.run(t, "manual").OwnerReferences); diff != "" {
		t.Errorf("CronJobRun owner references (-want,+got):\n%s", diff)
	}
}
