package cronjob

import (
	"errors"
	"time"

	cron "github.com/netresearch/go-cron"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/concurrency"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// Why did a run start, or not? decide answers it, from the CronJob alone: its spec, its status once the
// reconcile has followed its Jobs and observed the schedule, the names of its Jobs, and now. It reads no
// clock and no API server, and changes nothing; the reconcile acts on its decision (sync.go), in the
// order of the decision's fields. One thing it cannot see: a Job of someone else that holds the name of
// the run's Job. The reconcile checks that before it acts (RunBlocked), whatever the verdict.

// verdict is what becomes of the run that is due.
type verdict string

const (
	// verdictNone: no run is due.
	verdictNone verdict = ""
	// verdictMissed: the most recent scheduled time is past startingDeadlineSeconds and never starts
	// (MissSchedule, runs_missed_total past_deadline).
	verdictMissed verdict = "Missed"
	// verdictAdopt: a Job of this CronJob for the run exists already (its create succeeded and the status
	// write was lost, or the cache is behind): it is the run. Before the policy, so Forbid does not skip a
	// run because of its own Job, nor Replace replace it.
	verdictAdopt verdict = "Adopt"
	// verdictStart: the policy admits the run: its Job is created.
	verdictStart verdict = "Start"
	// verdictReplace: concurrencyPolicy Replace: the active Jobs are deleted, then the run's Job created.
	verdictReplace verdict = "Replace"
	// verdictSkip: Forbid with a Job active, or Allow with spec.maxActiveJobs active (JobAlreadyActive);
	// retried while within startingDeadlineSeconds, as in batch/v1.
	verdictSkip verdict = "Skip"
	// verdictEnqueue: Enqueue with spec.maxActiveJobs active or older runs queued: the run joins
	// status.queued, or is skipped when spec.maxQueuedRuns are queued (QueueFull).
	verdictEnqueue verdict = "Enqueue"
)

// decision is what decide says about one reconcile of a CronJob. When scheduleErr is set, or suspended,
// nothing after them is decided.
type decision struct {
	// scheduleErr: spec.schedule or spec.timeZone is wrong; no run starts until the spec changes.
	scheduleErr *schedule.Error
	// suspended: spec.suspend is true; no run starts, and every queued run is dropped (drops).
	suspended bool
	// sched and loc are the parsed schedule and its time zone; plan is what the schedule says at now.
	sched cron.Schedule
	loc   *time.Location
	plan  schedule.Plan
	// neverFires: the schedule has no time in the next five years and nothing is queued.
	neverFires bool
	// drops are the queued runs that leave status.queued without starting, oldest first, and kept the
	// ones that stay.
	drops []droppedRun
	kept  []cronjobv1.QueuedRun
	// head is the oldest queued run, to start now (or adopt) before the run due: zero when there is no
	// queue or no room for it.
	head time.Time
	// due is the run this reconcile acts on, and verdict what becomes of it: plan.Scheduled, or under
	// missedRunPolicy All the oldest of the last maxCatchUpRuns unmet runs; plan.Missed with verdictMissed.
	due     time.Time
	verdict verdict
	// skipped is the runs_missed_total reason of verdictSkip: forbid or max_active.
	skipped string
	// catchUp: missedRunPolicy All and more than one run unmet: one starts per reconcile, oldest first,
	// and dropped older ones are beyond maxCatchUpRuns (MissedRunsDropped). tooMany: missedRunPolicy
	// MostRecent and more than 100 unmet (TooManyMissedTimes); only due starts.
	catchUp bool
	dropped int
	tooMany bool
}

// droppedRun is a queued run that leaves the queue without starting (QueuedRunExpired), and why.
type droppedRun struct {
	scheduled time.Time
	why       string
}

// decide decides one reconcile of cj at now; owned are its Jobs (from the cache), cals the calendars of
// spec.calendars that exist, compiled. See the file comment.
func decide(cj *cronjobv1.CronJob, owned []*batchv1.Job, now time.Time, cals schedule.Calendars) decision {
	var d decision
	sched, loc, err := schedule.ForScheduler(cj, cals)
	if err != nil {
		if se, ok := errors.AsType[*schedule.Error](err); ok {
			d.scheduleErr = se
		} else {
			d.scheduleErr = &schedule.Error{Reason: cronjobv1.ReasonUnparseableSchedule, Message: err.Error()}
		}
		return d
	}
	d.sched, d.loc = sched, loc
	if ptr.Deref(cj.Spec.Suspend, false) {
		d.suspended = true
		for _, run := range cj.Status.Queued {
			d.drops = append(d.drops, droppedRun{run.ScheduledTime.Time, "spec.suspend is true"})
		}
		return d
	}
	earliest := schedule.EarliestTime(cj)
	d.plan = schedule.PlanRun(sched, earliest, now, cj.Spec.StartingDeadlineSeconds, delays(cj, sched, earliest))
	if d.plan.NextStart.IsZero() && d.plan.Scheduled.IsZero() && len(cj.Status.Queued) == 0 {
		d.neverFires = true
		return d
	}
	d.decideQueue(cj, owned, now)
	switch {
	case !d.plan.Scheduled.IsZero():
		d.decideDue(cj, owned, earliest)
	case !d.plan.Missed.IsZero():
		d.due, d.verdict = d.plan.Missed, verdictMissed
	}
	return d
}

// decideQueue sorts status.queued (concurrencyPolicy Enqueue), oldest first, into the runs it drops and
// those it keeps:
//   - under any policy but Enqueue every queued run is dropped: they were queued under Enqueue only;
//   - so is a run due at or before status.observedSchedule.since: the schedule or time zone was edited,
//     or the CronJob suspended and resumed, after it was due ("no surprise runs");
//   - so is a run past startingDeadlineSeconds, counted from its scheduled time.
//
// The oldest kept run is the head, to start now, when fewer than maxActiveJobs Jobs are active or its Job
// exists already (adopted).
func (d *decision) decideQueue(cj *cronjobv1.CronJob, owned []*batchv1.Job, now time.Time) {
	for _, run := range cj.Status.Queued {
		at := run.ScheduledTime.Time
		switch {
		case cj.Spec.ConcurrencyPolicy != cronjobv1.EnqueueConcurrent:
			d.drops = append(d.drops, droppedRun{at, "spec.concurrencyPolicy is " + string(cj.Spec.ConcurrencyPolicy) + ", no longer Enqueue"})
		case cj.Status.ObservedSchedule != nil && !run.ScheduledTime.After(cj.Status.ObservedSchedule.Since.Time):
			d.drops = append(d.drops, droppedRun{at, "the schedule or time zone changed, or the CronJob was resumed, after it was due"})
		case schedule.PastDeadline(at, now, cj.Spec.StartingDeadlineSeconds):
			d.drops = append(d.drops, droppedRun{at, "past startingDeadlineSeconds"})
		default:
			d.kept = append(d.kept, run)
		}
	}
	if len(d.kept) == 0 {
		return
	}
	head := d.kept[0].ScheduledTime.Time
	if knowsJob(cj, owned, jobs.Name(cj.Name, head)) ||
		concurrency.Admit(&cj.Spec, len(cj.Status.Active), 0) != concurrency.Hold {
		d.head = head
	}
}

// decideDue picks the run due (under missedRunPolicy All, the oldest of the last maxCatchUpRuns unmet
// ones) and what the concurrency policy says of it. earliest is where unmet runs are counted from.
func (d *decision) decideDue(cj *cronjobv1.CronJob, owned []*batchv1.Job, earliest time.Time) {
	d.due = d.plan.Scheduled
	if cj.Spec.MissedRunPolicy == cronjobv1.MissedRunAll && d.plan.Unmet > 1 {
		limit := int(ptr.Deref(cj.Spec.MaxCatchUpRuns, cronjobv1.DefaultMaxCatchUpRuns))
		d.catchUp = true
		d.due, d.dropped = schedule.OldestCatchUp(d.sched, earliest, d.plan.Since, d.plan.Scheduled, limit)
	} else if d.plan.Unmet > schedule.MaxMissedTimes {
		d.tooMany = true
	}
	if knowsJob(cj, owned, jobs.Name(cj.Name, d.due)) {
		d.verdict = verdictAdopt
		return
	}
	enqueue := cj.Spec.ConcurrencyPolicy == cronjobv1.EnqueueConcurrent
	if enqueue && len(d.kept) > 0 {
		d.verdict = verdictEnqueue // older runs are queued: they start first, one Job per reconcile
		return
	}
	switch concurrency.Admit(&cj.Spec, len(cj.Status.Active), 0) {
	case concurrency.Replace:
		d.verdict = verdictReplace
	case concurrency.Start:
		d.verdict = verdictStart
	case concurrency.Hold:
		d.verdict = verdictEnqueue
		if !enqueue {
			d.verdict, d.skipped = verdictSkip, metrics.MissedMaxActive
		}
		if cj.Spec.ConcurrencyPolicy == cronjobv1.ForbidConcurrent {
			d.skipped = metrics.MissedForbid
		}
	}
}

// knowsJob reports whether a Job of the CronJob with that name is among its Jobs from the cache or in
// status.active (there, trackJobs has confirmed it on the API server when the cache lacks it).
func knowsJob(cj *cronjobv1.CronJob, owned []*batchv1.Job, name string) bool {
	for _, job := range owned {
		if job.Name == name {
			return true
		}
	}
	for _, ref := range cj.Status.Active {
		if ref.Name == name {
			return true
		}
	}
	return false
}

// delays is the jitter of the CronJob's runs (spec.jitterSeconds, schedule.RunDelay, anchored at
// earliest), nil without it.
func delays(cj *cronjobv1.CronJob, sched cron.Schedule, earliest time.Time) schedule.DelayFunc {
	if ptr.Deref(cj.Spec.JitterSeconds, 0) <= 0 {
		return nil
	}
	return func(scheduled time.Time) time.Duration {
		return schedule.RunDelay(cj, sched, earliest, scheduled)
	}
}
