package cronjobrun

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// runStart is what one reconcile of a new run did.
type runStart struct {
	Jobs    []string // the Jobs of the namespace afterwards, sorted
	Phase   cronjobv1.CronJobRunPhase
	Reason  string // of the Ready condition
	JobName string // status.jobName
}

func TestCronJobRunStart(t *testing.T) {
	active := RunningJob(PriorHour) // the 09:00 run of hourly, still running
	cases := map[string]struct {
		// spec
		cronJob *builders.CronJobWrapper // nil: no CronJob
		run     *builders.CronJobRunWrapper
		// environment
		jobs []*batchv1.Job
		// expectations
		want runStart
	}{
		"run now, Allow, a Job active": {
			cronJob: Hourly(), run: manualRun(), jobs: []*batchv1.Job{active},
			want: runStart{Jobs: []string{active.Name, manualJob}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: manualJob},
		},
		"run now, Allow with maxActiveJobs 1, a Job active": {
			cronJob: Hourly().MaxActiveJobs(1), run: manualRun(), jobs: []*batchv1.Job{active},
			want: runStart{Jobs: []string{active.Name}, Phase: cronjobv1.RunPending, Reason: cronjobv1.ReasonMaxActiveJobs},
		},
		"run now, Allow with maxActiveJobs 2, a Job active": {
			cronJob: Hourly().MaxActiveJobs(2), run: manualRun(), jobs: []*batchv1.Job{active},
			want: runStart{Jobs: []string{active.Name, manualJob}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: manualJob},
		},
		"run now, Forbid, a Job active": {
			cronJob: Hourly().Forbid(), run: manualRun(), jobs: []*batchv1.Job{active},
			want: runStart{Jobs: []string{active.Name}, Phase: cronjobv1.RunPending, Reason: cronjobv1.ReasonJobAlreadyActive},
		},
		"run now, Forbid, only finished Jobs": {
			cronJob: Hourly().Forbid(), run: manualRun(), jobs: []*batchv1.Job{DoneJob(PriorHour), FailedJob(PriorHour.Add(-time.Hour))},
			want: runStart{Jobs: []string{JobName(PriorHour.Add(-time.Hour)), JobName(PriorHour), manualJob}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: manualJob},
		},
		"run now, Forbid, an active Job of another CronJob": {
			cronJob: Hourly().Forbid(), run: manualRun(),
			jobs: []*batchv1.Job{builders.MakeJob("other-1", Namespace).OwnedBy(builders.MakeCronJob("other", Namespace).UID("other-uid").Obj()).Obj()},
			want: runStart{Jobs: []string{manualJob, "other-1"}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: manualJob},
		},
		"run now, Replace, a Job active": {
			cronJob: Hourly().Replace(), run: manualRun(), jobs: []*batchv1.Job{active},
			want: runStart{Jobs: []string{manualJob}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: manualJob},
		},
		"run now, Enqueue, a Job active": {
			cronJob: Hourly().ConcurrencyPolicy(cronjobv1.EnqueueConcurrent), run: manualRun(), jobs: []*batchv1.Job{active},
			want: runStart{Jobs: []string{active.Name}, Phase: cronjobv1.RunPending, Reason: cronjobv1.ReasonMaxActiveJobs},
		},
		"run now, Enqueue with maxActiveJobs 2, a Job active": {
			cronJob: Hourly().ConcurrencyPolicy(cronjobv1.EnqueueConcurrent).MaxActiveJobs(2), run: manualRun(), jobs: []*batchv1.Job{active},
			want: runStart{Jobs: []string{active.Name, manualJob}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: manualJob},
		},
		"run now, Ignore, Forbid with a Job active": {
			cronJob: Hourly().Forbid(), run: manualRun().IgnoreConcurrency(), jobs: []*batchv1.Job{active},
			want: runStart{Jobs: []string{active.Name, manualJob}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: manualJob},
		},
		"run now, a suspended CronJob": {
			cronJob: Hourly().Suspend(), run: manualRun(),
			want: runStart{Jobs: []string{manualJob}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: manualJob},
		},
		"run now, no such CronJob": {
			run:  manualRun(),
			want: runStart{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonCronJobNotFound},
		},
		"run now, the CronJob is being deleted": {
			cronJob: Hourly().Finalizers("test/keep").DeletionTimestamp(PriorHour), run: manualRun(),
			want: runStart{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonCronJobDeleting},
		},
		"backfill of a past scheduled time": {
			cronJob: Hourly(), run: manualRun().ScheduledTime(HM(7, 0)),
			want: runStart{Jobs: []string{JobName(HM(7, 0))}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: JobName(HM(7, 0))},
		},
		"backfill of a time that is not a scheduled time": {
			cronJob: Hourly(), run: manualRun().ScheduledTime(HM(9, 30)),
			want: runStart{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonNotAScheduledTime},
		},
		"backfill of a scheduled time in the future": {
			cronJob: Hourly(), run: manualRun().ScheduledTime(HM(11, 0)),
			want: runStart{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonScheduledTimeInFuture},
		},
		"backfill of a scheduled time in the CronJob's time zone": {
			// 09:00 in Berlin is 08:00 UTC (CET, UTC+1, in March before the switch).
			cronJob: Hourly().Schedule("0 9 * * *").TimeZone("Europe/Berlin"), run: manualRun().ScheduledTime(HM(8, 0)),
			want: runStart{Jobs: []string{JobName(HM(8, 0))}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: JobName(HM(8, 0))},
		},
		"backfill of 09:00 UTC, 10:00 in the CronJob's time zone": {
			cronJob: Hourly().Schedule("0 9 * * *").TimeZone("Europe/Berlin"), run: manualRun().ScheduledTime(HM(9, 0)),
			want: runStart{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonNotAScheduledTime},
		},
		"backfill of a time of the second of two schedules": {
			cronJob: Hourly().Schedules("0 9 * * * @ Europe/Berlin", "30 7 * * *"), run: manualRun().ScheduledTime(HM(7, 30)),
			want: runStart{Jobs: []string{JobName(HM(7, 30))}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: JobName(HM(7, 30))},
		},
		"backfill of a time neither of two schedules has": {
			cronJob: Hourly().Schedules("0 9 * * * @ Europe/Berlin", "30 7 * * *"), run: manualRun().ScheduledTime(HM(7, 0)),
			want: runStart{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonNotAScheduledTime},
		},
		"backfill of a time a calendar excludes: asked for by name, it runs": {
			cronJob: Hourly().Calendars("holidays"), run: manualRun().ScheduledTime(HM(7, 0)),
			want: runStart{Jobs: []string{JobName(HM(7, 0))}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated, JobName: JobName(HM(7, 0))},
		},
		"backfill of a time outside the active window": {
			cronJob: Hourly().ActiveWindow(HM(8, 0), time.Time{}), run: manualRun().ScheduledTime(HM(7, 0)),
			want: runStart{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonNotAScheduledTime},
		},
		"backfill, a CronJob with an unknown time zone": {
			cronJob: Hourly().TimeZone("Mars/Olympus_Mons"), run: manualRun().ScheduledTime(HM(7, 0)),
			want: runStart{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonUnknownTimeZone},
		},
		"backfill of a scheduled time whose Job exists, the CronJob's": {
			cronJob: Hourly(), run: manualRun().ScheduledTime(PriorHour), jobs: []*batchv1.Job{DoneJob(PriorHour)},
			want: runStart{Jobs: []string{JobName(PriorHour)}, Phase: cronjobv1.RunSucceeded, Reason: cronjobv1.ReasonJobComplete, JobName: JobName(PriorHour)},
		},
		"backfill of a scheduled time whose Job exists, someone else's": {
			cronJob: Hourly(), run: manualRun().ScheduledTime(PriorHour), jobs: []*batchv1.Job{HourlyJob(PriorHour).Orphaned().Obj()},
			want: runStart{Jobs: []string{JobName(PriorHour)}, Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonJobNameTaken},
		},
		"backfill, Forbid with a Job active": {
			cronJob: Hourly().Forbid(), run: manualRun().ScheduledTime(HM(7, 0)), jobs: []*batchv1.Job{active},
			want: runStart{Jobs: []string{active.Name}, Phase: cronjobv1.RunPending, Reason: cronjobv1.ReasonJobAlreadyActive},
		},
	}
	for caseName, tc := range cases {
		t.Run(caseName, func(t *testing.T) {
			t.Parallel()
			objs := []client.Object{tc.run.Obj()}
			if tc.cronJob != nil {
				objs = append(objs, tc.cronJob.Obj())
			}
			for _, j := range tc.jobs {
				objs = append(objs, j.DeepCopy())
			}
			f := newRunFixture(t, IsTime, interceptor.Funcs{}, objs...)
			f.mustReconcileRun(t, "manual")
			run := f.run(t, "manual")
			got := runStart{Jobs: f.jobNames(t), Phase: run.Status.Phase, Reason: readyReason(run), JobName: run.Status.JobName}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("after one reconcile (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestCronJobRunCreatesTheJobOfTheCronJob(t *testing.T) {
	cj := Hourly().TimeZone("Europe/Berlin").Obj()
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, cj, manualRun().Obj())
	if res := f.mustReconcileRun(t, "manual"); res.RequeueAfter != 0 {
		t.Errorf("RequeueAfter = %v, want none: a running run waits for its Job's events", res.RequeueAfter)
	}

	job := f.job(t, manualJob)
	wantMeta := metav1.ObjectMeta{
		Name: manualJob, Namespace: Namespace,
		Labels: map[string]string{"app": "hourly", cronjobv1.TriggerLabel: cronjobv1.TriggerManual},
		Annotations: map[string]string{
			cronjobv1.CronJobRunAnnotation: "manual",
			// The run's time, in the CronJob's zone, also under batch/v1's key.
			cronjobv1.ScheduledAtAnnotation:                "2026-03-02T11:00:05+01:00",
			cronjobv1.UpstreamScheduledTimestampAnnotation: "2026-03-02T11:00:05+01:00",
			// When the controller built it, by its clock: runTimeoutSeconds counts from here.
			cronjobv1.CreatedAtAnnotation: "2026-03-02T10:00:05Z",
			// What kubectl create job --from sets, for tools that know batch/v1's manual Jobs.
			cronjobv1.UpstreamInstantiateAnnotation: "manual",
		},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, cronjobv1.GroupVersion.WithKind("CronJob"))},
	}
	if diff := cmp.Diff(wantMeta, job.ObjectMeta, cmpopts.IgnoreFields(metav1.ObjectMeta{}, "UID", "ResourceVersion", "CreationTimestamp")); diff != "" {
		t.Errorf("Job metadata (-want,+got):\n%s", diff)
	}
	if diff := cmp.Diff(cj.Spec.JobTemplate.Spec, job.Spec); diff != "" {
		t.Errorf("Job spec (-want,+got): it must be the CronJob's jobTemplate:\n%s", diff)
	}

	run := f.run(t, "manual")
	wantStatus := cronjobv1.CronJobRunStatus{
		Phase: cronjobv1.RunRunning, JobName: manualJob,
		ScheduledTime: TimePtr(IsTime), StartTime: TimePtr(IsTime),
		Conditions: []metav1.Condition{{Type: cronjobv1.ConditionReady, Status: metav1.ConditionTrue, Reason: cronjobv1.ReasonJobCreated,
			Message: "Job " + manualJob + " runs", LastTransitionTime: metav1.NewTime(IsTime)}},
	}
	if diff := cmp.Diff(wantStatus, run.Status); diff != "" {
		t.Errorf("CronJobRun status (-want,+got):\n%s", diff)
	}
	wantRef := []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: manualJob, UID: job.UID}}
	if diff := cmp.Diff(wantRef, run.OwnerReferences); diff != "" {
		t.Errorf("CronJobRun owner references (-want,+got): the garbage collector must delete it with its Job:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Normal SuccessfulCreate", "Normal SuccessfulCreate"}, f.eventReasons()); diff != "" {
		t.Errorf("events (-want,+got): one on the run, one on the CronJob:\n%s", diff)
	}
	if got := MetricValue(f.metrics.Collectors(), metrics.MetricRunsStarted, metrics.TriggerManual); got != 1 {
		t.Errorf("runs_started_total{trigger=manual} = %v, want 1", got)
	}
	if got := MetricValue(f.metrics.Collectors(), metrics.MetricRunsStarted, metrics.TriggerSchedule); got != 0 {
		t.Errorf("runs_started_total{trigger=schedule} = %v, want 0", got)
	}

	// A second reconcile changes nothing.
	f.mustReconcileRun(t, "manual")
	if diff := cmp.Diff([]string{manualJob}, f.jobNames(t)); diff != "" {
		t.Errorf("Jobs after a second reconcile (-want,+got):\n%s", diff)
	}
}

