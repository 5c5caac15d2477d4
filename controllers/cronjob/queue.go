package cronjob

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// serveQueue serves status.queued (concurrencyPolicy Enqueue), oldest first, before the run that is due:
//   - a queued run past startingDeadlineSeconds (counted from its scheduled time) is dropped
//     (QueuedRunExpired, runs_missed_total reason queue_expired);
//   - under any other policy the queue is dropped the same way: the runs were queued under Enqueue only;
//   - so is a queued run due at or before status.observedSchedule.since: the schedule or time zone was
//     edited, or the CronJob suspended and resumed, after it was due ("no surprise runs");
//   - the oldest queued run starts when fewer than maxActiveJobs Jobs are active, one per reconcile; a Job
//     of ours for it that exists already (a create whose status write was lost) is adopted. Either way it
//     leaves the queue and Outcome.Dequeued is its scheduled time.
//
// failure, when not empty, says why the oldest run could not start (a Job of someone else holds its name;
// it stays queued); err is an API error to retry.
func (s *syncer) serveQueue(ctx context.Context, loc *time.Location) (failure string, err error) {
	if len(s.cj.Status.Queued) == 0 {
		return "", nil
	}
	var kept []cronjobv1.QueuedRun
	for _, run := range s.cj.Status.Queued {
		switch {
		case s.cj.Spec.ConcurrencyPolicy != cronjobv1.EnqueueConcurrent:
			s.dropQueued(run.ScheduledTime.Time, loc, "spec.concurrencyPolicy is "+string(s.cj.Spec.ConcurrencyPolicy)+", no longer Enqueue")
		case s.cj.Status.ObservedSchedule != nil && !run.ScheduledTime.After(s.cj.Status.ObservedSchedule.Since.Time):
			s.dropQueued(run.ScheduledTime.Time, loc, "the schedule or time zone changed, or the CronJob was resumed, after it was due")
		case schedule.PastDeadline(run.ScheduledTime.Time, s.now, s.cj.Spec.StartingDeadlineSeconds):
			s.dropQueued(run.ScheduledTime.Time, loc, "past startingDeadlineSeconds")
		default:
			kept = append(kept, run)
		}
	}
	s.cj.Status.Queued = kept
	if len(kept) == 0 {
		return "", nil
	}
	head := kept[0].ScheduledTime.Time
	if !s.knowsJob(jobs.Name(s.cj.Name, head)) && int32(len(s.cj.Status.Active)) >= maxActive(s.cj) {
		return "", nil // no room, and no Job of its own to adopt
	}
	due := s.out // the outcome describes the run due now; the queued one is Outcome.Dequeued
	done, failure := s.adoptOrBlocked(ctx, head, loc)
	if !done {
		failure, err = s.createRun(ctx, head, loc)
	}
	switch s.out.Run {
	case RunCreated:
		s.r.Metrics.QueuedRunStarted()
		fallthrough
	case RunAdopted:
		s.cj.Status.Queued = kept[1:]
		if len(s.cj.Status.Queued) == 0 {
			s.cj.Status.Queued = nil
		}
		s.cj.Status.LastScheduleTime = laterTime(s.cj.Status.LastScheduleTime, ptr.To(metav1.NewTime(head)))
		due.Dequeued = head
	}
	due.Deleted = s.out.Deleted
	s.out = due
	return failure, err
}

// dropQueue drops every queued run for why.
func (s *syncer) dropQueue(loc *time.Location, why string) {
	for _, run := range s.cj.Status.Queued {
		s.dropQueued(run.ScheduledTime.Time, loc, why)
	}
	s.cj.Status.Queued = nil
}

// dropQueued drops the queued run scheduled at `scheduled` for why (QueuedRunExpired).
func (s *syncer) dropQueued(scheduled time.Time, loc *time.Location, why string) {
	s.event(corev1.EventTypeWarning, cronjobv1.ReasonQueuedRunExpired, "Schedule", "Dropped the queued run scheduled at %s: %s",
		scheduled.In(loc).Format(time.RFC3339), why)
	s.r.Metrics.RunsMissed(metrics.MissedQueueExpired, 1)
}

// enqueue queues the run scheduled at `scheduled` in status.queued (RunQueued), or, when the queue holds
// spec.maxQueuedRuns runs already, skips it (RunSkipped; QueueFull and runs_missed_total reason queue_full,
// once per run): like a run that Forbid skips, it is retried while within startingDeadlineSeconds, and a
// later scheduled time supersedes it.
func (s *syncer) enqueue(scheduled time.Time, loc *time.Location) {
	limit := int(ptr.Deref(s.cj.Spec.MaxQueuedRuns, cronjobv1.DefaultMaxQueuedRuns))
	if len(s.cj.Status.Queued) >= limit {
		s.out.Run = RunSkipped
		if s.warnOnce(cronjobv1.ReasonQueueFull, slotCause(scheduled), "Schedule",
			"Not queueing the run scheduled at %s: %d runs are queued, spec.maxQueuedRuns", scheduled.In(loc).Format(time.RFC3339), limit) {
			s.r.Metrics.RunsMissed(metrics.MissedQueueFull, 1)
		}
		return
	}
	s.out.Run = RunQueued
	s.cj.Status.Queued = append(s.cj.Status.Queued, cronjobv1.QueuedRun{
		ScheduledTime: metav1.NewTime(scheduled), Since: metav1.NewTime(s.now)})
	s.event(corev1.EventTypeNormal, cronjobv1.ReasonQueued, "Schedule", "Queued the run scheduled at %s: %d jobs active, spec.maxActiveJobs %d",
		scheduled.In(loc).Format(time.RFC3339), len(s.cj.Status.Active), maxActive(s.cj))
}

// queueExpiry is the instant after which the oldest queued run (status.queued is oldest first) is past
// startingDeadlineSeconds (its scheduled time plus the deadline; see schedule.PastDeadline); ok is false for an
// empty queue or no deadline.
func queueExpiry(queued []cronjobv1.QueuedRun, deadlineSeconds *int64) (time.Time, bool) {
	deadline, ok := schedule.StartingDeadline(deadlineSeconds)
	if !ok || len(queued) == 0 {
		return time.Time{}, false
	}
	return queued[0].ScheduledTime.Add(deadline), true
}
