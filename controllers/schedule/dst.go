package schedule

import (
	"strings"
	"time"

	cron "github.com/netresearch/go-cron"
)

// dstSchedule gives a fixed-time schedule classic cron semantics across daylight saving time transitions in
// its time zone, where batch/v1 CronJob (robfig/cron) skips runs that fall in the skipped hour and runs twice
// those that fall in the repeated hour:
//   - a run whose local time falls in the skipped hour (spring forward) starts once, at the jump;
//   - a run whose local time falls in the repeated hour (fall back) starts once, at its first occurrence.
//
// As in Vixie cron, it applies only to schedules whose minute and hour fields are both fixed (no * or ?):
// "*/15 * * * *" or "0 * * * *" follow the real clock, running every 15 minutes or every hour of elapsed
// time through a transition.
//
// For every schedule in a zone other than UTC it also drops the times the cron library returns that do not
// match the schedule: with a 30-minute transition (Australia/Lord_Howe) the library can return 02:45 for
// "45 1 * * *", and on the day the clock jumps from 02:00 to 03:00 it returns 03:30 for "30 2 * * *" (its own
// rule for the skipped hour, which the rules above replace). The days of the schedule (L, nW, d#n, ...) are
// matched in local time, so a month-end run in the skipped hour starts at the jump like any other.
type dstSchedule struct {
	spec      *cron.SpecSchedule
	fixedTime bool // minute and hour fields are both fixed: apply the skipped and repeated hour rules
}

// Next returns the first run time strictly after t, or the zero time if none is in the next five years.
func (d dstSchedule) Next(t time.Time) time.Time {
	loc := d.spec.Location
	n := d.spec.Next(t)
	// The library looks five years ahead of each call: the search for a time it returns that matches ends five
	// years after t, or a schedule whose every time the library returns is dropped would never end ("30 2 * 3
	// SUN#2" in America/New_York, for which it returns 03:30 on the day the clock jumps over 02:30).
	limit := t.AddDate(5, 0, 0)
	for !n.IsZero() && (!specMatchesWall(d.spec, n.In(loc)) || (d.fixedTime && inRepeatedWallTime(n.In(loc)))) {
		if n = d.spec.Next(n); n.After(limit) {
			n = time.Time{}
		}
	}
	if !d.fixedTime {
		return n
	}
	if jump := d.skippedRunBetween(t.In(loc), n); !jump.IsZero() {
		return jump.In(t.Location())
	}
	return n
}

// inRepeatedWallTime reports whether t's local wall time (in t's location) already occurred earlier, because
// a fall-back transition just before t set the clock back.
func inRepeatedWallTime(t time.Time) bool {
	start, _ := t.ZoneBounds()
	if start.IsZero() {
		return false
	}
	_, before := start.Add(-time.Nanosecond).Zone()
	_, after := start.Zone()
	back := time.Duration(before-after) * time.Second
	return back > 0 && t.Sub(start) < back
}

// skippedRunBetween returns the first spring-forward transition in (t, n] (all of (t, t+5y] when n is zero)
// whose skipped local wall times include a run time of the schedule, or the zero time. t must be in the
// schedule's location.
func (d dstSchedule) skippedRunBetween(t, n time.Time) time.Time {
	limit := n
	if limit.IsZero() {
		limit = t.AddDate(5, 0, 0)
	}
	for cur := t; ; {
		_, end := cur.ZoneBounds()
		if end.IsZero() || end.After(limit) {
			return time.Time{}
		}
		if !end.After(cur) {
			// Go's zone rules beyond the tz database's last explicit year can report a zone that ends
			// before cur (seen at 2040-12-31 in Europe/Berlin); step past it.
			cur = cur.Add(time.Hour)
			continue
		}
		_, before := end.Add(-time.Nanosecond).Zone()
		_, after := end.Zone()
		if end.After(t) && after > before {
			// Wall times [end+before, end+after) do not exist; check each minute of them.
			for off := before; off < after; off += 60 {
				if specMatchesWall(d.spec, end.Add(time.Duration(off)*time.Second).UTC()) {
					return end
				}
			}
		}
		cur = end
	}
}

// specMatchesWall reports whether the schedule matches the wall time fields of `wall` (in its location); the
// day is matched as the cron library matches it (dayMatches).
func specMatchesWall(s *cron.SpecSchedule, wall time.Time) bool {
	if s.Second&(1<<uint(wall.Second())) == 0 || s.Minute&(1<<uint(wall.Minute())) == 0 ||
		s.Hour&(1<<uint(wall.Hour())) == 0 || s.Month&(1<<uint(wall.Month())) == 0 {
		return false
	}
	return dayMatches(s, wall)
}

// hasFixedTime reports whether a schedule's minute and hour fields are both fixed (no * or ?), the schedules
// dstSchedule applies to. Descriptors: @daily, @weekly, @monthly and @yearly are fixed; @hourly is not.
func hasFixedTime(schedule string, spec *cron.SpecSchedule) bool {
	const starBit = 1 << 63
	fields := strings.Fields(schedule)
	if len(fields) == 1 && strings.HasPrefix(fields[0], "@") {
		return spec.Minute&starBit == 0 && spec.Hour&starBit == 0
	}
	if len(fields) < 2 {
		return false
	}
	wild := func(f string) bool { return strings.HasPrefix(f, "*") || strings.HasPrefix(f, "?") }
	return !wild(fields[0]) && !wild(fields[1])
}
