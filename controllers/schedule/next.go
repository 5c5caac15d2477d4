package schedule

import (
	"errors"
	"time"

	cron "github.com/netresearch/go-cron"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// NextRun is a coming run of a CronJob: its scheduled time and when it starts.
type NextRun struct {
	// Scheduled is the nominal scheduled time, in the CronJob's time zone: the Job's name and scheduled-at
	// annotation carry it.
	Scheduled time.Time
	// Start is when the controller starts the run: Scheduled plus its jitter (spec.jitterSeconds; the
	// same delay the controller computes), in the same zone. Equal to Scheduled without jitter.
	Start time.Time
}

// NextRuns returns the next n runs of the CronJob scheduled strictly after `after`, oldest first,
// and the time zone its schedule is evaluated in (spec.timeZone, UTC when unset), by the controller's own
// schedule math: the same parser, daylight saving time rules, @every anchor (the last scheduled time, or
// the creation time, or when the schedule was last edited) and jitter as the scheduler, over the union of
// spec.schedules, without the times the calendars cals (by name, see ForCronJob), spec.activeWindow and
// spec.suspendUntil exclude. Fewer than n runs
// come back when the schedule has no more in the next five years (none for "0 0 31 2 *"). The error, for
// an unparseable schedule or an unknown time zone, says what to fix; n <= 0 returns no runs and no error.
// It is what `kubectl cjo next` prints.
func NextRuns(cj *cronjobv1.CronJob, cals Calendars, after time.Time, n int) ([]NextRun, *time.Location, error) {
	sched, loc, err := ForScheduler(cj, cals)
	if err != nil {
		if se, ok := errors.AsType[*Error](err); ok {
			return nil, nil, errors.New(se.Message)
		}
		return nil, nil, err
	}
	anchor := EarliestTime(cj)
	runs := make([]NextRun, 0, max(n, 0))
	for t := Next(sched, anchor, after); !t.IsZero() && len(runs) < n; t = Next(sched, anchor, t) {
		runs = append(runs, NextRun{Scheduled: t.In(loc), Start: t.Add(RunDelay(cj, sched, anchor, t)).In(loc)})
	}
	return runs, loc, nil
}

// IsScheduledTime reports whether t is a scheduled time of sched. For an @every schedule the scheduled times
// are anchor plus whole intervals, before or after it (anchor as for Next); for the others, the
// times the schedule's Next returns, daylight saving time rules included (dstSchedule).
func IsScheduledTime(sched cron.Schedule, anchor, t time.Time) bool {
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		return every.Delay > 0 && t.Sub(anchor)%every.Delay == 0
	}
	return Next(sched, anchor, t.Add(-time.Nanosecond)).Equal(t)
}

// EarliestTime is where the search for unmet scheduled times starts: the last scheduled time (or the
// CronJob's creation time if it never ran), or the time the current schedule was first observed if that is
// later (see observeSchedule), or the newest queued run (concurrencyPolicy Enqueue) if that is later still.
// status.lastScheduleTime is the record of what ran; it is never rebuilt from
// the Jobs that still exist.
func EarliestTime(cj *cronjobv1.CronJob) time.Time {
	t := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		t = cj.Status.LastScheduleTime.Time
	}
	if obs := cj.Status.ObservedSchedule; obs != nil && obs.Since.After(t) {
		t = obs.Since.Time
	}
	// A queued run is accounted for: the runs after it are the unmet ones.
	for _, q := range cj.Status.Queued {
		if q.ScheduledTime.After(t) {
			t = q.ScheduledTime.Time
		}
	}
	return t
}

// Slots returns the scheduled times of sched in [from, to], both inclusive, oldest first, at most limit
// of them (anchor as for Next). A range backfill (CronJobRun spec.range) runs these; callers pass one more
// than the most they accept to learn that the range holds too many. The times keep the zone of Next's
// results; the daylight saving time rules are sched's own (a wall time that repeats runs once, one that is
// skipped runs at the jump), so a range across a change holds each instant once.
func Slots(sched cron.Schedule, anchor, from, to time.Time, limit int) []time.Time {
	var out []time.Time
	for t := Next(sched, anchor, from.Add(-time.Nanosecond)); !t.IsZero() && !t.After(to) && len(out) < limit; t = Next(sched, anchor, t) {
		out = append(out, t)
	}
	return out
}
