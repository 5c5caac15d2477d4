package schedule

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	cron "github.com/netresearch/go-cron"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

func mustParse(t *testing.T, schedule string, tz *string) cron.Schedule {
	t.Helper()
	s, _, err := Parse(schedule, tz)
	if err != nil {
		t.Fatalf("Parse(%q): %v", schedule, err)
	}
	return s
}

func TestParseSchedule(t *testing.T) {
	cases := map[string]struct {
		// spec
		schedule string
		timeZone *string
		// expectations
		wantReason   string // "" means no error
		wantLocation string
	}{
		"five fields, no time zone, is UTC":      {schedule: "*/5 * * * *", wantLocation: "UTC"},
		"descriptor":                             {schedule: "@hourly", wantLocation: "UTC"},
		"every":                                  {schedule: "@every 90m", wantLocation: "UTC"},
		"surrounding spaces are trimmed":         {schedule: "  0 * * * *  ", wantLocation: "UTC"},
		"time zone":                              {schedule: "0 9 * * *", timeZone: ptr.To("Europe/Berlin"), wantLocation: "Europe/Berlin"},
		"empty time zone is UTC":                 {schedule: "0 9 * * *", timeZone: ptr.To(""), wantLocation: "UTC"},
		"@every of a minute":                     {schedule: "@every 1m", wantLocation: "UTC"},
		"@every of exactly five years":           {schedule: "@every 43800h", wantLocation: "UTC"},
		"@every under a minute":                  {schedule: "@every 59s", wantReason: cronjobv1.ReasonUnparseableSchedule},
		"@every over five years (fuzz crasher)":  {schedule: "@every 700000h", wantReason: cronjobv1.ReasonUnparseableSchedule},
		"minute out of range":                    {schedule: "61 * * * *", wantReason: cronjobv1.ReasonUnparseableSchedule},
		"six fields":                             {schedule: "0 0 * * * *", wantReason: cronjobv1.ReasonUnparseableSchedule},
		"empty":                                  {schedule: "", wantReason: cronjobv1.ReasonUnparseableSchedule},
		"words":                                  {schedule: "every day at noon", wantReason: cronjobv1.ReasonUnparseableSchedule},
		"TZ= prefix":                             {schedule: "TZ=UTC 0 * * * *", wantReason: cronjobv1.ReasonUnparseableSchedule},
		"CRON_TZ= prefix":                        {schedule: "CRON_TZ=Europe/Berlin 0 * * * *", wantReason: cronjobv1.ReasonUnparseableSchedule},
		"unknown time zone":                      {schedule: "0 * * * *", timeZone: ptr.To("Mars/Olympus_Mons"), wantReason: cronjobv1.ReasonUnknownTimeZone},
		"Local is not a time zone name we allow": {schedule: "0 * * * *", timeZone: ptr.To("Local"), wantReason: cronjobv1.ReasonUnknownTimeZone},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sched, loc, err := Parse(tc.schedule, tc.timeZone)
			if tc.wantReason != "" {
				var se *Error
				if !errors.As(err, &se) {
					t.Fatalf("Parse(%q) error = %v, want a *Error", tc.schedule, err)
				}
				if se.Reason != tc.wantReason || se.Message == "" {
					t.Errorf("Parse(%q) = reason %q message %q, want reason %q and a message", tc.schedule, se.Reason, se.Message, tc.wantReason)
				}
				return
			}
			if err != nil || sched == nil {
				t.Fatalf("Parse(%q) = %v, %v; want a schedule", tc.schedule, sched, err)
			}
			if loc.String() != tc.wantLocation {
				t.Errorf("location = %s, want %s", loc, tc.wantLocation)
			}
		})
	}
}

// A time zone is loaded once per process: the second parse in it gets the same location. A name that did
// not load is refused every time, and Local stays refused after it was loaded once.
func TestParseLoadsATimeZoneOnce(t *testing.T) {
	_, first, err := Parse("0 9 * * *", ptr.To("America/Santiago"))
	if err != nil {
		t.Fatal(err)
	}
	_, second, err := Parse("30 17 * * *", ptr.To("America/Santiago"))
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Errorf("the second parse loaded America/Santiago again (%p, then %p)", first, second)
	}
	for range 2 {
		for _, tz := range []string{"Mars/Olympus_Mons", "Local", "local"} {
			var se *Error
			if _, _, err := Parse("0 * * * *", ptr.To(tz)); !errors.As(err, &se) || se.Reason != cronjobv1.ReasonUnknownTimeZone {
				t.Errorf("Parse in %q = %v, want UnknownTimeZone", tz, err)
			}
		}
	}
}

