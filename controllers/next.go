package controllers

import (
	"errors"
	"time"

	"github.com/robfig/cron/v3"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// NextScheduleTimes returns the next n scheduled times of the CronJob strictly after `after`, oldest first,
// and the time zone its schedule is evaluated in (spec.timeZone, UTC when unset), by the controller's own
// schedule math: the same parser, daylight saving time rules and @every anchor (the last scheduled time, or
// the creation time, or when the schedule was last edited) as the scheduler. Fewer than n times come back
// when the schedule has no more in the next five years (none for "0 0 31 2 *"). The times are the nominal
// scheduled times: spec.jitterSeconds is not added (the delay belongs here, beside the nominal time, when
// jitter is implemented). The error, for an unparseable schedule or an unknown time zone, says what to fix;
// n <= 0 returns no times and no error. It is what `kubectl cjo next` prints.
func NextScheduleTimes(cj *cronjobv1.CronJob, after time.Time, n int) ([]time.Time, *time.Location, error) {
	sched, loc, err := parseSchedule(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err != nil {
		if se, ok := errors.AsType[*scheduleError](err); ok {
			return nil, nil, errors.New(se.Message)
		}
		return nil, nil, err
	}
	anchor := earliestTime(cj)
	times := make([]time.Time, 0, max(n, 0))
	for t := after; len(times) < n; {
		t = nextScheduleTime(sched, anchor, t)
		if t.IsZero() {
			break
		}
		times = append(times, t.In(loc))
	}
	return times, loc, nil
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
