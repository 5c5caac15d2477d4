package cronjob

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
// and since when. editedAt is when the API server recorded the last edit of those fields (see
// scheduleEditTime), or zero when unknown or not needed:
//   - the first time, since is the last scheduled time (or the creation time if it never ran), so that
//     nothing changes for a CronJob the controller sees for the first time; or editedAt if that is later,
//     so that a CronJob edited before the controller ever saw it (created while the controller was down)
//     gets no run that was due before the edit;
//   - when one of them changed since the last reconcile, since is editedAt: the change took effect when it
//     was made, not when the controller saw it, so after a downtime the most recent run due after the edit
//     starts and none due before it. editedAt is kept within [the previous since, now]; zero means now;
//   - when only a calendar changed (created, edited or deleted; the calendars' half of plan), since is now.
//
// An edit time later than now (the API server's clock ahead of ours) counts as now.
func observeSchedule(cj *cronjobv1.CronJob, now, editedAt time.Time, plan string) {
	cur := cronjobv1.ObservedSchedule{
		Schedule:  cj.Spec.Schedule,
		TimeZone:  ptr.Deref(cj.Spec.TimeZone, ""),
		Suspended: ptr.Deref(cj.Spec.Suspend, false),
		Plan:      plan,
	}
	if editedAt.After(now) {
		editedAt = now
	}
	obs := cj.Status.ObservedSchedule
	if obs == nil {
		// First observation: the schedule has been in force since runs are counted from, or since its edit.
		cur.Since = cj.CreationTimestamp
		if cj.Status.LastScheduleTime != nil {
			cur.Since = *cj.Status.LastScheduleTime
		}
		if editedAt.After(cur.Since.Time) {
			cur.Since = metav1.NewTime(editedAt)
		}
		cj.Status.ObservedSchedule = &cur
		return
	}
	switch {
	case !scheduleChanged(cj, plan):
		return
	case editedAt.IsZero(), calendarsOnlyChanged(obs, &cur):
		// A calendar's change is not an edit of the CronJob: the API server timed none, and the CronJob's
		// own edit times are older than it. It takes effect when the controller sees it, so that a time the
		// calendar no longer excludes, already past, does not start.
		cur.Since = metav1.NewTime(now)
	case editedAt.Before(obs.Since.Time):
		cur.Since = obs.Since
	default:
		cur.Since = metav1.NewTime(editedAt)
	}
	cj.Status.ObservedSchedule = &cur
}

// calendarsOnlyChanged reports whether of what observeSchedule records only the calendars' half of the
// plan changed (calendarsOnly).
func calendarsOnlyChanged(obs, cur *cronjobv1.ObservedSchedule) bool {
	return obs.Schedule == cur.Schedule && obs.TimeZone == cur.TimeZone && obs.Suspended == cur.Suspended &&
		calendarsOnly(obs.Plan, cur.Plan)
}

// scheduleChanged reports whether spec.schedule, spec.timeZone, spec.suspend or the plan (planDigest)
// differ from what status.observedSchedule records; false when nothing was observed yet.
func scheduleChanged(cj *cronjobv1.CronJob, plan string) bool {
	obs := cj.Status.ObservedSchedule
	return obs != nil && (obs.Schedule != cj.Spec.Schedule || obs.TimeZone != ptr.Deref(cj.Spec.TimeZone, "") ||
		obs.Suspended != ptr.Deref(cj.Spec.Suspend, false) || obs.Plan != plan)
}

// laterTime returns the later of a and b; nil counts as the earliest.
func laterTime(a, b *metav1.Time) *metav1.Time {
	if b == nil {
		return a
	}
	if a == nil || b.After(a.Time) {
		return b.DeepCopy()
	}
	return a
}
