package jobs_test

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// TestJobFailedTime pins lastFailureTime's source: the time the Job controller marked the Job Failed, not
// the earlier FailureTarget condition it sets first (the builders give both the same time, as a fast Job
// controller does; here they differ).
func TestJobFailedTime(t *testing.T) {
	cond := func(typ batchv1.JobConditionType, status corev1.ConditionStatus, at time.Time) batchv1.JobCondition {
		return batchv1.JobCondition{Type: typ, Status: status, LastTransitionTime: metav1.NewTime(at)}
	}
	cases := map[string]struct {
		conditions []batchv1.JobCondition
		want       *metav1.Time
	}{
		"failure targeted at 10:05, marked Failed at 10:07: 10:07": {
			conditions: []batchv1.JobCondition{cond(batchv1.JobFailureTarget, corev1.ConditionTrue, HM(10, 5)),
				cond(batchv1.JobFailed, corev1.ConditionTrue, HM(10, 7))},
			want: TimePtr(HM(10, 7)),
		},
		"a Failed condition that is False: not failed": {
			conditions: []batchv1.JobCondition{cond(batchv1.JobFailed, corev1.ConditionFalse, HM(10, 7))},
		},
		"failure targeted only: not failed yet": {
			conditions: []batchv1.JobCondition{cond(batchv1.JobFailureTarget, corev1.ConditionTrue, HM(10, 5))},
		},
		"no conditions: not failed": {},
		"completed: not failed": {
			conditions: []batchv1.JobCondition{cond(batchv1.JobComplete, corev1.ConditionTrue, HM(10, 7))},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := builders.MakeJob("hourly-1", Namespace).Obj()
			job.Status.Conditions = tc.conditions
			got := jobs.FailedTime(job)
			if (got == nil) != (tc.want == nil) || (got != nil && !got.Equal(tc.want)) {
				t.Errorf("FailedTime = %v, want %v", got, tc.want)
			}
		})
	}
}
