package cronjob

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// The dead-man's switch (README "Dead-man's switch"): spec.successDeadlineSeconds and the condition
// Healthy. batch/v1 has neither; its nearest signal is an alert on lastSuccessfulTime.

// healthReference is the instant the dead-man's switch counts from, and what it is:
//   - paused after failures (spec.suspend with the paused-at annotation): the last success, else the
//     CronJob's creation. The pause is the controller's, not a user's: the count goes on through it;
//   - otherwise the later of the last success and status.observedSchedule.since, the instant the schedule,
//     time zone and suspend state in force took effect (creation, the last edit of one of them, or a
//     resume): a run cannot have succeeded under a schedule before it was in force, so an edit or a resume
//     gives the CronJob a full deadline again.
func healthReference(cj *cronjobv1.CronJob) (time.Time, string) {
	last := cj.Status.LastSuccessfulTime
	if paused(cj) || cj.Status.ObservedSchedule == nil {
		if last != nil {
			return last.Time, "last success"
		}
		return cj.CreationTimestamp.Time, "creation"
	}
	ref, what := cj.Status.ObservedSchedule.Since.Time, "scheduling since"
	// A planned pause that has ended gives a full deadline too, as a resume does.
	if u := cj.Spec.SuspendUntil; u != nil && u.After(ref) {
		ref, what = u.Time, "end of spec.suspendUntil"
	}
	if w := cj.Spec.ActiveWindow; w != nil && w.NotBefore != nil && w.NotBefore.After(ref) {
		ref, what = w.NotBefore.Time, "start of spec.activeWindow"
	}
	if last != nil && !last.Time.Before(ref) {
		return last.Time, "last success"
	}
	return ref, what
}

// plannedPause says why no run is expected now although the CronJob is not suspended: spec.suspendUntil
// is ahead, or now is outside spec.activeWindow; "" otherwise. The dead-man's switch waits through it.
func plannedPause(cj *cronjobv1.CronJob, now time.Time) string {
	if u := cj.Spec.SuspendUntil; u != nil && now.Before(u.Time) {
		return fmt.Sprintf("spec.suspendUntil is %s: the dead-man's switch waits, and counts from then", u.UTC().Format(time.RFC3339))
	}
	w := cj.Spec.ActiveWindow
	switch {
	case w == nil:
	case w.NotBefore != nil && now.Before(w.NotBefore.Time):
		return fmt.Sprintf("spec.activeWindow opens at %s: the dead-man's switch waits, and counts from then", w.NotBefore.UTC().Format(time.RFC3339))
	case w.NotAfter != nil && now.After(w.NotAfter.Time):
		return fmt.Sprintf("spec.activeWindow ended at %s: no run is expected, the dead-man's switch is off", w.NotAfter.UTC().Format(time.RFC3339))
	}
	return ""
}

// setHealthy sets the condition Healthy when spec.successDeadlineSeconds is set (and removes it when not):
//   - suspended by a user (not paused after failures), before spec.suspendUntil, or outside
//     spec.activeWindow (plannedPause): True, reason Suspended; the switch waits (and after the window, is
//     off);
//   - reference (healthReference) plus the deadline still ahead: True, SucceededRecently, and the
//     requeue wakes at that instant (wake);
//   - else False, NoRecentSuccess, with one Warning event per reference instant (a new success, edit or
//     resume may report it again, a repeated reconcile not).
//
// lastTransitionTime moves only when the status changes (meta.SetStatusCondition).
func (s *syncer) setHealthy() (wake time.Time) {
	cj := s.cj
	if cj.Spec.SuccessDeadlineSeconds == nil {
		meta.RemoveStatusCondition(&cj.Status.Conditions, cronjobv1.ConditionHealthy)
		return time.Time{}
	}
	cond := metav1.Condition{
		Type: cronjobv1.ConditionHealthy, ObservedGeneration: cj.Generation, LastTransitionTime: metav1.NewTime(s.now),
	}
	deadline := time.Duration(*cj.Spec.SuccessDeadlineSeconds) * time.Second
	ref, what := healthReference(cj)
	due := ref.Add(deadline)
	pause := plannedPause(cj, s.now)
	switch {
	case ptr.Deref(cj.Spec.Suspend, false) && !paused(cj):
		cond.Status, cond.Reason = metav1.ConditionTrue, cronjobv1.ReasonHealthSuspended
		cond.Message = "spec.suspend is true: the dead-man's switch waits, and counts from the resume"
	case pause != "":
		cond.Status, cond.Reason = metav1.ConditionTrue, cronjobv1.ReasonHealthSuspended
		cond.Message = pause
	case s.now.Before(due):
		cond.Status, cond.Reason = metav1.ConditionTrue, cronjobv1.ReasonSucceededRecently
		cond.Message = fmt.Sprintf("successDeadlineSeconds %d: counting from the %s at %s; due by %s",
			*cj.Spec.SuccessDeadlineSeconds, what, ref.UTC().Format(time.RFC3339), due.UTC().Format(time.RFC3339))
		wake = due
	default:
		cond.Status, cond.Reason = metav1.ConditionFalse, cronjobv1.ReasonNoRecentSuccess
		cond.Message = fmt.Sprintf("No run succeeded within successDeadlineSeconds %d: counting from the %s at %s, due by %s",
			*cj.Spec.SuccessDeadlineSeconds, what, ref.UTC().Format(time.RFC3339), due.UTC().Format(time.RFC3339))
		s.warnOnce(cronjobv1.ReasonNoRecentSuccess, slotCause(ref), "Health", "%s", cond.Message)
	}
	meta.SetStatusCondition(&cj.Status.Conditions, cond)
	return wake
}
