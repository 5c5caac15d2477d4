package schedule

import (
	"slices"
	"time"
)

// The reference the month-end and weekday-of-the-month tokens are tested against: plain Go that walks the
// days of each month and the minutes around each local time, written without the cron library, dayMatches or
// dstSchedule.

// refDay reports whether day d of month m of year y is a day of a schedule.
type refDay func(y int, m time.Month, d int) bool

// monthDays lists the weekdays of the days of month m of year y (index 0 is the 1st), walking from the 1st
// until the month changes.
func monthDays(y int, m time.Month) []time.Weekday {
	var days []time.Weekday
	for t := time.Date(y, m, 1, 12, 0, 0, 0, time.UTC); t.Month() == m; t = t.AddDate(0, 0, 1) {
		days = append(days, t.Weekday())
	}
	return days
}

func isWeekday(wd time.Weekday) bool { return wd != time.Saturday && wd != time.Sunday }

// refDays is a day-of-month field of plain days.
func refDays(days ...int) refDay {
	return func(_ int, _ time.Month, d int) bool { return slices.Contains(days, d) }
}

// refWeekdays is a day-of-week field of plain weekdays.
func refWeekdays(wds ...time.Weekday) refDay {
	return func(y int, m time.Month, d int) bool { return slices.Contains(wds, monthDays(y, m)[d-1]) }
}

// refLast is L-n: n days before the last day of the month (L for n 0).
func refLast(n int) refDay {
	return func(y int, m time.Month, d int) bool { return d == len(monthDays(y, m))-n }
}

// refLastWeekday is LW: the last day of the month from Monday to Friday.
func refLastWeekday() refDay {
	return func(y int, m time.Month, d int) bool {
		days := monthDays(y, m)
		last := len(days)
		for !isWeekday(days[last-1]) {
			last--
		}
		return d == last
	}
}

// refNearestWeekday is nW: the day from Monday to Friday of the same month closest to day n; none in a month
// without a day n.
func refNearestWeekday(n int) refDay {
	return func(y int, m time.Month, d int) bool {
		days := monthDays(y, m)
		if n > len(days) {
			return false
		}
		best := 0
		for day := 1; day <= len(days); day++ {
			if isWeekday(days[day-1]) && (best == 0 || abs(day-n) < abs(best-n)) {
				best = day
			}
		}
		return d == best
	}
}

func abs(x int) int { return max(x, -x) }

// refNth is wd#n: the n-th weekday wd of the month counting from the 1st; n -1 is the last.
func refNth(wd time.Weekday, n int) refDay {
	return func(y int, m time.Month, d int) bool {
		var seen []int
		for day, w := range monthDays(y, m) {
			if w == wd {
				seen = append(seen, day+1)
			}
		}
		if n == -1 {
			return d == seen[len(seen)-1]
		}
		return n <= len(seen) && d == seen[n-1]
	}
}

// refAny is a day field with several tokens, or both day fields restricted: any of them may match.
func refAny(rules ...refDay) refDay {
	return func(y int, m time.Month, d int) bool {
		return slices.ContainsFunc(rules, func(r refDay) bool { return r(y, m, d) })
	}
}

// refSchedule is a schedule for the reference: its local times, months (nil for all) and days.
type refSchedule struct {
	minutes, hours []int
	months         []time.Month
	days           refDay
}

func (s refSchedule) matchesMonth(m time.Month) bool {
	return s.months == nil || slices.Contains(s.months, m)
}

// refFixedRuns lists the runs in (from, to] of a schedule whose minute and hour fields are fixed, in loc, as
// classic cron runs them: a local time that does not exist (the clock jumps over it) runs at the jump, one
// that occurs twice runs the first time, and runs that fall on the same instant run once.
func refFixedRuns(s refSchedule, loc *time.Location, from, to time.Time) []time.Time {
	var runs []time.Time
	for month := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0); !month.After(to); month = month.AddDate(0, 1, 0) {
		y, m := month.Year(), month.Month()
		if !s.matchesMonth(m) {
			continue
		}
		for d := 1; d <= len(monthDays(y, m)); d++ {
			if !s.days(y, m, d) {
				continue
			}
			for _, h := range s.hours {
				for _, mi := range s.minutes {
					if t := wallInstant(time.Date(y, m, d, h, mi, 0, 0, time.UTC), loc); t.After(from) && !t.After(to) {
						runs = append(runs, t)
					}
				}
			}
		}
	}
	slices.SortFunc(runs, time.Time.Compare)
	return slices.CompactFunc(runs, time.Time.Equal)
}

// wallInstant is the first instant whose local time in loc is `wall` (given as a UTC time with the same
// fields), or, if the clock jumps over it, the instant of the jump: the first of the minutes from 15 hours
// before on whose local time is not before it.
func wallInstant(wall time.Time, loc *time.Location) time.Time {
	for u := wall.Add(-15 * time.Hour); ; u = u.Add(time.Minute) {
		l := u.In(loc)
		if !time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), 0, 0, time.UTC).Before(wall) {
			return u
		}
	}
}

// refClockRuns lists the runs in (from, to] of a schedule with * in its minute or hour field, which follows
// the real clock: every minute whose local time in loc matches the schedule.
func refClockRuns(s refSchedule, loc *time.Location, from, to time.Time) []time.Time {
	var runs []time.Time
	for u := from.Truncate(time.Minute).Add(time.Minute); !u.After(to); u = u.Add(time.Minute) {
		l := u.In(loc)
		if slices.Contains(s.minutes, l.Minute()) && slices.Contains(s.hours, l.Hour()) && s.matchesMonth(l.Month()) && s.days(l.Year(), l.Month(), l.Day()) {
			runs = append(runs, u)
		}
	}
	return runs
}