func TestMostRecentScheduleTime(t *testing.T) {
	cases := map[string]struct {
		// spec
		schedule string
		timeZone *string
		// history and environment
		since time.Time // also the @every anchor
		now   time.Time
		// expectations
		wantMostRecent time.Time // zero: none
		wantCount      int
	}{
		"not time yet": {
			schedule: "*/5 * * * *", since: TopOfTheHour, now: TopOfTheHour.Add(5*time.Minute - time.Second),
		},
		"is time, exactly": {
			schedule: "*/5 * * * *", since: TopOfTheHour, now: TopOfTheHour.Add(5 * time.Minute),
			wantMostRecent: TopOfTheHour.Add(5 * time.Minute), wantCount: 1,
		},
		"three missed": {
			schedule: "*/5 * * * *", since: TopOfTheHour, now: TopOfTheHour.Add(17 * time.Minute),
			wantMostRecent: TopOfTheHour.Add(15 * time.Minute), wantCount: 3,
		},
		"the start of the window is excluded": {
			schedule: "0 * * * *", since: TopOfTheHour, now: TopOfTheHour.Add(30 * time.Minute),
		},
		"now before since (clock went backwards)": {
			schedule: "* * * * *", since: TopOfTheHour, now: TopOfTheHour.Add(-time.Hour),
		},
		"a week overdue, minutely: capped count, exact most recent": {
			schedule: "* * * * *", since: TopOfTheHour, now: TopOfTheHour.Add(7*24*time.Hour + 30*time.Second),
			wantMostRecent: TopOfTheHour.Add(7 * 24 * time.Hour), wantCount: MaxMissedTimes + 1,
		},
		"exactly 100 missed": {
			schedule: "* * * * *", since: TopOfTheHour, now: TopOfTheHour.Add(100 * time.Minute),
			wantMostRecent: TopOfTheHour.Add(100 * time.Minute), wantCount: 100,
		},
		"irregular schedule, two months overdue, ends on a Saturday": {
			schedule: "30 6-16/4 * * 1-5", since: TopOfTheHour, now: MustTime("2026-05-02T12:00:00Z"),
			wantMostRecent: MustTime("2026-05-01T14:30:00Z"), wantCount: MaxMissedTimes + 1,
		},
		"irregular hour list, a week overdue": {
			schedule: "30 10,11,12 * * 1-5", since: TopOfTheHour, now: MustTime("2026-03-09T11:00:00Z"),
			wantMostRecent: MustTime("2026-03-09T10:30:00Z"), wantCount: 16,
		},
		"31 February never fires": {
			schedule: "0 0 31 2 *", since: TopOfTheHour, now: TopOfTheHour.Add(365 * 24 * time.Hour),
		},
		"time zone: 09:00 in Berlin is 08:00 UTC in winter": {
			schedule: "0 9 * * *", timeZone: ptr.To("Europe/Berlin"), since: TopOfTheHour.Add(-10 * time.Hour), now: MustTime("2026-03-02T08:30:00Z"),
			wantMostRecent: MustTime("2026-03-02T08:00:00Z"), wantCount: 1,
		},
		"no time zone is UTC, whatever the machine's zone": {
			schedule: "0 9 * * *", since: TopOfTheHour.Add(-10 * time.Hour), now: MustTime("2026-03-02T09:30:00Z"),
			wantMostRecent: MustTime("2026-03-02T09:00:00Z"), wantCount: 1,
		},
		"@every, never ran: counted from the anchor": {
			schedule: "@every 1h", since: TopOfTheHour.Add(7 * time.Minute), now: TopOfTheHour.Add(3*time.Hour + 30*time.Minute),
			wantMostRecent: TopOfTheHour.Add(3*time.Hour + 7*time.Minute), wantCount: 3,
		},
		"@every, not time yet": {
			schedule: "@every 1h", since: TopOfTheHour, now: TopOfTheHour.Add(59 * time.Minute),
		},
		"@every, exactly 100 missed": {
			schedule: "@every 10m", since: TopOfTheHour, now: TopOfTheHour.Add(1000 * time.Minute),
			wantMostRecent: TopOfTheHour.Add(1000 * time.Minute), wantCount: 100,
		},
		"@every, 101 missed: capped count": {
			schedule: "@every 10m", since: TopOfTheHour, now: TopOfTheHour.Add(1010 * time.Minute),
			wantMostRecent: TopOfTheHour.Add(1010 * time.Minute), wantCount: MaxMissedTimes + 1,
		},
		"@every, a year overdue": {
			schedule: "@every 10m", since: TopOfTheHour, now: TopOfTheHour.Add(365*24*time.Hour + time.Minute),
			wantMostRecent: TopOfTheHour.Add(365 * 24 * time.Hour), wantCount: MaxMissedTimes + 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sched := mustParse(t, tc.schedule, tc.timeZone)
			got, count := MostRecent(sched, tc.since, tc.since, tc.now)
			if !got.Equal(tc.wantMostRecent) || count != tc.wantCount {
				t.Errorf("MostRecent = %s, %d; want %s, %d", got, count, tc.wantMostRecent, tc.wantCount)
			}
		})
	}
}