func TestCronJobRunRejectionSaysWhatToFix(t *testing.T) {
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Obj(), manualRun().ScheduledTime(HM(9, 30)).Obj())
	res := f.mustReconcileRun(t, "manual")
	run := f.run(t, "manual")
	c := run.Status.Conditions[0]
	for _, part := range []string{"2026-03-02T09:30:00Z", `"0 * * * *"`, "the next one after it is 2026-03-02T10:00:00Z", "create another CronJobRun"} {
		if !strings.Contains(c.Message, part) {
			t.Errorf("Ready message %q does not contain %q", c.Message, part)
		}
	}
	if diff := cmp.Diff(TimePtr(IsTime), run.Status.CompletionTime); diff != "" {
		t.Errorf("completionTime (-want,+got): a rejected run is finished at once:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Warning NotAScheduledTime"}, f.eventReasons()); diff != "" {
		t.Errorf("events (-want,+got):\n%s", diff)
	}
	if want := time.Duration(cronjobv1.DefaultRunTTLSecondsAfterFinished)*time.Second + schedule.RequeuePadding; res.RequeueAfter != want {
		t.Errorf("RequeueAfter = %v, want %v: the end of the default TTL", res.RequeueAfter, want)
	}
}

func TestCronJobRunPhaseFollowsTheJob(t *testing.T) {
	for caseName, tc := range map[string]struct {
		job        func(*batchv1.Job) *batchv1.Job
		wantPhase  cronjobv1.CronJobRunPhase
		wantReason string
		wantDone   *metav1.Time
	}{
		"Job succeeded": {
			job:       func(j *batchv1.Job) *batchv1.Job { return builders.FromJob(j).Succeeded(HM(10, 30)).Obj() },
			wantPhase: cronjobv1.RunSucceeded, wantReason: cronjobv1.ReasonJobComplete, wantDone: TimePtr(HM(10, 30)),
		},
		"Job failed": {
			job:       func(j *batchv1.Job) *batchv1.Job { return builders.FromJob(j).Failed(HM(10, 20)).Obj() },
			wantPhase: cronjobv1.RunFailed, wantReason: cronjobv1.ReasonJobFailed, wantDone: TimePtr(HM(10, 20)),
		},
		"Job still running": {
			job:       func(j *batchv1.Job) *batchv1.Job { return builders.FromJob(j).StartedAt(IsTime).Obj() },
			wantPhase: cronjobv1.RunRunning, wantReason: cronjobv1.ReasonJobCreated,
		},
	} {
		t.Run(caseName, func(t *testing.T) {
			t.Parallel()
			f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Obj(), manualRun().TTLSecondsAfterFinished(3600).Obj())
			f.mustReconcileRun(t, "manual")
			if err := f.client.Status().Update(context.Background(), tc.job(f.job(t, manualJob))); err != nil {
				t.Fatal(err)
			}
			f.clock.SetTime(HM(10, 45))
			res := f.mustReconcileRun(t, "manual")
			run := f.run(t, "manual")
			if run.Status.Phase != tc.wantPhase || readyReason(run) != tc.wantReason {
				t.Errorf("phase, reason = %s, %s; want %s, %s", run.Status.Phase, readyReason(run), tc.wantPhase, tc.wantReason)
			}
			if diff := cmp.Diff(tc.wantDone, run.Status.CompletionTime); diff != "" {
				t.Errorf("completionTime (-want,+got): the Job's:\n%s", diff)
			}
			var wantRequeue time.Duration
			if tc.wantDone != nil {
				wantRequeue = tc.wantDone.Add(time.Hour).Sub(HM(10, 45)) + schedule.RequeuePadding
			}
			if res.RequeueAfter != wantRequeue {
				t.Errorf("RequeueAfter = %v, want %v (the end of the TTL of a finished run, none for a running one)", res.RequeueAfter, wantRequeue)
			}
		})
	}
}

