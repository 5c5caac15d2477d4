package controllers

import (
	"errors"
	"time"

	"github.com/robfig/cron/v3"

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

// NextScheduleTimes returns the next n runs of the CronJob scheduled strictly after `after`, oldest first,
// and the time zone its schedule is evaluated in (spec.timeZone, UTC when unset), by the controller's own
// schedule math: the same parser, daylight saving time rules, @every anchor (the last scheduled time, or
// the creation time, or when the schedule was last edited) and jitter as the scheduler. Fewer than n runs
// come back when the schedule has no more in the next five years (none for "0 0 31 2 *"). The error, for
// an unparseable schedule or an unknown time zone, says what to fix; n <= 0 returns no runs and no error.
// It is what `kubectl cjo next` prints.
func NextScheduleTimes(cj *cronjobv1.CronJob, after time.Time, n int) ([]NextRun, *time.Location, error) {
	sched, loc, err := parseSchedule(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err != nil {
		if se, ok := errors.AsType[*scheduleError](err); ok {
			return nil, nil, errors.New(se.Message)
		}
		return nil, nil, err
	}
	anchor := earliestTime(cj)
	runs := make([]NextRun, 0, max(n, 0))
	for t := nextScheduleTime(sched, anchor, after); !t.IsZero() && len(runs) < n; t = nextScheduleTime(sched, anchor, t) {
		runs = append(runs, NextRun{Scheduled: t.In(loc), Start: t.Add(runDelay(cj, sched, anchor, t)).In(loc)})
	}
	return runs, loc, nil
}

// isScheduledTime reports whether t is a scheduled time of sched. For an @every schedule the scheduled times
// are anchor plus whole intervals, before or after it (anchor as for nextScheduleTime); for the others, the
// times the schedule's Next returns, daylight saving time rules included (dstSchedule).
func isScheduledTime(sched cron.Schedule, anchor, t time.Time) bool {
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		return every.Delay > 0 && t.Sub(anchor)%every.Delay == 0
	}
	return nextScheduleTime(sched, anchor, t.Add(-time.Nanosecond)).Equal(t)
}
