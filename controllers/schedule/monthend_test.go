package schedule

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// nextRuns lists the scheduled times of sched in (from, to], in UTC, RFC 3339.
func nextRuns(sched interface{ Next(time.Time) time.Time }, from, to time.Time) []string {
	got := []string{}
	for t := sched.Next(from); !t.IsZero() && !t.After(to); t = sched.Next(t) {
		got = append(got, t.UTC().Format(time.RFC3339))
	}
	return got
}

func formatRuns(runs []time.Time) []string {
	out := []string{}
	for _, t := range runs {
		out = append(out, t.UTC().Format(time.RFC3339))
	}
	return out
}

// Every month-end and weekday-of-the-month token against the reference (monthend_reference_test.go), which
// walks the days of each month: months of 28, 29, 30 and 31 days, the leap year 2028 and 2100, which is
// not one, and the days the clock changes in Europe/Berlin, America/New_York and Australia/Lord_Howe (a
// 30-minute change).
func TestMonthEndTokensAgainstReference(t *testing.T) {
	everyMinute, everyHour := make([]int, 60), make([]int, 24)
	for i := range everyMinute {
		everyMinute[i] = i
	}
	for i := range everyHour {
		everyHour[i] = i
	}
	years := func(from, to int) (time.Time, time.Time) {
		return time.Date(from, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(to, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	from2027, to2030 := years(2027, 2030)
	cases := map[string]struct {
		// spec
		schedule string
		timeZone string
		// environment
		from, to time.Time
		// expectations: the reference schedule; clock: * in the minute or hour field, runs follow the clock
		want  refSchedule
		clock bool
	}{
		"L: the 28th, 29th (2028), 30th or 31st": {
			schedule: "0 18 L * *", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{18}, days: refLast(0)},
		},
		"L in February of 2099 to 2101: 2100 is not a leap year": {
			schedule: "0 18 L 2 *", from: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), to: time.Date(2102, 1, 1, 0, 0, 0, 0, time.UTC),
			want: refSchedule{minutes: []int{0}, hours: []int{18}, months: []time.Month{time.February}, days: refLast(0)},
		},
		"L-1 and L: the last two days": {
			schedule: "0 0 L-1,L * *", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{0}, days: refAny(refLast(1), refLast(0))},
		},
		"L-30: the 1st of months of 31 days only": {
			schedule: "0 0 L-30 * *", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{0}, days: refLast(30)},
		},
		"L-3 with plain days": {
			schedule: "0 12 1,15,L-3 * *", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{12}, days: refAny(refDays(1, 15), refLast(3))},
		},
		"LW: the last weekday": {
			schedule: "0 9 LW * *", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refLastWeekday()},
		},
		"1W: Monday the 3rd when the 1st is a Saturday (January 2028)": {
			schedule: "0 9 1W * *", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refNearestWeekday(1)},
		},
		"31W: Friday the 29th when the 31st is a Sunday (December 2028); none in shorter months": {
			schedule: "0 9 31W * *", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refNearestWeekday(31)},
		},
		"15W and 30W (Friday the 28th when the 30th is a Sunday and the last day)": {
			schedule: "0 9 15W,30W * *", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refAny(refNearestWeekday(15), refNearestWeekday(30))},
		},
		"29W in February: leap years only": {
			schedule: "0 9 29W 2 *", from: from2027, to: time.Date(2033, 1, 1, 0, 0, 0, 0, time.UTC),
			want: refSchedule{minutes: []int{0}, hours: []int{9}, months: []time.Month{time.February}, days: refNearestWeekday(29)},
		},
		"MON#1: the first Monday": {
			schedule: "0 9 * * MON#1", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refNth(time.Monday, 1)},
		},
		"1#5: no run in a month without a fifth Monday": {
			schedule: "0 9 * * 1#5", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refNth(time.Monday, 5)},
		},
		"FRI#L: the last Friday": {
			schedule: "0 9 * * FRI#L", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refNth(time.Friday, -1)},
		},
		"0#1 and 7#3: Sunday either way": {
			schedule: "0 9 * * 0#1,7#3", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refAny(refNth(time.Sunday, 1), refNth(time.Sunday, 3))},
		},
		"d#n with plain weekdays: Wednesdays and the first Monday": {
			schedule: "0 9 * * MON#1,WED", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refAny(refNth(time.Monday, 1), refWeekdays(time.Wednesday))},
		},
		"? in the day-of-month field: the first Monday only": {
			schedule: "0 9 ? * 1#1", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refNth(time.Monday, 1)},
		},
		"both day fields restricted: the last day or any Monday (OR, as batch/v1)": {
			schedule: "0 9 L * MON", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refAny(refLast(0), refWeekdays(time.Monday))},
		},
		"both day fields restricted: the 15th or the last Friday": {
			schedule: "0 9 15 * FRI#L", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0}, hours: []int{9}, days: refAny(refDays(15), refNth(time.Friday, -1))},
		},
		"both day fields with tokens: LW or the second Tuesday, in some months": {
			schedule: "30 8 LW * TUE#2", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{30}, hours: []int{8}, days: refAny(refLastWeekday(), refNth(time.Tuesday, 2))},
		},
		"several times on 1W and LW, quarterly": {
			schedule: "0,30 8,17 1W,LW */3 *", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0, 30}, hours: []int{8, 17}, months: []time.Month{1, 4, 7, 10}, days: refAny(refNearestWeekday(1), refLastWeekday())},
		},
		"Berlin, L at 02:30: once at the jump (31 March 2030), the first 02:30 in the fall back (31 October 2027)": {
			schedule: "30 2 L * *", timeZone: "Europe/Berlin", from: from2027, to: time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC),
			want: refSchedule{minutes: []int{30}, hours: []int{2}, days: refLast(0)},
		},
		"Berlin, the last Sunday at 02:00 and 02:59 (the clock changes on it twice a year)": {
			schedule: "0,59 2 * * SUN#L", timeZone: "Europe/Berlin", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{0, 59}, hours: []int{2}, days: refNth(time.Sunday, -1)},
		},
		"New York, the second Sunday of March at 02:30: at the jump every year": {
			schedule: "30 2 * 3 SUN#2", timeZone: "America/New_York", from: from2027, to: time.Date(2032, 1, 1, 0, 0, 0, 0, time.UTC),
			want: refSchedule{minutes: []int{30}, hours: []int{2}, months: []time.Month{time.March}, days: refNth(time.Sunday, 2)},
		},
		"New York, the first Sunday of November at 01:30: the first of the two": {
			schedule: "30 1 * 11 SUN#1", timeZone: "America/New_York", from: from2027, to: time.Date(2032, 1, 1, 0, 0, 0, 0, time.UTC),
			want: refSchedule{minutes: []int{30}, hours: []int{1}, months: []time.Month{time.November}, days: refNth(time.Sunday, 1)},
		},
		"New York, LW and L-1 at 02:30 all year": {
			schedule: "30 2 LW,L-1 * *", timeZone: "America/New_York", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{30}, hours: []int{2}, days: refAny(refLastWeekday(), refLast(1))},
		},
		"Lord Howe, the first Sunday of October at 02:15: at the 30-minute jump": {
			schedule: "15 2 * 10 0#1", timeZone: "Australia/Lord_Howe", from: from2027, to: time.Date(2032, 1, 1, 0, 0, 0, 0, time.UTC),
			want: refSchedule{minutes: []int{15}, hours: []int{2}, months: []time.Month{time.October}, days: refNth(time.Sunday, 1)},
		},
		"Lord Howe, the first Sunday of April at 01:45: the first of the two": {
			schedule: "45 1 * 4 0#1", timeZone: "Australia/Lord_Howe", from: from2027, to: time.Date(2032, 1, 1, 0, 0, 0, 0, time.UTC),
			want: refSchedule{minutes: []int{45}, hours: []int{1}, months: []time.Month{time.April}, days: refNth(time.Sunday, 1)},
		},
		"Lord Howe, 1W, 15W and L at 02:15 all year": {
			schedule: "15 2 1W,15W,L * *", timeZone: "Australia/Lord_Howe", from: from2027, to: to2030,
			want: refSchedule{minutes: []int{15}, hours: []int{2}, days: refAny(refNearestWeekday(1), refNearestWeekday(15), refLast(0))},
		},
		"Berlin, hourly on L follows the clock: 23 runs on 31 March 2030": {
			schedule: "0 * L * *", timeZone: "Europe/Berlin", from: time.Date(2030, 3, 29, 0, 0, 0, 0, time.UTC), to: time.Date(2030, 4, 2, 0, 0, 0, 0, time.UTC),
			want: refSchedule{minutes: []int{0}, hours: everyHour, days: refLast(0)}, clock: true,
		},
		"Berlin, hourly on L follows the clock: 25 runs on 31 October 2027": {
			schedule: "0 * L * *", timeZone: "Europe/Berlin", from: time.Date(2027, 10, 29, 0, 0, 0, 0, time.UTC), to: time.Date(2027, 11, 2, 0, 0, 0, 0, time.UTC),
			want: refSchedule{minutes: []int{0}, hours: everyHour, days: refLast(0)}, clock: true,
		},
		"Berlin, every minute of 02:00 to 03:59 on L follows the clock: none in the skipped hour": {
			schedule: "* 2,3 L 3 *", timeZone: "Europe/Berlin", from: time.Date(2030, 3, 30, 0, 0, 0, 0, time.UTC), to: time.Date(2030, 4, 1, 0, 0, 0, 0, time.UTC),
			want: refSchedule{minutes: everyMinute, hours: []int{2, 3}, months: []time.Month{time.March}, days: refLast(0)}, clock: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sched := mustParse(t, tc.schedule, ptr.To(tc.timeZone))
			loc := time.UTC
			if tc.timeZone != "" {
				loc = mustLocation(t, tc.timeZone)
			}
			want := refFixedRuns(tc.want, loc, tc.from, tc.to)
			if tc.clock {
				want = refClockRuns(tc.want, loc, tc.from, tc.to)
			}
			if len(want) == 0 {
				t.Fatalf("the reference has no run in (%s, %s]: the case tests nothing", tc.from, tc.to)
			}
			if diff := cmp.Diff(formatRuns(want), nextRuns(sched, tc.from, tc.to)); diff != "" {
				t.Errorf("%q in %q: run times (-reference,+got):\n%s", tc.schedule, tc.timeZone, diff)
			}
		})
	}
}

