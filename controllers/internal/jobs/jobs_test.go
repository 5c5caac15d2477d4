package jobs_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

func TestName(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		cronJob   string
		scheduled time.Time
		want      string
	}{
		// 2026-03-02T10:00:00Z is 1,772,445,600 s, 29,540,760 min after the epoch.
		"10:00 UTC is its Unix minute": {cronJob: "hourly", scheduled: TopOfTheHour, want: "hourly-29540760"},
		"the same instant in another zone: the same name": {
			cronJob: "hourly", scheduled: TopOfTheHour.In(berlin), want: "hourly-29540760",
		},
		"a minute later: the next minute":     {cronJob: "hourly", scheduled: MinLate, want: "hourly-29540761"},
		"seconds into the minute: the minute": {cronJob: "hourly", scheduled: IsTime, want: "hourly-29540760"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, jobs.Name(tc.cronJob, tc.scheduled)); diff != "" {
				t.Errorf("Name (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestRunName(t *testing.T) {
	longName := strings.Repeat("c", cronjobv1.MaxNameLength)
	cases := map[string]struct {
		cronJob string
		runUID  types.UID
		want    string
	}{
		// The digits are the low 36 bits of FNV-1a 64 of the UID, so the name never changes across releases.
		"a run of hourly: m and 9 hex digits of its UID's hash": {
			cronJob: "hourly", runUID: "run-uid", want: "hourly-m51c33b18d",
		},
		"another run of hourly: other digits": {
			cronJob: "hourly", runUID: "run-uid-2", want: "hourly-mabe083ad6",
		},
		"a CronJob name of the longest allowed length: 63 characters, the job-name label's limit": {
			cronJob: longName, runUID: "run-uid", want: longName + "-m51c33b18d",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := jobs.RunName(tc.cronJob, tc.runUID)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("RunName (-want,+got):\n%s", diff)
			}
			if len(got) > 63 {
				t.Errorf("RunName = %q has %d characters, more than 63", got, len(got))
			}
			if again := jobs.RunName(tc.cronJob, tc.runUID); again != got {
				t.Errorf("RunName is not deterministic: %q, then %q", got, again)
			}
		})
	}
}

