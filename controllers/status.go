package controllers

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// setScheduleValid sets the ScheduleValid condition. reason is cronjobv1.ReasonValidSchedule for a True
// condition, or the reason of the scheduleError; lastTransitionTime only moves when the status changes.
func setScheduleValid(cj *cronjobv1.CronJob, status metav1.ConditionStatus, reason, message string, now metav1.Time) {
	cond := metav1.Condition{
		Type:               cronjobv1.ConditionScheduleValid,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: cj.Generation,
		LastTransitionTime: now,
	}
	meta.SetStatusCondition(&cj.Status.Conditions, cond)
}

// earliestTime is where the search for unmet scheduled times starts: the last scheduled time, or the
// CronJob's creation time if it never ran. status.lastScheduleTime is the record of what ran; it is never
// rebuilt from the Jobs that still exist.
func earliestTime(cj *cronjobv1.CronJob) metav1.Time {
	if cj.Status.LastScheduleTime != nil {
		return *cj.Status.LastScheduleTime
	}
	return cj.CreationTimestamp
}

// laterTime returns the later of a and b; nil counts as the earliest.
func laterTime(a, b *metav1.Time) *metav1.Time {
	switch {
	case b == nil:
		return a
	case a == nil || b.After(a.Time):
		return b.DeepCopy()
	default:
		return a
	}
}