func TestCronJobRunPruning(t *testing.T) {
	done := HM(10, 30)
	finishedRun := func(phase cronjobv1.CronJobRunPhase) *builders.CronJobRunWrapper {
		return manualRun().Status(cronjobv1.CronJobRunStatus{Phase: phase, JobName: manualJob, CompletionTime: TimePtr(done)})
	}
	rejectedRun := func() *builders.CronJobRunWrapper {
		return manualRun().Status(cronjobv1.CronJobRunStatus{Phase: cronjobv1.RunRejected, CompletionTime: TimePtr(done)})
	}
	jobOfRun := func() *batchv1.Job {
		return builders.MakeJob(manualJob, Namespace).OwnedBy(Hourly().Obj()).UID("uid-job").Succeeded(done).Obj()
	}
	ttl := time.Duration(cronjobv1.DefaultRunTTLSecondsAfterFinished) * time.Second
	for caseName, tc := range map[string]struct {
		run         *builders.CronJobRunWrapper
		job         *batchv1.Job // nil: the run's Job is gone
		now         time.Time
		wantDeleted bool
		wantRequeue time.Duration
	}{
		"succeeded, a second before the default TTL ends": {
			run: finishedRun(cronjobv1.RunSucceeded), job: jobOfRun(), now: done.Add(ttl - time.Second),
			wantRequeue: time.Second + schedule.RequeuePadding,
		},
		"succeeded, when the default TTL ends": {
			run: finishedRun(cronjobv1.RunSucceeded), job: jobOfRun(), now: done.Add(ttl), wantDeleted: true,
		},
		"succeeded, TTL 0": {
			run: finishedRun(cronjobv1.RunSucceeded).TTLSecondsAfterFinished(0), job: jobOfRun(), now: done, wantDeleted: true,
		},
		"rejected, within a TTL of 60 s": {
			run: rejectedRun().TTLSecondsAfterFinished(60), now: done.Add(59 * time.Second), wantRequeue: time.Second + schedule.RequeuePadding,
		},
		"rejected, TTL of 60 s passed": {
			run: rejectedRun().TTLSecondsAfterFinished(60), now: done.Add(time.Minute), wantDeleted: true,
		},
		"succeeded, its Job deleted by the history limits": {
			run: finishedRun(cronjobv1.RunSucceeded), now: done.Add(time.Minute), wantDeleted: true,
		},
		"running, its Job deleted": {
			run: finishedRun(cronjobv1.RunRunning), now: done.Add(time.Minute), wantDeleted: true,
		},
		"succeeded, its Job replaced by another of the same name": {
			run: finishedRun(cronjobv1.RunSucceeded).Owner("batch/v1", "Job", manualJob, "uid-old-job"), job: jobOfRun(),
			now: done.Add(time.Minute), wantDeleted: true,
		},
	} {
		t.Run(caseName, func(t *testing.T) {
			t.Parallel()
			objs := []client.Object{Hourly().Obj(), tc.run.Obj()}
			if tc.job != nil {
				objs = append(objs, tc.job)
			}
			f := newRunFixture(t, tc.now, interceptor.Funcs{}, objs...)
			res := f.mustReconcileRun(t, "manual")
			if deleted := f.run(t, "manual") == nil; deleted != tc.wantDeleted {
				t.Errorf("deleted = %v, want %v", deleted, tc.wantDeleted)
			}
			if res.RequeueAfter != tc.wantRequeue {
				t.Errorf("RequeueAfter = %v, want %v", res.RequeueAfter, tc.wantRequeue)
			}
		})
	}
}

