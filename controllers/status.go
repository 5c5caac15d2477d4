package controllers

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// setReady sets the Ready condition; lastTransitionTime moves only when the status changes. Call it once
// per reconcile, with the outcome, so that an unchanged outcome writes nothing.
func setReady(cj *cronjobv1.CronJob, status metav1.ConditionStatus, reason, message string, now time.Time) {
	meta.SetStatusCondition(&cj.Status.Conditions, metav1.Condition{
		Type:               cronjobv1.ConditionReady,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: cj.Generation,
		LastTransitionTime: metav1.NewTime(now),
	})
}

// observeSchedule records in status.observedSchedule the schedule, time zone and suspend state in force,
// and since when: the first time, the last scheduled time (or the creation time if it never ran), so that
// nothing changes for a CronJob the controller sees for the first time; `now` whenever one of them changed
// since the last reconcile.
func observeSchedule(cj *cronjobv1.CronJob, now time.Time) {
	cur := cronjobv1.ObservedSchedule{
		Schedule:  cj.Spec.Schedule,
		TimeZone:  ptr.Deref(cj.Spec.TimeZone, ""),
		Suspended: ptr.Deref(cj.Spec.Suspend, false),
	}
	switch obs := cj.Status.ObservedSchedule; {
	case obs == nil:
		// First observation: the schedule has been in force since runs are counted from.
		cur.Since = cj.CreationTimestamp
		if cj.Status.LastScheduleTime != nil {
			cur.Since = *cj.Status.LastScheduleTime
		}
	case obs.Schedule == cur.Schedule && obs.TimeZone == cur.TimeZone && obs.Suspended == cur.Suspended:
		return
	default:
		cur.Since = metav1.NewTime(now)
	}
	cj.Status.ObservedSchedule = &cur
}

// earliestTime is where the search for unmet scheduled times starts: the last scheduled time (or the
// CronJob's creation time if it never ran), or the time the current schedule was first observed if that is
// later (see observeSchedule). status.lastScheduleTime is the record of what ran; it is never rebuilt from
// the Jobs that still exist.
func earliestTime(cj *cronjobv1.CronJob) time.Time {
	t := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		t = cj.Status.LastScheduleTime.Time
	}
	if obs := cj.Status.ObservedSchedule; obs != nil && obs.Since.After(t) {
		t = obs.Since.Time
	}
	return t
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
