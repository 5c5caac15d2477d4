package cronjob

import (
	"context"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/concurrency"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// serveQueue acts on the queue part of the decision (decideQueue), before the run that is due: the
// dropped runs leave status.queued (QueuedRunExpired, runs_missed_total reason queue_expired), and the head,
// if there is room for it, starts: a Job of ours for it that exists already (a create whose status write
// was lost) is adopted. Either way it leaves the queue and Outcome.Dequeued is its scheduled time. One
// queued run starts per reconcile.
//
// failure, when not empty, says why the head could not start (a Job of someone else holds its name; it
// stays queued); err is an API error to retry.
func (s *syncer) serveQueue(ctx context.Context, d *decision) (failure string, err error) {
	if len(s.cj.Status.Queued) == 0 {
		return "", nil
	}
	s.drop(d.drops, d.loc)
	s.cj.Status.Queued = d.kept
	if d.head.IsZero() {
		return "", nil
	}
	due := s.out // the outcome describes the run due now; the queued one is Outcome.Dequeued
	// The run's trigger, for its entry: set before adoptOrBlocked, so an adopted Job's entry gets it too.
	s.trigger, s.adoptAs = cronjobv1.TriggeredByQueue, cronjobv1.TriggeredByQueue
	done, failure := s.adoptOrBlocked(ctx, d.head, d.loc)
	if !done {
		failure, err = s.createRun(ctx, d.head, d.loc)
	}
	switch s.out.Run {
	case RunCreated:
		s.r.Metrics.QueuedRunStarted()
		fallthrough
	case RunAdopted:
		s.cj.Status.Queued = d.kept[1:]
		if len(s.cj.Status.Queued) == 0 {
			s.cj.Status.Queued = nil
		}
		s.cj.Status.LastScheduleTime = laterTime(s.cj.Status.LastScheduleTime, ptr.To(metav1.NewTime(d.head)))
		due.Dequeued = d.head
	}
	due.Deleted = s.out.Deleted
	s.out = due
	return failure, err
}

// drop drops the queued runs, each for its reason (QueuedRunExpired).
func (s *syncer) drop(runs []droppedRun, loc *time.Location) {
	for _, run := range runs {
		s.event(corev1.EventTypeWarning, cronjobv1.ReasonQueuedRunExpired, "Schedule", "Dropped the queued run scheduled at %s: %s",
			run.scheduled.In(loc).Format(time.RFC3339), run.why)
		s.r.Metrics.RunsMissed(metrics.MissedQueueExpired, 1)
	}
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
		scheduled.In(loc).Format(time.RFC3339), len(s.cj.Status.Active), activeLimit(s.cj))
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

// activeLimit is how many Jobs of the CronJob may be active at once (concurrency.Limit); math.MaxInt32 without
// a limit.
func activeLimit(cj *cronjobv1.CronJob) int32 {
	if n, ok := concurrency.Limit(&cj.Spec); ok {
		return n
	}
	return math.MaxInt32
}