func TestRunJobName(t *testing.T) {
	long := strings.Repeat("a", cronjobv1.MaxNameLength)
	n := jobs.RunName(long, "0b7c5a3e-2f4d-4c1b-9e8a-6d5f4c3b2a19")
	if len(n) != 63 {
		t.Errorf("len(%q) = %d, want 63: it must fit the job-name label with a 52-character CronJob name", n, len(n))
	}
	if again := jobs.RunName(long, "0b7c5a3e-2f4d-4c1b-9e8a-6d5f4c3b2a19"); again != n {
		t.Errorf("jobs.RunName is not deterministic: %q, then %q", n, again)
	}
	if other := jobs.RunName(long, "0b7c5a3e-2f4d-4c1b-9e8a-6d5f4c3b2a1a"); other == n {
		t.Errorf("two UIDs give the same name %q", n)
	}
	// A scheduled run's name is "<cronjob>-<digits>": the suffix of a run now must not be all digits, for
	// any UID.
	for i := range 1000 {
		suffix := strings.TrimPrefix(jobs.RunName("x", types.UID(strings.Repeat("u", i))), "x-")
		if strings.Trim(suffix, "0123456789") == "" {
			t.Fatalf("suffix %q is digits only: it could be the name of a scheduled run", suffix)
		}
	}
}