// countingSchedule counts the calls of Next, the unit of cost of the schedule math.
type countingSchedule struct {
	cron.Schedule
	calls int
}

func (c *countingSchedule) Next(t time.Time) time.Time {
	c.calls++
	return c.Schedule.Next(t)
}

// The cost of finding the most recent missed time is bounded whatever the downtime: at most
// MaxMissedTimes+1 steps forward, then a backward search from now with doubling windows (so a few dozen
// more calls), never a walk over every missed time.
func TestMostRecentScheduleTimeCostIsBounded(t *testing.T) {
	const maxCalls = 2 * (MaxMissedTimes + 1)
	cases := map[string]struct {
		// spec
		schedule string
		// history and environment
		since, now time.Time
		// expectations
		wantMostRecent time.Time
	}{
		"minutely, a year overdue": {
			schedule: "* * * * *", since: TopOfTheHour, now: TopOfTheHour.Add(365*24*time.Hour + 30*time.Second),
			wantMostRecent: TopOfTheHour.Add(365 * 24 * time.Hour),
		},
		"minutely, four years overdue": {
			schedule: "* * * * *", since: TopOfTheHour, now: TopOfTheHour.Add(4*365*24*time.Hour + 30*time.Second),
			wantMostRecent: TopOfTheHour.Add(4 * 365 * 24 * time.Hour),
		},
		"hourly, a year overdue": {
			schedule: "0 * * * *", since: TopOfTheHour, now: MustTime("2027-03-02T10:30:00Z"),
			wantMostRecent: MustTime("2027-03-02T10:00:00Z"),
		},
		"irregular schedule, a year overdue, ends on a Saturday": {
			schedule: "30 6-16/4 * * 1-5", since: TopOfTheHour, now: MustTime("2027-05-01T12:00:00Z"),
			wantMostRecent: MustTime("2027-04-30T14:30:00Z"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sched := &countingSchedule{Schedule: mustParse(t, tc.schedule, nil)}
			got, count := MostRecent(sched, tc.since, tc.since, tc.now)
			if !got.Equal(tc.wantMostRecent) || count != MaxMissedTimes+1 {
				t.Errorf("MostRecent = %s, %d; want %s, %d", got, count, tc.wantMostRecent, MaxMissedTimes+1)
			}
			if sched.calls > maxCalls {
				t.Errorf("MostRecent called Next %d times, want at most %d", sched.calls, maxCalls)
			}
		})
	}
}

