package cronjobrun

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// withParameters is "hourly" declaring DATE (a date pattern, default 2026-01-01) and MODE (full or delta,
// default full), with a template env entry MODE that the parameter overrides.
func withParameters() *builders.CronJobWrapper {
	return Hourly().PatternParameter("DATE", "2026-01-01", `^\d{4}-\d{2}-\d{2}$`).EnumParameter("MODE", "full", "full", "delta").
		Env("MODE", "from-template")
}

// paramsOutcome is what a reconcile of a run with parameter values did.
type paramsOutcome struct {
	Jobs       []string // the Jobs of the namespace afterwards, sorted
	Phase      cronjobv1.CronJobRunPhase
	Reason     string // of the Ready condition
	Message    string // of the Ready condition, when Rejected
	Events     []string
	Env        []corev1.EnvVar // of the run's Job's container
	Annotation string          // the run's Job's ParametersAnnotation
}

func TestCronJobRunParameters(t *testing.T) {
	active := RunningJob(PriorHour)
	cases := map[string]struct {
		// spec
		cronJob *builders.CronJobWrapper
		run     *builders.CronJobRunWrapper
		// environment
		jobs []*batchv1.Job
		// expectations
		want paramsOutcome
	}{
		"values that fit: the Job's container has them, MODE overridden in place, and the annotation": {
			cronJob: withParameters(), run: manualRun().Parameter("MODE", "delta").Parameter("DATE", "2026-03-02"),
			want: paramsOutcome{Jobs: []string{manualJob}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated,
				Events:     []string{"Normal SuccessfulCreate", "Normal SuccessfulCreate"},
				Env:        []corev1.EnvVar{{Name: "MODE", Value: "delta"}, {Name: "DATE", Value: "2026-03-02"}},
				Annotation: `{"DATE":"2026-03-02","MODE":"delta"}`},
		},
		"no values: the defaults": {
			cronJob: withParameters(), run: manualRun(),
			want: paramsOutcome{Jobs: []string{manualJob}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated,
				Events:     []string{"Normal SuccessfulCreate", "Normal SuccessfulCreate"},
				Env:        []corev1.EnvVar{{Name: "MODE", Value: "full"}, {Name: "DATE", Value: "2026-01-01"}},
				Annotation: `{"DATE":"2026-01-01","MODE":"full"}`},
		},
		"a backfill with values: the Job of that scheduled time has them": {
			cronJob: withParameters(), run: manualRun().ScheduledTime(HM(7, 0)).Parameter("DATE", "2026-03-01"),
			want: paramsOutcome{Jobs: []string{JobName(HM(7, 0))}, Phase: cronjobv1.RunRunning, Reason: cronjobv1.ReasonJobCreated,
				Events:     []string{"Normal SuccessfulCreate", "Normal SuccessfulCreate"},
				Env:        []corev1.EnvVar{{Name: "MODE", Value: "full"}, {Name: "DATE", Value: "2026-03-01"}},
				Annotation: `{"DATE":"2026-03-01","MODE":"full"}`},
		},
		"a value not matching the pattern (admitted while the webhook was down): Rejected, no Job": {
			cronJob: withParameters(), run: manualRun().Parameter("DATE", "2026-13-1"),
			want: paramsOutcome{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonInvalidParameters,
				Message: `spec.parameters[DATE]: Invalid value: "2026-13-1": does not match the pattern ^\d{4}-\d{2}-\d{2}$ of CronJob hourly's parameter DATE: create another CronJobRun with values that fit`,
				Events:  []string{"Warning InvalidParameters"}},
		},
		"a name the CronJob does not declare (it had none when the run was admitted): Rejected": {
			cronJob: Hourly(), run: manualRun().Parameter("DATE", "2026-03-02"),
			want: paramsOutcome{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonInvalidParameters,
				Message: `spec.parameters[DATE]: Invalid value: "2026-03-02": CronJob hourly declares no parameter DATE (it declares none): remove the value or correct its name: create another CronJobRun with values that fit`,
				Events:  []string{"Warning InvalidParameters"}},
		},
		"two values that do not fit: both in the message": {
			cronJob: withParameters(), run: manualRun().Parameter("DATE", "today").Parameter("MODE", "fast"),
			want: paramsOutcome{Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonInvalidParameters,
				Message: `[spec.parameters[DATE]: Invalid value: "today": does not match the pattern ^\d{4}-\d{2}-\d{2}$ of CronJob hourly's parameter DATE, spec.parameters[MODE]: Invalid value: "fast": is not one of the values of CronJob hourly's parameter MODE: "full", "delta"]: create another CronJobRun with values that fit`,
				Events:  []string{"Warning InvalidParameters"}},
		},
		"values that do not fit under Replace with a Job active: Rejected before the policy, the active Job kept": {
			cronJob: withParameters().Replace(), run: manualRun().Parameter("MODE", "fast"), jobs: []*batchv1.Job{active},
			want: paramsOutcome{Jobs: []string{active.Name}, Phase: cronjobv1.RunRejected, Reason: cronjobv1.ReasonInvalidParameters,
				Message: `spec.parameters[MODE]: Invalid value: "fast": is not one of the values of CronJob hourly's parameter MODE: "full", "delta": create another CronJobRun with values that fit`,
				Events:  []string{"Warning InvalidParameters"}},
		},
	}
	for caseName, tc := range cases {
		t.Run(caseName, func(t *testing.T) {
			t.Parallel()
			objs := []client.Object{tc.run.Obj(), tc.cronJob.Obj()}
			for _, j := range tc.jobs {
				objs = append(objs, j.DeepCopy())
			}
			f := newRunFixture(t, IsTime, interceptor.Funcs{}, objs...)
			f.mustReconcileRun(t, "manual")
			run := f.run(t, "manual")
			got := paramsOutcome{Jobs: f.jobNames(t), Phase: run.Status.Phase, Reason: readyReason(run), Events: f.eventReasons()}
			if c := meta.FindStatusCondition(run.Status.Conditions, cronjobv1.ConditionReady); c != nil && run.Status.Phase == cronjobv1.RunRejected {
				got.Message = c.Message
			}
			if run.Status.JobName != "" {
				job := f.job(t, run.Status.JobName)
				got.Env = job.Spec.Template.Spec.Containers[0].Env
				got.Annotation = job.Annotations[cronjobv1.ParametersAnnotation]
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("after one reconcile (-want,+got):\n%s", diff)
			}
		})
	}
}