func mustLocation(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// The facts the reference table rests on, written out: the first runs of each token where the calendar or
// the clock makes it interesting.
func TestMonthEndTokensExamples(t *testing.T) {
	cases := map[string]struct {
		// spec
		schedule string
		timeZone string
		// environment
		from time.Time
		// expectations: the next run times after `from`, in UTC
		want []string
	}{
		"L in February: the 29th in 2028, the 28th in 2029": {
			schedule: "0 18 L 2 *", from: MustTime("2028-01-01T00:00:00Z"),
			want: []string{"2028-02-29T18:00:00Z", "2029-02-28T18:00:00Z"},
		},
		"L in February 2100, not a leap year: the 28th": {
			schedule: "0 18 L 2 *", from: MustTime("2100-01-01T00:00:00Z"),
			want: []string{"2100-02-28T18:00:00Z"},
		},
		"L-1 and L are a day apart": {
			schedule: "0 0 L-1,L * *", from: MustTime("2028-02-01T00:00:00Z"),
			want: []string{"2028-02-28T00:00:00Z", "2028-02-29T00:00:00Z", "2028-03-30T00:00:00Z"},
		},
		"1W on Saturday 1 January 2028 is Monday the 3rd, not Friday 31 December": {
			schedule: "0 9 1W * *", from: MustTime("2027-12-15T00:00:00Z"),
			want: []string{"2028-01-03T09:00:00Z", "2028-02-01T09:00:00Z"},
		},
		"31W on Sunday 31 December 2028 is Friday the 29th, not Monday 1 January": {
			schedule: "0 9 31W * *", from: MustTime("2028-12-01T00:00:00Z"),
			want: []string{"2028-12-29T09:00:00Z", "2029-01-31T09:00:00Z"},
		},
		"LW when the month ends on a Sunday (December 2028) is Friday the 29th": {
			schedule: "0 9 LW * *", from: MustTime("2028-12-01T00:00:00Z"),
			want: []string{"2028-12-29T09:00:00Z", "2029-01-31T09:00:00Z"},
		},
		"MON#5: January and May 2028 have a fifth Monday, February to April do not": {
			schedule: "0 9 * * MON#5", from: MustTime("2028-01-01T00:00:00Z"),
			want: []string{"2028-01-31T09:00:00Z", "2028-05-29T09:00:00Z"},
		},
		"Berlin, L at 02:30 on 31 March 2030, when the clock jumps from 02:00 to 03:00: once, at the jump": {
			schedule: "30 2 L * *", timeZone: "Europe/Berlin", from: MustTime("2030-03-30T00:00:00Z"),
			want: []string{"2030-03-31T01:00:00Z", "2030-04-30T00:30:00Z"},
		},
		"Berlin, L at 02:30 on 31 October 2027, when the clock falls back from 03:00 to 02:00: once, the first time": {
			schedule: "30 2 L * *", timeZone: "Europe/Berlin", from: MustTime("2027-10-30T00:00:00Z"),
			want: []string{"2027-10-31T00:30:00Z", "2027-11-30T01:30:00Z"},
		},
		"New York, SUN#2 of March at 02:30 (12 March 2028): once, at the jump to 03:00": {
			schedule: "30 2 * 3 SUN#2", timeZone: "America/New_York", from: MustTime("2028-03-01T00:00:00Z"),
			want: []string{"2028-03-12T07:00:00Z", "2029-03-11T07:00:00Z"},
		},
		"Lord Howe, 0#1 of October at 02:15 (1 October 2028): once, at the jump from 02:00 to 02:30": {
			schedule: "15 2 * 10 0#1", timeZone: "Australia/Lord_Howe", from: MustTime("2028-09-01T00:00:00Z"),
			want: []string{"2028-09-30T15:30:00Z"},
		},
		"Lord Howe, 0#1 of April at 01:45 (2 April 2028): once, the first time (+11:00)": {
			schedule: "45 1 * 4 0#1", timeZone: "Australia/Lord_Howe", from: MustTime("2028-03-01T00:00:00Z"),
			want: []string{"2028-04-01T14:45:00Z"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sched := mustParse(t, tc.schedule, ptr.To(tc.timeZone))
			got := []string{}
			for at := tc.from; len(got) < len(tc.want); {
				if at = sched.Next(at); at.IsZero() {
					break
				}
				got = append(got, at.UTC().Format(time.RFC3339))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("next run times (-want,+got):\n%s", diff)
			}
		})
	}
}