func TestPlanRun(t *testing.T) {
	cases := map[string]struct {
		// spec
		schedule string
		deadline *int64
		// history and environment
		earliest time.Time // lastScheduleTime, or creation
		now      time.Time
		delay    DelayFunc // jitter; nil for none
		// expectations
		want Plan // NextStart defaults to Next; Since is not compared
	}{
		"never ran, not time yet": {
			schedule: "0 * * * *", earliest: TopOfTheHour.Add(-30 * time.Minute), now: TopOfTheHour.Add(-time.Second),
			want: Plan{Next: TopOfTheHour},
		},
		"never ran, is time": {
			schedule: "0 * * * *", earliest: TopOfTheHour.Add(-30 * time.Minute), now: TopOfTheHour.Add(time.Second),
			want: Plan{Scheduled: TopOfTheHour, Unmet: 1, Next: TopOfTheHour.Add(time.Hour)},
		},
		"ran, not time yet": {
			schedule: "0 * * * *", earliest: TopOfTheHour, now: TopOfTheHour.Add(59 * time.Minute),
			want: Plan{Next: TopOfTheHour.Add(time.Hour)},
		},
		"within a 10 s deadline": {
			schedule: "0 * * * *", deadline: ptr.To[int64](10), earliest: TopOfTheHour.Add(-time.Hour), now: TopOfTheHour.Add(9 * time.Second),
			want: Plan{Scheduled: TopOfTheHour, Unmet: 1, Next: TopOfTheHour.Add(time.Hour)},
		},
		"exactly at a 10 s deadline still starts, as in batch/v1": {
			schedule: "0 * * * *", deadline: ptr.To[int64](10), earliest: TopOfTheHour.Add(-time.Hour), now: TopOfTheHour.Add(10 * time.Second),
			want: Plan{Scheduled: TopOfTheHour, Unmet: 1, Next: TopOfTheHour.Add(time.Hour)},
		},
		"past a 10 s deadline": {
			schedule: "0 * * * *", deadline: ptr.To[int64](10), earliest: TopOfTheHour.Add(-time.Hour), now: TopOfTheHour.Add(11 * time.Second),
			want: Plan{Missed: TopOfTheHour, Next: TopOfTheHour.Add(time.Hour)},
		},
		"a week overdue with a 2 h deadline: counts only within the deadline, both ends included": {
			schedule: "*/5 * * * *", deadline: ptr.To[int64](7200), earliest: TopOfTheHour, now: TopOfTheHour.Add(7 * 24 * time.Hour),
			want: Plan{Scheduled: TopOfTheHour.Add(7 * 24 * time.Hour), Unmet: 25, Next: TopOfTheHour.Add(7*24*time.Hour + 5*time.Minute)},
		},
		"a week overdue with no deadline": {
			schedule: "*/5 * * * *", earliest: TopOfTheHour, now: TopOfTheHour.Add(7*24*time.Hour + time.Minute),
			want: Plan{Scheduled: TopOfTheHour.Add(7 * 24 * time.Hour), Unmet: MaxMissedTimes + 1, Next: TopOfTheHour.Add(7*24*time.Hour + 5*time.Minute)},
		},
		"clock went backwards before the last scheduled time": {
			schedule: "*/5 * * * *", earliest: TopOfTheHour, now: TopOfTheHour.Add(-3 * time.Minute),
			want: Plan{Next: TopOfTheHour.Add(5 * time.Minute)},
		},
		"@every with a deadline does not lose runs (batch/v1 re-anchors at now - deadline)": {
			schedule: "@every 1h", deadline: ptr.To[int64](600), earliest: TopOfTheHour, now: TopOfTheHour.Add(time.Hour + 5*time.Minute),
			want: Plan{Scheduled: TopOfTheHour.Add(time.Hour), Unmet: 1, Next: TopOfTheHour.Add(2 * time.Hour)},
		},
		"@every past its deadline": {
			schedule: "@every 1h", deadline: ptr.To[int64](600), earliest: TopOfTheHour, now: TopOfTheHour.Add(time.Hour + 11*time.Minute),
			want: Plan{Missed: TopOfTheHour.Add(time.Hour), Next: TopOfTheHour.Add(2 * time.Hour)},
		},
		"31 February never fires": {
			schedule: "0 0 31 2 *", earliest: TopOfTheHour, now: TopOfTheHour.Add(time.Hour),
			want: Plan{},
		},
		"jitter: not due before its delay has passed": {
			schedule: "0 * * * *", earliest: TopOfTheHour.Add(-time.Hour), now: TopOfTheHour.Add(29 * time.Second), delay: thirtySeconds,
			want: Plan{Next: TopOfTheHour, NextStart: TopOfTheHour.Add(30 * time.Second)},
		},
		"jitter: due once its delay has passed": {
			schedule: "0 * * * *", earliest: TopOfTheHour.Add(-time.Hour), now: TopOfTheHour.Add(30 * time.Second), delay: thirtySeconds,
			want: Plan{Scheduled: TopOfTheHour, Unmet: 1, Next: TopOfTheHour.Add(time.Hour), NextStart: TopOfTheHour.Add(time.Hour + 30*time.Second)},
		},
		"jitter: the run before is due while the next one waits for its delay": {
			schedule: "0 * * * *", earliest: TopOfTheHour.Add(-2 * time.Hour), now: TopOfTheHour.Add(10 * time.Second), delay: thirtySeconds,
			want: Plan{Scheduled: TopOfTheHour.Add(-time.Hour), Unmet: 1, Next: TopOfTheHour, NextStart: TopOfTheHour.Add(30 * time.Second)},
		},
		"jitter: the deadline counts from the scheduled time, not from the delayed start": {
			schedule: "0 * * * *", deadline: ptr.To[int64](40), earliest: TopOfTheHour.Add(-time.Hour), now: TopOfTheHour.Add(41 * time.Second), delay: thirtySeconds,
			want: Plan{Missed: TopOfTheHour, Next: TopOfTheHour.Add(time.Hour), NextStart: TopOfTheHour.Add(time.Hour + 30*time.Second)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.want.NextStart.IsZero() {
				tc.want.NextStart = tc.want.Next
			}
			got := PlanRun(mustParse(t, tc.schedule, nil), tc.earliest, tc.now, tc.deadline, tc.delay)
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(Plan{}, "Since")); diff != "" {
				t.Errorf("PlanRun mismatch (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestRequeueAfter(t *testing.T) {
	cases := map[string]struct {
		next, now time.Time
		want      time.Duration
		wantOK    bool
	}{
		"next in five minutes":    {next: TopOfTheHour.Add(5 * time.Minute), now: TopOfTheHour, want: 5*time.Minute + RequeuePadding, wantOK: true},
		"next already passed":     {next: TopOfTheHour, now: TopOfTheHour.Add(time.Second), want: RequeuePadding, wantOK: true},
		"never fires: no requeue": {next: time.Time{}, now: TopOfTheHour},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := RequeueAfter(tc.next, tc.now)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("RequeueAfter = %v, %v; want %v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestPastDeadline(t *testing.T) {
	cases := map[string]struct {
		// spec
		deadline *int64
		// environment: the run is scheduled at 10:00
		now time.Time
		// expectations
		want bool
	}{
		"within a 10 s deadline: not past": {deadline: ptr.To[int64](10), now: TopOfTheHour.Add(9 * time.Second)},
		"exactly at a 10 s deadline: not past, as in batch/v1": {
			deadline: ptr.To[int64](10), now: TopOfTheHour.Add(10 * time.Second),
		},
		"a nanosecond past a 10 s deadline: past": {
			deadline: ptr.To[int64](10), now: TopOfTheHour.Add(10*time.Second + time.Nanosecond), want: true,
		},
		"a deadline of 0, a nanosecond late: past": {
			deadline: ptr.To[int64](0), now: TopOfTheHour.Add(time.Nanosecond), want: true,
		},
		"no deadline, a week late: never past": {now: WeekLate},
		"a deadline longer than a time.Duration holds, a week late: never past": {
			deadline: ptr.To[int64](math.MaxInt64), now: WeekLate,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := PastDeadline(TopOfTheHour, tc.now, tc.deadline); got != tc.want {
				t.Errorf("PastDeadline(10:00, %s) = %v, want %v", tc.now, got, tc.want)
			}
		})
	}
}

// thirtySeconds is a jitter of 30 s for every run.
func thirtySeconds(time.Time) time.Duration { return 30 * time.Second }
