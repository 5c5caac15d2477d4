package cronjob

import (
	"context"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
)

// Run timeouts (README "Run timeouts"): spec.runTimeoutSeconds and spec.startTimeoutSeconds end a run
// whose Job has not finished, or none of whose Pods has started, that long after the run's start
// (jobs.StartTime: the Job's created-at annotation, written with the controller's clock). batch/v1 has
// neither; the Job's own activeDeadlineSeconds counts from the Job's start by the Job controller's clock,
// and leaves a suspended Job alone.

// runDeadline is when the run of job is ended, and how (RunResultTimedOut or RunResultNeverStarted), at
// the earliest of the two timeouts that apply; ok is false when none applies. The start timeout applies
// only while no Pod has started.
func runDeadline(spec *cronjobv1.CronJobSpec, job *batchv1.Job) (at time.Time, result cronjobv1.RunResult, ok bool) {
	start := jobs.StartTime(job)
	if !jobs.PodsStarted(job) {
		at, ok = after(start, spec.StartTimeoutSeconds)
		result = cronjobv1.RunResultNeverStarted
	}
	if run, set := after(start, spec.RunTimeoutSeconds); set && (!ok || run.Before(at)) {
		at, result, ok = run, cronjobv1.RunResultTimedOut, true
	}
	return at, result, ok
}

// after is start plus the timeout field's seconds; ok is false when the field is unset.
func after(start time.Time, seconds *int64) (time.Time, bool) {
	if seconds == nil {
		return time.Time{}, false
	}
	return start.Add(time.Duration(*seconds) * time.Second), true
}

// goneResult is how a run whose Job went missing ended, from its entry's start: TimedOut when past
// runTimeoutSeconds, NeverStarted when past startTimeoutSeconds only (the Job cannot tell any more
// whether a Pod started: a Job deleted by someone else after its start timeout counts as never started),
// else Deleted. It covers a failover between the controller's delete of a timed-out Job and the status
// write that records it: the next leader records the same result.
func goneResult(spec *cronjobv1.CronJobSpec, start, now time.Time) (cronjobv1.RunResult, string) {
	if at, ok := after(start, spec.RunTimeoutSeconds); ok && !now.Before(at) {
		return cronjobv1.RunResultTimedOut, cronjobv1.ReasonRunTimedOut
	}
	if at, ok := after(start, spec.StartTimeoutSeconds); ok && !now.Before(at) {
		return cronjobv1.RunResultNeverStarted, cronjobv1.ReasonRunNeverStarted
	}
	return cronjobv1.RunResultDeleted, cronjobv1.ReasonMissingJob
}

// endTimedOut ends every unfinished Job of the cache past its deadline (runDeadline) at now, exactly at
// the deadline and not a millisecond before, whatever the concurrency policy and also while the CronJob is
// suspended: the Job is deleted with background propagation (its Pods go; jobs_deleted_total reason
// timeout), a Warning event names it and the limit, and the run is recorded as failed (recentRuns
// TimedOut or NeverStarted, lastFailureTime now, the counters). It leaves status.active in this
// reconcile, and s.jobs, so the concurrency policy that follows sees it gone. It sets s.wakeAt to the earliest
// deadline still ahead.
func (s *syncer) endTimedOut(ctx context.Context) error {
	spec := &s.cj.Spec
	if spec.RunTimeoutSeconds == nil && spec.StartTimeoutSeconds == nil {
		return nil
	}
	kept := s.jobs[:0:0]
	defer func() { s.jobs = kept }()
	for i, job := range s.jobs {
		at, result, ok := runDeadline(spec, job)
		if finished, _ := jobs.Finished(job); finished || job.DeletionTimestamp != nil || !ok {
			kept = append(kept, job)
			continue
		}
		if s.now.Before(at) {
			s.wakeBy(at)
			kept = append(kept, job)
			continue
		}
		if err := s.deleteJob(ctx, job, metrics.DeletedTimeout); err != nil {
			kept = append(kept, s.jobs[i:]...)
			return err
		}
		jobs.RemoveActive(&s.cj.Status, job.UID)
		s.recordStart(job, "")
		reason, limit := cronjobv1.ReasonRunTimedOut, ptr.Deref(spec.RunTimeoutSeconds, 0)
		note := "Job %s did not finish within runTimeoutSeconds %d; deleted it"
		if result == cronjobv1.RunResultNeverStarted {
			reason, limit = cronjobv1.ReasonRunNeverStarted, ptr.Deref(spec.StartTimeoutSeconds, 0)
			note = "No Pod of job %s started within startTimeoutSeconds %d; deleted it"
		}
		s.event(corev1.EventTypeWarning, reason, "Timeout", note, job.Name, limit)
		s.endRun(job.Name, result, reason, s.now)
	}
	return nil
}

// wakeBy has the reconcile requeued at `at` (a run's deadline) if that is before the wakeup set so far.
func (s *syncer) wakeBy(at time.Time) {
	if s.wakeAt.IsZero() || at.Before(s.wakeAt) {
		s.wakeAt = at
	}
}