func TestNew(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	ownerRef := func(name string, uid types.UID) []metav1.OwnerReference {
		return []metav1.OwnerReference{{
			APIVersion: cronjobv1.GroupVersion.String(), Kind: "CronJob", Name: name, UID: uid,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}}
	}
	cases := map[string]struct {
		// spec
		cronJob *builders.CronJobWrapper
		// environment
		scheduled time.Time
		loc       *time.Location
		// expectations
		want metav1.ObjectMeta
	}{
		"a template with labels and annotations: copied, with the scheduled-at annotation and the trigger label": {
			cronJob:   Hourly().JobAnnotation("team", "batch"),
			scheduled: TopOfTheHour, loc: time.UTC,
			want: metav1.ObjectMeta{
				Name: "hourly-29540760", Namespace: Namespace,
				Labels: map[string]string{"app": "hourly", cronjobv1.TriggerLabel: cronjobv1.TriggerSchedule},
				Annotations: map[string]string{
					"team": "batch", cronjobv1.ScheduledAtAnnotation: "2026-03-02T10:00:00Z", cronjobv1.UpstreamScheduledTimestampAnnotation: "2026-03-02T10:00:00Z", cronjobv1.CreatedAtAnnotation: createdAt,
				},
				OwnerReferences: ownerRef("hourly", "cj-uid"),
			},
		},
		"a template without labels or annotations: the controller's own only": {
			cronJob:   builders.MakeCronJob("bare", Namespace).UID("bare-uid"),
			scheduled: TopOfTheHour, loc: time.UTC,
			want: metav1.ObjectMeta{
				Name: "bare-29540760", Namespace: Namespace,
				Labels:          map[string]string{cronjobv1.TriggerLabel: cronjobv1.TriggerSchedule},
				Annotations:     map[string]string{cronjobv1.ScheduledAtAnnotation: "2026-03-02T10:00:00Z", cronjobv1.UpstreamScheduledTimestampAnnotation: "2026-03-02T10:00:00Z", cronjobv1.CreatedAtAnnotation: createdAt},
				OwnerReferences: ownerRef("bare", "bare-uid"),
			},
		},
		"a template that sets our reserved keys (admitted before the CEL rule): dropped, the controller's own set": {
			cronJob: Hourly().
				JobLabel(cronjobv1.TriggerLabel, cronjobv1.TriggerManual).
				JobLabel("batch.cronjob-operator.dev/other", "forged").
				JobLabel("lifecycle.cronjob-operator.dev/run-for", "5s").
				JobAnnotation(cronjobv1.CronJobRunAnnotation, "someone-elses-run").
				JobAnnotation(cronjobv1.ScheduledAtAnnotation, "1999-01-01T00:00:00Z").
				JobAnnotation("team", "batch"),
			scheduled: TopOfTheHour, loc: time.UTC,
			want: metav1.ObjectMeta{
				Name: "hourly-29540760", Namespace: Namespace,
				Labels: map[string]string{
					"app": "hourly", "lifecycle.cronjob-operator.dev/run-for": "5s",
					cronjobv1.TriggerLabel: cronjobv1.TriggerSchedule,
				},
				Annotations: map[string]string{
					"team": "batch", cronjobv1.ScheduledAtAnnotation: "2026-03-02T10:00:00Z", cronjobv1.UpstreamScheduledTimestampAnnotation: "2026-03-02T10:00:00Z", cronjobv1.CreatedAtAnnotation: createdAt,
				},
				OwnerReferences: ownerRef("hourly", "cj-uid"),
			},
		},
		"a template whose only keys are reserved: the controller's own only": {
			cronJob: builders.MakeCronJob("bare", Namespace).UID("bare-uid").
				JobAnnotation(cronjobv1.CronJobRunAnnotation, "someone-elses-run"),
			scheduled: TopOfTheHour, loc: time.UTC,
			want: metav1.ObjectMeta{
				Name: "bare-29540760", Namespace: Namespace,
				Labels:          map[string]string{cronjobv1.TriggerLabel: cronjobv1.TriggerSchedule},
				Annotations:     map[string]string{cronjobv1.ScheduledAtAnnotation: "2026-03-02T10:00:00Z", cronjobv1.UpstreamScheduledTimestampAnnotation: "2026-03-02T10:00:00Z", cronjobv1.CreatedAtAnnotation: createdAt},
				OwnerReferences: ownerRef("bare", "bare-uid"),
			},
		},
		"a CronJob in Berlin: the scheduled time annotated in Berlin's offset": {
			cronJob:   Hourly().TimeZone("Europe/Berlin"),
			scheduled: TopOfTheHour, loc: berlin,
			want: metav1.ObjectMeta{
				Name: "hourly-29540760", Namespace: Namespace,
				Labels:          map[string]string{"app": "hourly", cronjobv1.TriggerLabel: cronjobv1.TriggerSchedule},
				Annotations:     map[string]string{cronjobv1.ScheduledAtAnnotation: "2026-03-02T11:00:00+01:00", cronjobv1.UpstreamScheduledTimestampAnnotation: "2026-03-02T11:00:00+01:00", cronjobv1.CreatedAtAnnotation: createdAt},
				OwnerReferences: ownerRef("hourly", "cj-uid"),
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cj := tc.cronJob.Obj()
			job := jobs.New(cj, tc.scheduled, tc.loc, created)
			if diff := cmp.Diff(tc.want, job.ObjectMeta); diff != "" {
				t.Errorf("Job metadata (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(cj.Spec.JobTemplate.Spec, job.Spec); diff != "" {
				t.Errorf("Job spec, want the template's (-want,+got):\n%s", diff)
			}

			// The Job owns its maps and spec: changing them leaves the CronJob's template as it was.
			template := cj.Spec.JobTemplate.DeepCopy()
			job.Labels["changed"] = "yes"
			job.Annotations["changed"] = "yes"
			job.Spec.Template.Spec.Containers[0].Image = "changed"
			if diff := cmp.Diff(template, &cj.Spec.JobTemplate); diff != "" {
				t.Errorf("changing the Job changed the CronJob's template (-before,+after):\n%s", diff)
			}
		})
	}
}

// created is when the controller built the Jobs of TestNew: a second and a quarter after their scheduled
// time, in Berlin, and createdAt its annotation (UTC, nanoseconds).
var (
	created   = TopOfTheHour.Add(1250 * time.Millisecond).In(time.FixedZone("CET", 3600))
	createdAt = "2026-03-02T10:00:01.25Z"
)

// condition is a Job condition of the given type and status, at 10:07.
func condition(typ batchv1.JobConditionType, status corev1.ConditionStatus) batchv1.JobCondition {
	return batchv1.JobCondition{Type: typ, Status: status, LastTransitionTime: metav1.NewTime(HM(10, 7))}
}

func TestFinished(t *testing.T) {
	type finished struct {
		Done bool
		How  batchv1.JobConditionType
	}
	cases := map[string]struct {
		// status
		conditions []batchv1.JobCondition
		// expectations
		want finished
	}{
		"no conditions: running": {},
		"Complete True: finished, complete": {
			conditions: []batchv1.JobCondition{condition(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue),
				condition(batchv1.JobComplete, corev1.ConditionTrue)},
			want: finished{Done: true, How: batchv1.JobComplete},
		},
		"Failed True: finished, failed": {
			conditions: []batchv1.JobCondition{condition(batchv1.JobFailureTarget, corev1.ConditionTrue),
				condition(batchv1.JobFailed, corev1.ConditionTrue)},
			want: finished{Done: true, How: batchv1.JobFailed},
		},
		"FailureTarget only: still running until the Job controller marks it Failed": {
			conditions: []batchv1.JobCondition{condition(batchv1.JobFailureTarget, corev1.ConditionTrue)},
		},
		"SuccessCriteriaMet only: still running until the Job controller marks it Complete": {
			conditions: []batchv1.JobCondition{condition(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue)},
		},
		"Complete False: running": {
			conditions: []batchv1.JobCondition{condition(batchv1.JobComplete, corev1.ConditionFalse)},
		},
		"Failed False: running": {
			conditions: []batchv1.JobCondition{condition(batchv1.JobFailed, corev1.ConditionFalse)},
		},
		"suspended: running": {
			conditions: []batchv1.JobCondition{condition(batchv1.JobSuspended, corev1.ConditionTrue)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := RunningJob(TopOfTheHour)
			job.Status.Conditions = tc.conditions
			var got finished
			got.Done, got.How = jobs.Finished(job)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Finished (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestStartTime(t *testing.T) {
	creation := metav1.NewTime(HM(10, 3))
	cases := map[string]struct {
		annotation string // "" leaves it unset
		want       time.Time
	}{
		"the created-at annotation, to the nanosecond":             {annotation: "2026-03-02T10:00:01.25Z", want: TopOfTheHour.Add(1250 * time.Millisecond)},
		"no annotation: the creationTimestamp":                     {want: creation.Time},
		"an annotation that does not parse: the creationTimestamp": {annotation: "yesterday", want: creation.Time},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: creation}}
			if tc.annotation != "" {
				job.Annotations = map[string]string{cronjobv1.CreatedAtAnnotation: tc.annotation}
			}
			if got := jobs.StartTime(job); !got.Equal(tc.want) {
				t.Errorf("StartTime = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPodsStarted(t *testing.T) {
	one := int32(1)
	zero := int32(0)
	cases := map[string]struct {
		status batchv1.JobStatus
		want   bool
	}{
		"a new Job, no status":                    {want: false},
		"a Pod active but not ready (pulling)":    {status: batchv1.JobStatus{Active: 1, Ready: &zero}, want: false},
		"a suspended Job":                         {status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{condition(batchv1.JobSuspended, corev1.ConditionTrue)}}, want: false},
		"a ready Pod":                             {status: batchv1.JobStatus{Active: 1, Ready: &one}, want: true},
		"a Pod that succeeded":                    {status: batchv1.JobStatus{Succeeded: 1}, want: true},
		"a Pod that failed, the next one pending": {status: batchv1.JobStatus{Active: 1, Ready: &zero, Failed: 1}, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := jobs.PodsStarted(&batchv1.Job{Status: tc.status}); got != tc.want {
				t.Errorf("PodsStarted = %t, want %t", got, tc.want)
			}
		})
	}
}
