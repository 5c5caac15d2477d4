package calendar

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	cron "github.com/netresearch/go-cron"
	"github.com/rickar/cal/v2"
	"k8s.io/apimachinery/pkg/util/validation/field"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// Calendar is a compiled CronCalendar. It is safe for concurrent use.
type Calendar struct {
	loc       *time.Location
	dates     map[string]bool // YYYY-MM-DD in loc
	ranges    []span
	schedules []excludedSchedule
	holidays  []holidaySet

	mu     sync.Mutex
	byYear map[int]map[string]string // the holidays of a year: YYYY-MM-DD -> "COUNTRY: name"
}

// span is [start, end) of excludeRanges[i], as instants.
type span struct {
	start, end time.Time
	text       string
}

// excludedSchedule is excludeSchedules[i], parsed in the calendar's zone.
type excludedSchedule struct {
	sched cron.Schedule
	text  string
}

// holidaySet is holidays[i]: the lists it draws from.
type holidaySet struct {
	label string // "DE" or "DE-BY"
	lists [][]*cal.Holiday
}

// Compile parses spec once. Its error is a field.ErrorList (as an aggregate) naming every entry that
// cannot be used: a date that does not exist, a range that ends before it starts, an unknown time zone, a
// schedule that does not parse or is a descriptor, an unknown country or region.
func Compile(spec cronjobv1.CronCalendarSpec) (*Calendar, error) {
	errs := Validate(spec)
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	c, _ := compile(spec)
	return c, nil
}

// Validate returns every error of spec, with its field path under spec.
func Validate(spec cronjobv1.CronCalendarSpec) field.ErrorList {
	_, errs := compile(spec)
	return errs
}

// compile builds the Calendar of spec, one kind of entry after the other, and every error with its path.
func compile(spec cronjobv1.CronCalendarSpec) (*Calendar, field.ErrorList) {
	root := field.NewPath("spec")
	c := &Calendar{loc: time.UTC, dates: map[string]bool{}, byYear: map[int]map[string]string{}}
	errs := c.setZone(root, spec.TimeZone)
	errs = append(errs, c.addDates(root.Child("excludeDates"), spec.ExcludeDates)...)
	errs = append(errs, c.addRanges(root.Child("excludeRanges"), spec.ExcludeRanges)...)
	errs = append(errs, c.addSchedules(root.Child("excludeSchedules"), spec.ExcludeSchedules)...)
	errs = append(errs, c.addHolidays(root.Child("holidays"), spec.Holidays)...)
	return c, errs
}

// setZone reads timeZone with the CronJob's rules for a zone (known, not Local); unset is UTC.
func (c *Calendar) setZone(root *field.Path, tz *string) field.ErrorList {
	if tz == nil {
		return nil
	}
	_, loc, err := schedule.Parse("@daily", tz)
	if err != nil {
		return field.ErrorList{field.Invalid(root.Child("timeZone"), *tz, "not a known IANA time zone: use a name such as \"Europe/Berlin\", or leave it unset for UTC")}
	}
	c.loc = loc
	return nil
}

// addDates adds excludeDates.
func (c *Calendar) addDates(p *field.Path, dates []string) field.ErrorList {
	var errs field.ErrorList
	for i, d := range dates {
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			errs = append(errs, field.Invalid(p.Index(i), d, "not a date that exists: write YYYY-MM-DD, such as 2026-12-24"))
			continue
		}
		c.dates[d] = true
	}
	return errs
}

// addRanges adds excludeRanges, read in the calendar's zone (setZone first).
func (c *Calendar) addRanges(root *field.Path, ranges []cronjobv1.CalendarRange) field.ErrorList {
	var errs field.ErrorList
	for i, r := range ranges {
		p := root.Index(i)
		start, serr := c.wallTime(r.Start, false)
		if serr != nil {
			errs = append(errs, field.Invalid(p.Child("start"), r.Start, serr.Error()))
		}
		end, eerr := c.wallTime(r.End, true)
		if eerr != nil {
			errs = append(errs, field.Invalid(p.Child("end"), r.End, eerr.Error()))
		}
		if serr != nil || eerr != nil {
			continue
		}
		if !end.After(start) {
			errs = append(errs, field.Invalid(p, r, fmt.Sprintf("the range %s to %s excludes nothing: end must come after start (a date as end excludes that whole day)", r.Start, r.End)))
			continue
		}
		c.ranges = append(c.ranges, span{start: start, end: end, text: fmt.Sprintf("excludeRanges[%d] %s to %s", i, r.Start, r.End)})
	}
	return errs
}

// addSchedules adds excludeSchedules, parsed in the calendar's zone (setZone first).
func (c *Calendar) addSchedules(root *field.Path, exprs []string) field.ErrorList {
	var errs field.ErrorList
	for i, expr := range exprs {
		p := root.Index(i)
		if strings.HasPrefix(strings.TrimSpace(expr), "@") {
			errs = append(errs, field.Invalid(p, expr, "descriptors and @every name instants, not spans: write five fields such as \"* 16-23 * * FRI\" (every minute of Friday from 16:00)"))
			continue
		}
		tz := c.loc.String()
		s, _, err := schedule.Parse(expr, &tz)
		if err != nil {
			errs = append(errs, field.Invalid(p, expr, strings.Replace(err.Error(), "spec.schedule ", "", 1)))
			continue
		}
		c.schedules = append(c.schedules, excludedSchedule{sched: s, text: fmt.Sprintf("excludeSchedules[%d] %q", i, expr)})
	}
	return errs
}

