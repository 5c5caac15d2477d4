package cronjobrun

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// Runs ended by a timeout (README "Manual runs": timeouts apply). The CronJob controller deletes the Job of
// a run past spec.runTimeoutSeconds or spec.startTimeoutSeconds and records it in the CronJob's
// status.recentRuns (TimedOut or NeverStarted). A run is otherwise deleted with its Job (owner reference,
// follow); a timed-out one stays, Failed with reason RunTimedOut or RunNeverStarted, for its
// ttlSecondsAfterFinished, so that `kubectl cjo run --wait` and a user see why.

// hasTimeouts reports whether the CronJob ends runs by a timeout.
func hasTimeouts(cj *cronjobv1.CronJob) bool {
	return cj != nil && (cj.Spec.RunTimeoutSeconds != nil || cj.Spec.StartTimeoutSeconds != nil)
}

// ownCronJobUnderTimeouts gives the run its CronJob as a second owner when the CronJob sets a timeout (ownJob
// does it with the Job's reference when the run starts; this covers a timeout set later), so that the
// garbage collector, which deletes a dependent only once all its owners are gone, does not delete
// the run with a timed-out Job before endedByTimeout records why. The run still goes with its CronJob, and
// follow deletes it when its Job goes for any other reason.
func (s *runSyncer) ownCronJobUnderTimeouts(ctx context.Context) error {
	cj, err := s.pass.cronJob(ctx, s.r.Client)
	if err != nil || !hasTimeouts(cj) {
		return err
	}
	return s.ownCronJob(ctx, cj)
}

// endedByTimeout handles a run whose Job is gone when the CronJob sets a timeout. done is false when the
// run is to be deleted with its Job as usual. It reads the CronJob's status.recentRuns entry of the Job:
//   - TimedOut or NeverStarted: the run becomes Failed (once: completionTime is the entry's end), reason
//     RunTimedOut or RunNeverStarted, with a Warning event, and is kept for its TTL;
//   - Running: the CronJob controller has not recorded the end yet; the run waits, untouched (that status
//     write changes status.active, which wakes the runs again: cronJobChange);
//   - any other result, or no entry: deleted as usual.
//
// A run already Failed for a timeout is kept for its TTL. The outcome comes from the CronJob's status on
// the API server, so a restart reaches the same one.
func (s *runSyncer) endedByTimeout(ctx context.Context) (done bool, res ctrl.Result, err error) {
	if c := readyCondition(s.run); finished(s.run) && c != nil &&
		(c.Reason == cronjobv1.ReasonRunTimedOut || c.Reason == cronjobv1.ReasonRunNeverStarted) {
		res, err = s.pruneAfterTTL(ctx)
		return true, res, err
	}
	cj, err := s.pass.cronJob(ctx, s.r.Client)
	if err != nil {
		return true, ctrl.Result{}, err
	}
	if !hasTimeouts(cj) || finished(s.run) {
		return false, ctrl.Result{}, nil
	}
	var entry *cronjobv1.RunRecord
	for i := range cj.Status.RecentRuns {
		if cj.Status.RecentRuns[i].JobName == s.run.Status.JobName {
			entry = &cj.Status.RecentRuns[i]
		}
	}
	switch {
	case entry == nil && !s.pastATimeout(cj):
		return false, ctrl.Result{}, nil
	case entry == nil || entry.Result == cronjobv1.RunResultRunning:
		// No entry while a timeout of the run has passed: the CronJob controller ended the Job in the
		// reconcile that first saw it, and its status write (a new recentRuns entry) is not in the cache yet.
		ctrl.LoggerFrom(ctx).V(1).Info("Job of the CronJobRun is gone; waiting for the CronJob to record how it ended", "job", s.run.Status.JobName)
		return true, ctrl.Result{}, nil
	case entry.Result != cronjobv1.RunResultTimedOut && entry.Result != cronjobv1.RunResultNeverStarted:
		return false, ctrl.Result{}, nil
	}
	reason, limit, what := cronjobv1.ReasonRunTimedOut, cj.Spec.RunTimeoutSeconds, "did not finish within runTimeoutSeconds"
	if entry.Result == cronjobv1.RunResultNeverStarted {
		reason, limit, what = cronjobv1.ReasonRunNeverStarted, cj.Spec.StartTimeoutSeconds, "had no Pod started within startTimeoutSeconds"
	}
	msg := fmt.Sprintf("Job %s %s %d; the CronJob controller deleted it", s.run.Status.JobName, what, ptr.Deref(limit, 0))
	s.run.Status.Phase = cronjobv1.RunFailed
	s.run.Status.CompletionTime = timeOr(entry.EndTime, s.now)
	s.setReady(metav1.ConditionFalse, reason, msg)
	s.event(corev1.EventTypeWarning, reason, "Timeout", "%s", msg)
	res, err = s.pruneAfterTTL(ctx)
	return true, res, err
}

// readyCondition returns the run's Ready condition, or nil.
func readyCondition(run *cronjobv1.CronJobRun) *metav1.Condition {
	for i := range run.Status.Conditions {
		if run.Status.Conditions[i].Type == cronjobv1.ConditionReady {
			return &run.Status.Conditions[i]
		}
	}
	return nil
}

// pastATimeout reports whether a timeout the CronJob sets has passed for the run's Job: its start
// (status.startTime) plus startTimeoutSeconds or runTimeoutSeconds is not after now.
func (s *runSyncer) pastATimeout(cj *cronjobv1.CronJob) bool {
	if s.run.Status.StartTime == nil {
		return false
	}
	for _, limit := range []*int64{cj.Spec.StartTimeoutSeconds, cj.Spec.RunTimeoutSeconds} {
		if limit != nil && !s.run.Status.StartTime.Add(time.Duration(*limit)*time.Second).After(s.now) {
			return true
		}
	}
	return false
}
