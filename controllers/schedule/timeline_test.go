package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// times walks sched from `after` and returns its next n times in UTC.
func times(sched interface{ Next(time.Time) time.Time }, after time.Time, n int) []time.Time {
	var out []time.Time
	for t := sched.Next(after); !t.IsZero() && len(out) < n; t = sched.Next(t) {
		out = append(out, t.UTC())
	}
	return out
}

func forCronJob(t *testing.T, w *builders.CronJobWrapper) interface{ Next(time.Time) time.Time } {
	t.Helper()
	sched, _, err := ForScheduler(w.Obj(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return sched
}

func TestUnionOfSchedules(t *testing.T) {
	cases := map[string]struct {
		// spec
		schedules []string
		timeZone  string
		// environment
		after time.Time
		n     int
		// expectations: UTC
		want []string
	}{
		"two schedules meeting at 9:00 give one run then, in order": {
			schedules: []string{"0 9 * * *", "0 9,17 * * *"},
			after:     MustTime("2026-03-02T00:00:00Z"), n: 4,
			want: []string{"2026-03-02T09:00:00Z", "2026-03-02T17:00:00Z", "2026-03-03T09:00:00Z", "2026-03-03T17:00:00Z"},
		},
		"9:00 in Berlin and 9:00 in New York, across New York's change to summer time": {
			schedules: []string{"0 9 * * * @ Europe/Berlin", "0 9 * * * @ America/New_York"},
			after:     MustTime("2026-03-07T00:00:00Z"), n: 4,
			want: []string{"2026-03-07T08:00:00Z", "2026-03-07T14:00:00Z", "2026-03-08T08:00:00Z", "2026-03-08T13:00:00Z"},
		},
		"an entry without a zone takes spec.timeZone": {
			schedules: []string{"0 9 * * *", "0 9 * * * @ UTC"},
			timeZone:  "Europe/Berlin",
			after:     MustTime("2026-01-05T00:00:00Z"), n: 3,
			want: []string{"2026-01-05T08:00:00Z", "2026-01-05T09:00:00Z", "2026-01-06T08:00:00Z"},
		},
		"02:30 skipped by the spring-forward runs at the jump, the same instant as 03:00: once": {
			schedules: []string{"30 2 * * *", "0 3 * * *"},
			timeZone:  "Europe/Berlin",
			after:     MustTime("2026-03-28T12:00:00Z"), n: 3,
			want: []string{"2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z", "2026-03-30T01:00:00Z"},
		},
		"02:30 repeated by the fall-back runs once, at its first occurrence, beside a 02:45 schedule": {
			schedules: []string{"30 2 * * *", "45 2 * * *"},
			timeZone:  "Europe/Berlin",
			after:     MustTime("2026-10-24T12:00:00Z"), n: 3,
			want: []string{"2026-10-25T00:30:00Z", "2026-10-25T00:45:00Z", "2026-10-26T01:30:00Z"},
		},
		"one entry is that schedule": {
			schedules: []string{"*/20 * * * *"},
			after:     MustTime("2026-03-02T00:00:00Z"), n: 2,
			want: []string{"2026-03-02T00:20:00Z", "2026-03-02T00:40:00Z"},
		},
		"an entry that never fires leaves the others": {
			schedules: []string{"0 0 31 2 *", "0 12 * * *"},
			after:     MustTime("2026-03-02T00:00:00Z"), n: 2,
			want: []string{"2026-03-02T12:00:00Z", "2026-03-03T12:00:00Z"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := builders.MakeCronJob("multi", "ns").Schedules(tc.schedules...)
			if tc.timeZone != "" {
				w = w.TimeZone(tc.timeZone)
			}
			var want []time.Time
			for _, s := range tc.want {
				want = append(want, MustTime(s))
			}
			if diff := cmp.Diff(want, times(forCronJob(t, w), tc.after, tc.n)); diff != "" {
				t.Errorf("times (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestActiveWindowAndSuspendUntil(t *testing.T) {
	nine := MustTime("2026-03-02T09:00:00Z")
	cases := map[string]struct {
		// spec: hourly at :00, created at 08:30
		notBefore, notAfter, suspendUntil time.Time
		deadline                          int64
		// environment
		now time.Time
		// expectations
		wantScheduled, wantMissed, wantNext time.Time
		wantUnmet                           int
	}{
		"notBefore at a scheduled time: that time runs": {
			notBefore: nine, now: nine,
			wantScheduled: nine, wantUnmet: 1, wantNext: nine.Add(time.Hour),
		},
		"notBefore 1 ns after a scheduled time: it is no run at all, not a missed one": {
			notBefore: nine.Add(time.Nanosecond), now: nine, deadline: 60,
			wantNext: nine.Add(time.Hour),
		},
		"notBefore later: the times before it are not unmet": {
			notBefore: nine.Add(90 * time.Minute), now: nine.Add(2 * time.Hour),
			wantScheduled: nine.Add(2 * time.Hour), wantUnmet: 1, wantNext: nine.Add(3 * time.Hour),
		},
		"notAfter at a scheduled time: that time runs, none after it": {
			notAfter: nine, now: nine,
			wantScheduled: nine, wantUnmet: 1,
		},
		"notAfter 1 ns before a scheduled time: nothing is due or next": {
			notAfter: nine.Add(-time.Nanosecond), now: nine,
		},
		"suspendUntil at a scheduled time: that time runs": {
			suspendUntil: nine, now: nine,
			wantScheduled: nine, wantUnmet: 1, wantNext: nine.Add(time.Hour),
		},
		"suspendUntil 1 ns after a scheduled time: it does not run and is not missed, even with a deadline": {
			suspendUntil: nine.Add(time.Nanosecond), now: nine.Add(2 * time.Minute), deadline: 60,
			wantNext: nine.Add(time.Hour),
		},
		"suspendUntil in the future: the next run is the first at or after it": {
			suspendUntil: nine.Add(150 * time.Minute), now: nine,
			wantNext: nine.Add(3 * time.Hour),
		},
		"suspendUntil passed half an hour ago: only the times after it are unmet": {
			suspendUntil: nine.Add(90 * time.Minute), now: nine.Add(2 * time.Hour),
			wantScheduled: nine.Add(2 * time.Hour), wantUnmet: 1, wantNext: nine.Add(3 * time.Hour),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := builders.MakeCronJob("w", "ns").Schedule("0 * * * *").CreationTimestamp(MustTime("2026-03-02T08:30:00Z"))
			if !tc.notBefore.IsZero() || !tc.notAfter.IsZero() {
				w = w.ActiveWindow(tc.notBefore, tc.notAfter)
			}
			if !tc.suspendUntil.IsZero() {
				w = w.SuspendUntil(tc.suspendUntil)
			}
			var deadline *int64
			if tc.deadline > 0 {
				deadline = &tc.deadline
				w = w.StartingDeadlineSeconds(tc.deadline)
			}
			cj := w.Obj()
			sched, _, err := ForScheduler(cj, nil)
			if err != nil {
				t.Fatal(err)
			}
			plan := PlanRun(sched, EarliestTime(cj), tc.now, deadline, nil)
			got := struct {
				Scheduled, Missed, Next time.Time
				Unmet                   int
			}{plan.Scheduled, plan.Missed, plan.Next, plan.Unmet}
			want := struct {
				Scheduled, Missed, Next time.Time
				Unmet                   int
			}{tc.wantScheduled, tc.wantMissed, tc.wantNext, tc.wantUnmet}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("plan (-want,+got):\n%s", diff)
			}
		})
	}
}

// excludedSet is a calendar that excludes the instants it holds.
type excludedSet map[time.Time]bool

func (e excludedSet) Excluded(t time.Time) (bool, string) { return e[t.UTC()], "on the list" }

func TestCalendarExclusion(t *testing.T) {
	ten, eleven := MustTime("2026-03-02T10:00:00Z"), MustTime("2026-03-02T11:00:00Z")
	cal := excludedSet{ten: true, eleven: true}
	cj := builders.MakeCronJob("c", "ns").Schedule("0 * * * *").Calendars("holidays").
		CreationTimestamp(MustTime("2026-03-02T08:30:00Z")).Obj()
	sched, _, err := ForScheduler(cj, Calendars{"holidays": cal})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("an excluded time never runs and is not next", func(t *testing.T) {
		want := []time.Time{MustTime("2026-03-02T09:00:00Z"), MustTime("2026-03-02T12:00:00Z"), MustTime("2026-03-02T13:00:00Z")}
		if diff := cmp.Diff(want, times(sched, MustTime("2026-03-02T08:30:00Z"), 3)); diff != "" {
			t.Errorf("times (-want,+got):\n%s", diff)
		}
		plan := PlanRun(sched, MustTime("2026-03-02T09:00:00Z"), eleven.Add(time.Minute), nil, nil)
		if !plan.Scheduled.IsZero() || !plan.Missed.IsZero() || !plan.Next.Equal(MustTime("2026-03-02T12:00:00Z")) {
			t.Errorf("plan at 11:01 after the 9:00 run: scheduled %v, missed %v, next %v; want none, none, 12:00", plan.Scheduled, plan.Missed, plan.Next)
		}
	})
	t.Run("the excluded times of a span are reported oldest first, with the calendar's name", func(t *testing.T) {
		got, n := ExcludedBetween(sched, MustTime("2026-03-02T09:00:00Z"), MustTime("2026-03-02T12:00:00Z"), 10)
		want := []ExcludedTime{{ten, "calendar holidays: on the list"}, {eleven, "calendar holidays: on the list"}}
		if diff := cmp.Diff(want, got); diff != "" || n != 2 {
			t.Errorf("excluded (-want,+got):\n%s\ncount %d, want 2", diff, n)
		}
		got, n = ExcludedBetween(sched, MustTime("2026-03-02T09:00:00Z"), MustTime("2026-03-02T12:00:00Z"), 1)
		if diff := cmp.Diff(want[1:], got); diff != "" || n != 2 {
			t.Errorf("with max 1, the newest (-want,+got):\n%s\ncount %d, want 2", diff, n)
		}
		if got, n := ExcludedBetween(sched, ten, ten.Add(59*time.Minute), 10); len(got) != 0 || n != 0 {
			t.Errorf("after 10:00 until 10:59: %v (%d), want none (the bound after is exclusive)", got, n)
		}
	})
	t.Run("the next excluded time comes before the next run", func(t *testing.T) {
		if got := NextExcluded(sched, MustTime("2026-03-02T09:00:00Z")); !got.Equal(ten) {
			t.Errorf("NextExcluded after 9:00 = %v, want 10:00", got)
		}
		if got := NextExcluded(sched, eleven); !got.IsZero() {
			t.Errorf("NextExcluded after 11:00 = %v, want none (12:00 runs)", got)
		}
	})
	t.Run("a calendar that excludes everything stops the walk: no next time", func(t *testing.T) {
		cj := builders.MakeCronJob("c", "ns").Schedule("* * * * *").Calendars("all").Obj()
		sched, _, err := ForScheduler(cj, Calendars{"all": excludeAll{}})
		if err != nil {
			t.Fatal(err)
		}
		if got := sched.Next(ten); !got.IsZero() {
			t.Errorf("Next = %v, want none", got)
		}
	})
}

type excludeAll struct{}

func (excludeAll) Excluded(time.Time) (bool, string) { return true, "always" }

// An @every schedule wrapped by the exclusions keeps its times: the anchor plus whole intervals.
func TestEveryUnderAWindow(t *testing.T) {
	created := MustTime("2026-03-02T08:07:00Z")
	plain := builders.MakeCronJob("e", "ns").Schedule("@every 90m").CreationTimestamp(created).Obj()
	p, _, err := ForScheduler(plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := forCronJob(t, builders.MakeCronJob("e", "ns").Schedule("@every 90m").CreationTimestamp(created).ActiveWindow(created, time.Time{}))
	for _, after := range []time.Time{created, created.Add(time.Minute), created.Add(90 * time.Minute), created.Add(1000 * time.Minute)} {
		if want, got := Next(p, EarliestTime(plain), after), w.Next(after); !want.Equal(got) {
			t.Errorf("after %v: %v, want %v", after, got, want)
		}
	}
	if got := (anchoredEvery{anchor: created, delay: 90 * time.Minute}).Next(created.Add(-91 * time.Minute)); !got.Equal(created.Add(-90 * time.Minute)) {
		t.Errorf("before the anchor: %v, want the anchor minus one interval", got)
	}
}

func TestForCronJobErrors(t *testing.T) {
	cases := map[string]struct {
		cj        *builders.CronJobWrapper
		wantField string
		wantIn    string
	}{
		"an unknown zone of an entry names the entry": {
			cj:        builders.MakeCronJob("e", "ns").Schedules("0 9 * * *", "0 9 * * * @ Mars/Olympus"),
			wantField: "spec.schedules[1].timeZone", wantIn: `spec.schedules[1].timeZone "Mars/Olympus" is not a known IANA time zone`,
		},
		"a bad expression of an entry names the entry": {
			cj:        builders.MakeCronJob("e", "ns").Schedules("0 25 * * *"),
			wantField: "spec.schedules[0].schedule", wantIn: `spec.schedules[0].schedule "0 25 * * *" is not a valid cron schedule`,
		},
		"@every in schedules is refused with what to do": {
			cj:        builders.MakeCronJob("e", "ns").Schedules("0 9 * * *", "@every 2h"),
			wantField: "spec.schedules[1].schedule", wantIn: "use spec.schedule for an @every schedule",
		},
		"a calendar that does not exist": {
			cj:        builders.MakeCronJob("e", "ns").Calendars("nope"),
			wantField: "spec.calendars", wantIn: `CronCalendar "nope" does not exist in namespace ns`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := ForScheduler(tc.cj.Obj(), Calendars{})
			se, ok := err.(*Error)
			if !ok {
				t.Fatalf("err = %v, want *Error", err)
			}
			if se.Field != tc.wantField || !strings.Contains(se.Message, tc.wantIn) {
				t.Errorf("field %q, message %q; want field %q and a message with %q", se.Field, se.Message, tc.wantField, tc.wantIn)
			}
		})
	}
}

// FuzzUnionOfSchedules checks the union of two schedules against a merge of their own times: strictly
// increasing, each instant once, none left out.
func FuzzUnionOfSchedules(f *testing.F) {
	pool := []string{"0 9 * * *", "*/15 * * * *", "30 2 * * *", "0 3 * * *", "0 0 1 * *", "45 1 * * 0", "0 9,17 * * 1-5", "0 0 29 2 *",
		"0 18 L * *", "30 2 L-1 * *", "0 8 LW * *", "0 7 15W * *", "0 9 * * MON#1", "30 2 * * SUN#L"}
	zones := []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe"}
	f.Add(uint8(0), uint8(1), uint8(1), uint8(2), int64(0))
	f.Add(uint8(2), uint8(3), uint8(1), uint8(1), int64(86400*200))
	f.Fuzz(func(t *testing.T, a, b, za, zb uint8, offset int64) {
		ea := pool[int(a)%len(pool)] + " @ " + zones[int(za)%len(zones)]
		eb := pool[int(b)%len(pool)] + " @ " + zones[int(zb)%len(zones)]
		start := MustTime("2026-01-01T00:00:00Z").Add(time.Duration(offset%(86400*730)) * time.Second)
		u := forCronJob(t, builders.MakeCronJob("f", "ns").Schedules(ea, eb))
		sa := forCronJob(t, builders.MakeCronJob("f", "ns").Schedules(ea))
		sb := forCronJob(t, builders.MakeCronJob("f", "ns").Schedules(eb))
		got := times(u, start, 40)
		if len(got) == 0 {
			return
		}
		end := got[len(got)-1]
		seen := map[time.Time]bool{}
		for _, s := range []interface{ Next(time.Time) time.Time }{sa, sb} {
			for t := s.Next(start); !t.IsZero() && !t.After(end); t = s.Next(t) {
				seen[t.UTC()] = true
			}
		}
		if len(seen) != len(got) {
			t.Fatalf("%q + %q from %v: union has %d times up to %v, the members %d distinct ones", ea, eb, start, len(got), end, len(seen))
		}
		for i, g := range got {
			if !seen[g] || (i > 0 && !g.After(got[i-1])) {
				t.Fatalf("%q + %q from %v: time %d %v is not a member's, or not after the one before", ea, eb, start, i, g)
			}
		}
	})
}