// addHolidays adds the holiday sets of holidays, from the generated tables (holidays_gen.go).
func (c *Calendar) addHolidays(root *field.Path, sets []cronjobv1.HolidaySet) field.ErrorList {
	var errs field.ErrorList
	for i, h := range sets {
		p := root.Index(i)
		table, ok := holidayTables[h.Country]
		if !ok {
			errs = append(errs, field.NotSupported(p.Child("country"), h.Country, Countries()))
			continue
		}
		if _, national := table[""]; !national && h.Region == "" {
			errs = append(errs, field.Required(p.Child("region"), fmt.Sprintf("the tables have the holidays of %s by region only: set region to one of %s", h.Country, strings.Join(Regions(h.Country), ", "))))
			continue
		}
		set := holidaySet{label: h.Country, lists: [][]*cal.Holiday{table[""]}}
		if h.Region != "" {
			list, ok := table[h.Region]
			if !ok {
				errs = append(errs, field.NotSupported(p.Child("region"), h.Region, Regions(h.Country)))
				continue
			}
			set.label += "-" + h.Region
			set.lists = append(set.lists, list)
		}
		c.holidays = append(c.holidays, set)
	}
	return errs
}

// wallTime reads a range bound in the calendar's zone: a date is its midnight, or, as an end, the next
// midnight (the whole day is excluded); a wall time the clock skips (spring forward) is the moment of the
// jump; one it shows twice (fall back) is its first occurrence.
func (c *Calendar) wallTime(s string, end bool) (time.Time, error) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return c.at(d.Year(), d.Month(), d.Day(), 0, 0, 0), nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if d, err := time.Parse(layout, s); err == nil {
			return c.at(d.Year(), d.Month(), d.Day(), d.Hour(), d.Minute(), d.Second()), nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date or wall time that exists: write YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], such as 2026-12-24 or 2026-12-24T16:00")
}

// at is the instant of a wall time in the calendar's zone: for a wall time the clock skips, the moment of
// the jump; for one it shows twice, the first.
func (c *Calendar) at(y int, mo time.Month, d, h, mi, s int) time.Time {
	t := time.Date(y, mo, d, h, mi, s, 0, c.loc)
	if t.Hour() != h || t.Minute() != mi || t.Day() != d {
		// Skipped: Go moved it past the jump; the jump is the start of t's zone period.
		start, _ := t.ZoneBounds()
		return start
	}
	// Shown twice: an hour (or the transition's size) earlier shows the same wall time.
	for _, back := range []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour} {
		if e := t.Add(-back); e.Hour() == h && e.Minute() == mi && e.Second() == s && e.Day() == d {
			return e
		}
	}
	return t
}

// Excluded reports whether the instant t is excluded, and why ("2026-12-25 is a holiday in DE: Christmas
// Day"). t is read in the calendar's zone.
func (c *Calendar) Excluded(t time.Time) (bool, string) {
	local := t.In(c.loc)
	date := local.Format(time.DateOnly)
	if c.dates[date] {
		return true, "excludeDates " + date
	}
	for _, r := range c.ranges {
		if !t.Before(r.start) && t.Before(r.end) {
			return true, r.text
		}
	}
	if len(c.schedules) > 0 {
		minute := time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(), 0, 0, c.loc)
		if minute.After(t) { // the first of a repeated wall minute normalised forward
			minute = t.Truncate(time.Minute)
		}
		for _, s := range c.schedules {
			if s.sched.Next(minute.Add(-time.Nanosecond)).Equal(minute) {
				return true, "matches " + s.text
			}
		}
	}
	if len(c.holidays) > 0 {
		if name, ok := c.holidaysOf(local.Year())[date]; ok {
			return true, date + " is a holiday in " + name
		}
	}
	return false, ""
}

// holidaysOf returns the holidays of the year, computed once: the actual and the observed date of each
// public or bank holiday of the sets.
func (c *Calendar) holidaysOf(year int) map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.byYear[year]; ok {
		return m
	}
	m := map[string]string{}
	for _, set := range c.holidays {
		for _, list := range set.lists {
			for _, h := range list {
				if h.Type != cal.ObservancePublic && h.Type != cal.ObservanceBank {
					continue
				}
				actual, observed := h.Calc(year)
				for _, d := range []time.Time{actual, observed} {
					if d.IsZero() {
						continue
					}
					key := d.Format(time.DateOnly)
					if _, seen := m[key]; !seen {
						m[key] = set.label + ": " + h.Name
					}
				}
			}
		}
	}
	if len(c.byYear) > 8 {
		clear(c.byYear) // a calendar is compiled per reconcile; bound it all the same
	}
	c.byYear[year] = m
	return m
}

// Countries returns the country codes the holiday tables have, sorted.
func Countries() []string {
	out := make([]string, 0, len(holidayTables))
	for code := range holidayTables {
		out = append(out, code)
	}
	sort.Strings(out)
	return out
}

// Regions returns the region codes the tables have for a country, sorted; none for a country with one list.
func Regions(country string) []string {
	var out []string
	for code := range holidayTables[country] {
		if code != "" {
			out = append(out, code)
		}
	}
	sort.Strings(out)
	return out
}
