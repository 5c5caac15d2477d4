package calendar

import (
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

func TestExcluded(t *testing.T) {
	berlin := cronjobv1.CronCalendarSpec{TimeZone: ptr.To("Europe/Berlin")}
	with := func(s cronjobv1.CronCalendarSpec, edit func(*cronjobv1.CronCalendarSpec)) cronjobv1.CronCalendarSpec {
		edit(&s)
		return s
	}
	cases := map[string]struct {
		spec   cronjobv1.CronCalendarSpec
		at     string
		want   bool
		reason string
	}{
		"an excluded date, first instant":        {spec: cronjobv1.CronCalendarSpec{ExcludeDates: []string{"2026-12-24"}}, at: "2026-12-24T00:00:00Z", want: true, reason: "excludeDates 2026-12-24"},
		"an excluded date, last nanosecond":      {spec: cronjobv1.CronCalendarSpec{ExcludeDates: []string{"2026-12-24"}}, at: "2026-12-24T23:59:59.999999999Z", want: true},
		"the day after an excluded date":         {spec: cronjobv1.CronCalendarSpec{ExcludeDates: []string{"2026-12-24"}}, at: "2026-12-25T00:00:00Z"},
		"a leap day":                             {spec: cronjobv1.CronCalendarSpec{ExcludeDates: []string{"2028-02-29"}}, at: "2028-02-29T12:00:00Z", want: true},
		"a date read in the calendar's zone":     {spec: with(berlin, func(s *cronjobv1.CronCalendarSpec) { s.ExcludeDates = []string{"2026-12-25"} }), at: "2026-12-24T23:30:00Z", want: true},
		"a range of dates: its last day":         {spec: cronjobv1.CronCalendarSpec{ExcludeRanges: []cronjobv1.CalendarRange{{Start: "2026-12-24", End: "2026-12-26"}}}, at: "2026-12-26T23:59:00Z", want: true, reason: "excludeRanges[0] 2026-12-24 to 2026-12-26"},
		"a range of dates: the day after":        {spec: cronjobv1.CronCalendarSpec{ExcludeRanges: []cronjobv1.CalendarRange{{Start: "2026-12-24", End: "2026-12-26"}}}, at: "2026-12-27T00:00:00Z"},
		"a wall-time range: its start":           {spec: cronjobv1.CronCalendarSpec{ExcludeRanges: []cronjobv1.CalendarRange{{Start: "2026-03-02T10:00", End: "2026-03-02T12:00"}}}, at: "2026-03-02T10:00:00Z", want: true},
		"a wall-time range: 1 ns before start":   {spec: cronjobv1.CronCalendarSpec{ExcludeRanges: []cronjobv1.CalendarRange{{Start: "2026-03-02T10:00", End: "2026-03-02T12:00"}}}, at: "2026-03-02T09:59:59.999999999Z"},
		"a wall-time range: its end is excluded": {spec: cronjobv1.CronCalendarSpec{ExcludeRanges: []cronjobv1.CalendarRange{{Start: "2026-03-02T10:00", End: "2026-03-02T12:00"}}}, at: "2026-03-02T12:00:00Z"},
		"a range starting in the skipped hour begins at the jump": {
			spec: with(berlin, func(s *cronjobv1.CronCalendarSpec) {
				s.ExcludeRanges = []cronjobv1.CalendarRange{{Start: "2026-03-29T02:30", End: "2026-03-29T04:00"}}
			}), at: "2026-03-29T01:00:00Z", want: true,
		},
		"Friday freeze, 15:59: not":    {spec: with(berlin, func(s *cronjobv1.CronCalendarSpec) { s.ExcludeSchedules = []string{"* 16-23 * * FRI"} }), at: "2026-03-06T14:59:00Z"},
		"Friday freeze, 16:00":         {spec: with(berlin, func(s *cronjobv1.CronCalendarSpec) { s.ExcludeSchedules = []string{"* 16-23 * * FRI"} }), at: "2026-03-06T15:00:00Z", want: true, reason: `matches excludeSchedules[0] "* 16-23 * * FRI"`},
		"Friday freeze, 23:59":         {spec: with(berlin, func(s *cronjobv1.CronCalendarSpec) { s.ExcludeSchedules = []string{"* 16-23 * * FRI"} }), at: "2026-03-06T22:59:30Z", want: true},
		"Friday freeze, Saturday 0:00": {spec: with(berlin, func(s *cronjobv1.CronCalendarSpec) { s.ExcludeSchedules = []string{"* 16-23 * * FRI"} }), at: "2026-03-06T23:00:00Z"},
		"Christmas in DE":              {spec: cronjobv1.CronCalendarSpec{Holidays: []cronjobv1.HolidaySet{{Country: "DE"}}}, at: "2026-12-25T10:00:00Z", want: true, reason: "2026-12-25 is a holiday in DE: "},
		"a New York time on 24 December is 25 December in a Berlin calendar of DE holidays": {
			spec: with(berlin, func(s *cronjobv1.CronCalendarSpec) { s.Holidays = []cronjobv1.HolidaySet{{Country: "DE"}} }),
			at:   "2026-12-25T01:00:00Z", want: true, // 2026-12-24T20:00 in New York
		},
		"the same instant in a New York calendar of US holidays is 24 December": {
			spec: cronjobv1.CronCalendarSpec{TimeZone: ptr.To("America/New_York"), Holidays: []cronjobv1.HolidaySet{{Country: "US"}}},
			at:   "2026-12-25T01:00:00Z",
		},
		"US Christmas on a Saturday is observed on Friday 2027-12-24": {
			spec: cronjobv1.CronCalendarSpec{Holidays: []cronjobv1.HolidaySet{{Country: "US"}}}, at: "2027-12-24T12:00:00Z", want: true,
		},
		"Epiphany is a holiday in Bavaria, not in all of Germany": {
			spec: cronjobv1.CronCalendarSpec{Holidays: []cronjobv1.HolidaySet{{Country: "DE", Region: "BY"}}}, at: "2026-01-06T12:00:00Z", want: true, reason: "DE-BY",
		},
		"Epiphany in DE without a region": {spec: cronjobv1.CronCalendarSpec{Holidays: []cronjobv1.HolidaySet{{Country: "DE"}}}, at: "2026-01-06T12:00:00Z"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := Compile(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			got, why := c.Excluded(MustTime(tc.at))
			if got != tc.want || !strings.Contains(why, tc.reason) {
				t.Errorf("Excluded(%s) = %v, %q; want %v with %q", tc.at, got, why, tc.want, tc.reason)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	spec := cronjobv1.CronCalendarSpec{
		TimeZone:         ptr.To("Mars/Olympus"),
		ExcludeDates:     []string{"2026-02-29", "2026-03-01"},
		ExcludeRanges:    []cronjobv1.CalendarRange{{Start: "2026-12-26", End: "2026-12-24"}, {Start: "2026-13-01", End: "2026-12-24"}},
		ExcludeSchedules: []string{"@daily", "0 25 * * *"},
		Holidays:         []cronjobv1.HolidaySet{{Country: "XX"}, {Country: "DE", Region: "ZZ"}},
	}
	errs := Validate(spec)
	want := map[string]string{
		"spec.timeZone":               "not a known IANA time zone",
		"spec.excludeDates[0]":        "not a date that exists",
		"spec.excludeRanges[0]":       "end must come after start",
		"spec.excludeRanges[1].start": "not a date or wall time that exists",
		"spec.excludeSchedules[0]":    "descriptors and @every name instants",
		"spec.excludeSchedules[1]":    "not a valid cron schedule",
		"spec.holidays[0].country":    `"DE"`,
		"spec.holidays[1].region":     `"BY"`,
	}
	got := map[string]string{}
	for _, e := range errs {
		got[e.Field] = e.Error()
	}
	for f, part := range want {
		if !strings.Contains(got[f], part) {
			t.Errorf("%s: %q, want it to contain %q", f, got[f], part)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("%d errors, want %d: %v", len(errs), len(want), errs)
	}
}

// Every country's national list, or each of its regions' where it has none (AU), has public or bank
// holidays: a table the generator read wrong would not.
func TestEveryCountryHasHolidays(t *testing.T) {
	for _, country := range Countries() {
		sets := []cronjobv1.HolidaySet{{Country: country}}
		if _, national := holidayTables[country][""]; !national {
			sets = nil
			for _, r := range Regions(country) {
				sets = append(sets, cronjobv1.HolidaySet{Country: country, Region: r})
			}
		}
		for _, set := range sets {
			c, err := Compile(cronjobv1.CronCalendarSpec{Holidays: []cronjobv1.HolidaySet{set}})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(c.holidaysOf(2026)); n == 0 {
				t.Errorf("%+v: no public or bank holiday in 2026", set)
			}
		}
	}
	errs := Validate(cronjobv1.CronCalendarSpec{Holidays: []cronjobv1.HolidaySet{{Country: "AU"}}})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "by region only: set region to one of ACT, NSW") {
		t.Errorf("AU without a region: %v", errs)
	}
}

// FuzzExcluded checks, for any calendar that compiles: Excluded is deterministic and gives a reason; every
// instant of an excluded date (in the calendar's zone) is excluded; and a schedule filtered by the
// calendar (schedule.ForCronJob) never returns an excluded time, so an excluded slot never runs.
func FuzzExcluded(f *testing.F) {
	f.Add("2026-12-24", "2026-12-24T16:00", "2026-12-26", "* 16-23 * * FRI", "DE", "0 * * * *", int64(0), int64(3600))
	f.Add("2026-03-29", "2026-03-29T01:00", "2026-03-29T04:00", "*/2 * * * *", "US", "*/5 * * * *", int64(86400*87), int64(7300))
	f.Fuzz(func(t *testing.T, date, start, end, sched, country, cronSched string, offset, within int64) {
		spec := cronjobv1.CronCalendarSpec{ExcludeDates: []string{date}, ExcludeRanges: []cronjobv1.CalendarRange{{Start: start, End: end}},
			ExcludeSchedules: []string{sched}, Holidays: []cronjobv1.HolidaySet{{Country: country}}, TimeZone: ptr.To("Europe/Berlin")}
		c, err := Compile(spec)
		if err != nil {
			return
		}
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(offset%(86400*800)) * time.Second)
		a, why := c.Excluded(at)
		b, why2 := c.Excluded(at)
		if a != b || why != why2 || (a && why == "") {
			t.Fatalf("Excluded(%v) not deterministic or without a reason: %v %q, %v %q", at, a, why, b, why2)
		}
		berlin, _ := time.LoadLocation("Europe/Berlin")
		if day, err := time.ParseInLocation(time.DateOnly, date, berlin); err == nil {
			in := day.Add(time.Duration((within%86400+86400)%86400) * time.Second)
			if in.Format(time.DateOnly) == date {
				if ex, _ := c.Excluded(in); !ex {
					t.Fatalf("%v is on the excluded date %s (Europe/Berlin) but not excluded", in, date)
				}
			}
		}
		cj := &cronjobv1.CronJob{Spec: cronjobv1.CronJobSpec{Schedule: cronSched, Calendars: []string{"c"}}}
		s, _, err := schedule.ForCronJob(cj, schedule.Calendars{"c": c})
		if err != nil {
			return
		}
		for n, i := s.Next(at), 0; !n.IsZero() && i < 20; n, i = s.Next(n), i+1 {
			if ex, why := c.Excluded(n); ex {
				t.Fatalf("schedule %q with the calendar returned %v, which the calendar excludes (%s)", cronSched, n, why)
			}
		}
	})
}