func TestCronJobRunRetriedAfterALostStatusWrite(t *testing.T) {
	// Forbid: had the retry counted its own Job as active, the run would wait for itself forever.
	lose := true
	f := newRunFixture(t, IsTime, interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if _, ok := obj.(*cronjobv1.CronJobRun); ok && lose {
				return errors.New("connection reset")
			}
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}, Hourly().Forbid().Obj(), manualRun().Obj())
	if _, err := f.reconcileRun(t, "manual"); err == nil {
		t.Fatal("Reconcile error = nil, want the lost status write")
	}
	lose = false
	// The retry reads a cache that has not seen the Job yet: its own Job must not count against it.
	f.runs.Client = interceptor.NewClient(f.client.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*batchv1.Job); ok {
				return apierrors.NewNotFound(batchv1.Resource("jobs"), key.Name)
			}
			return c.Get(ctx, key, obj, opts...)
		},
	})
	f.mustReconcileRun(t, "manual")
	if diff := cmp.Diff([]string{manualJob}, f.jobNames(t)); diff != "" {
		t.Errorf("Jobs (-want,+got): the retry must adopt the Job, not make a second:\n%s", diff)
	}
	run := f.run(t, "manual")
	if run.Status.Phase != cronjobv1.RunRunning || run.Status.JobName != manualJob || readyReason(run) != cronjobv1.ReasonJobCreated {
		t.Errorf("status = %s %s %s, want Running %s JobCreated", run.Status.Phase, run.Status.JobName, readyReason(run), manualJob)
	}
}

