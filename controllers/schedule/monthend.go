package schedule

import (
	"time"

	cron "github.com/netresearch/go-cron"
)

// dayMatches reports whether the date of `wall` (its year, month and day in its location) is a day of the
// schedule, as the cron library's Next decides it: the day-of-month field matches by its days or one of its
// month-end tokens (L, L-n, LW, nW), the day-of-week field by its weekdays or one of its weekday-of-the-month
// tokens (d#n, d#L); when both fields are restricted either may match (DowOrDom, batch/v1's rule), else both
// must. Descriptors leave one field unrestricted, where the two rules agree.
func dayMatches(s *cron.SpecSchedule, wall time.Time) bool {
	const starBit = 1 << 63
	y, m, d := wall.Date()
	dom := s.Dom&(1<<uint(d)) != 0
	for _, c := range s.DomConstraints {
		dom = dom || domTokenDay(c, y, m) == d
	}
	wd := wall.Weekday()
	dow := s.Dow&(1<<uint(wd)) != 0
	for _, c := range s.DowConstraints {
		dow = dow || (time.Weekday(c.Weekday) == wd && (c.N == (d-1)/7+1 || c.N == -1 && d+7 > daysIn(y, m)))
	}
	if !s.DowOrDom || s.Dom&starBit != 0 || s.Dow&starBit != 0 {
		return dom && dow
	}
	return dom || dow
}

// domTokenDay is the day of month y/m that a day-of-month token stands for, or 0 if none: L is the last day,
// L-n the n-th day before it, LW the last weekday (Monday to Friday), nW the weekday nearest day n within the
// month (a Saturday the 1st gives Monday the 3rd, a Sunday the last day gives the Friday before; none when
// the month has no day n).
func domTokenDay(c cron.DomConstraint, y int, m time.Month) int {
	last := daysIn(y, m)
	switch c.Type {
	case cron.DomLast:
		return last
	case cron.DomLastOffset:
		return max(last-c.N, 0)
	case cron.DomLastWeekday:
		switch time.Date(y, m, last, 12, 0, 0, 0, time.UTC).Weekday() {
		case time.Saturday:
			return last - 1
		case time.Sunday:
			return last - 2
		}
		return last
	case cron.DomNearestWeekday:
		if c.N > last {
			return 0
		}
		switch time.Date(y, m, c.N, 12, 0, 0, 0, time.UTC).Weekday() {
		case time.Saturday:
			if c.N == 1 {
				return 3
			}
			return c.N - 1
		case time.Sunday:
			if c.N == last {
				return c.N - 2
			}
			return c.N + 1
		}
		return c.N
	}
	return 0
}

// daysIn is the number of days of month m of year y.
func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 12, 0, 0, 0, time.UTC).Day()
}