// TestScheduledRunGetsTheDefaults: the CronJob controller's Job of a scheduled time has the defaults, the
// Job of a CronJob without parameters none of it.
func TestScheduledRunGetsTheDefaults(t *testing.T) {
	cases := map[string]struct {
		cronJob        *builders.CronJobWrapper
		wantEnv        []corev1.EnvVar
		wantAnnotation string
	}{
		"parameters declared: the defaults": {
			cronJob:        withParameters(),
			wantEnv:        []corev1.EnvVar{{Name: "MODE", Value: "full"}, {Name: "DATE", Value: "2026-01-01"}},
			wantAnnotation: `{"DATE":"2026-01-01","MODE":"full"}`,
		},
		"no parameters: the template's env, no annotation": {
			cronJob: Hourly().Env("MODE", "from-template"),
			wantEnv: []corev1.EnvVar{{Name: "MODE", Value: "from-template"}},
		},
	}
	for caseName, tc := range cases {
		t.Run(caseName, func(t *testing.T) {
			t.Parallel()
			f := newRunFixture(t, IsTime, interceptor.Funcs{}, tc.cronJob.Obj())
			f.reconcileCronJob(t)
			job := f.job(t, JobName(TopOfTheHour))
			if diff := cmp.Diff(tc.wantEnv, job.Spec.Template.Spec.Containers[0].Env); diff != "" {
				t.Errorf("env of the scheduled run's Job (-want,+got):\n%s", diff)
			}
			annotation, ok := job.Annotations[cronjobv1.ParametersAnnotation]
			if annotation != tc.wantAnnotation || ok != (tc.wantAnnotation != "") {
				t.Errorf("annotation %s = %q (present %v), want %q", cronjobv1.ParametersAnnotation, annotation, ok, tc.wantAnnotation)
			}
		})
	}
}