func TestCronJobRunOlderWaitingRunsStartFirst(t *testing.T) {
	cj := Hourly().ConcurrencyPolicy(cronjobv1.EnqueueConcurrent).Obj()
	older := builders.MakeCronJobRun("older", Namespace, "hourly").UID("uid-older").CreationTimestamp(IsTime).Obj()
	younger := builders.MakeCronJobRun("younger", Namespace, "hourly").UID("uid-younger").CreationTimestamp(IsTime.Add(time.Second)).Obj()
	f := newRunFixture(t, IsTime.Add(time.Minute), interceptor.Funcs{}, cj, older, younger, DoneJob(PriorHour))

	f.mustReconcileRun(t, "younger")
	if got := f.run(t, "younger"); got.Status.Phase != cronjobv1.RunPending {
		t.Fatalf("younger run: phase %s, want Pending while an older run waits for the one slot", got.Status.Phase)
	}
	f.mustReconcileRun(t, "older")
	f.mustReconcileRun(t, "younger")
	want := []string{JobName(PriorHour), jobs.RunName("hourly", "uid-older")}
	sort.Strings(want)
	if diff := cmp.Diff(want, f.jobNames(t)); diff != "" {
		t.Errorf("Jobs (-want,+got): the older run starts, the younger waits for its Job:\n%s", diff)
	}
	if got := f.run(t, "younger"); got.Status.Phase != cronjobv1.RunPending {
		t.Errorf("younger run: phase %s, want Pending", got.Status.Phase)
	}
}

func TestCronJobRunWithoutAPIReaderFails(t *testing.T) {
	f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Obj(), manualRun().Obj())
	f.runs.APIReader = nil
	if _, err := f.reconcileRun(t, "manual"); err == nil {
		t.Error("Reconcile error = nil, want one: the concurrency policy must not trust the cache")
	}
	if ptr.Deref(f.run(t, "manual"), cronjobv1.CronJobRun{}).Status.Phase != "" {
		t.Error("the run's status changed without an API reader")
	}
}
