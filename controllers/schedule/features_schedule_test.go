package schedule

import (
	"fmt"
	"testing"
	"time"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// The jitter of a run is a pure function of the CronJob's UID and the scheduled time: the same on every
// replica and after a restart, within [0, jitterSeconds) whole seconds, spread over CronJobs that share a
// schedule, and always shorter than the interval to the next scheduled time.
func TestJitterDelay(t *testing.T) {
	slot := TopOfTheHour
	next := slot.Add(time.Hour)
	if a, b := JitterDelay("uid-a", 600, slot, next), JitterDelay("uid-a", 600, slot, next); a != b {
		t.Errorf("two calls gave %v and %v: the delay must be deterministic", a, b)
	}
	// Pinned: a change of the hash would move every jittered run of every CronJob on an upgrade.
	if got, want := JitterDelay("cj-uid", 600, slot, next), 569*time.Second; got != want {
		t.Errorf("JitterDelay(cj-uid, 600, 10:00) = %v, want %v (the hash changed?)", got, want)
	}
	seen := map[time.Duration]bool{}
	lo, hi := time.Hour, time.Duration(0)
	for i := range 1000 {
		d := JitterDelay(fmt.Sprintf("uid-%d", i), 600, slot, next)
		if d < 0 || d >= 600*time.Second || d%time.Second != 0 {
			t.Fatalf("delay %v of uid-%d: want whole seconds in [0, 600 s)", d, i)
		}
		seen[d] = true
		lo, hi = min(lo, d), max(hi, d)
	}
	// 1,000 CronJobs over 600 values: a uniform hash leaves about 113 values unused (600 × e^-5/3).
	if len(seen) < 400 || lo > 10*time.Second || hi < 590*time.Second {
		t.Errorf("1,000 CronJobs got %d distinct delays in [%v, %v]: want at least 400 spread over [0, 600 s)", len(seen), lo, hi)
	}
	for _, tc := range []struct {
		jitter int32
		gap    time.Duration
	}{{3600, time.Minute}, {3600, 90 * time.Second}, {120, time.Minute}, {5, 1500 * time.Millisecond}} {
		for i := range 200 {
			uid := fmt.Sprintf("uid-%d", i)
			if d := JitterDelay(uid, tc.jitter, slot, slot.Add(tc.gap)); d >= tc.gap {
				t.Fatalf("jitter %d s, next run %v later: delay %v of %s is not shorter", tc.jitter, tc.gap, d, uid)
			}
		}
	}
	if d := JitterDelay("uid-a", 0, slot, next); d != 0 {
		t.Errorf("jitterSeconds 0: delay %v, want 0", d)
	}
}

// OldestCatchUp returns the oldest of the last `limit` unmet times and how many older ones are dropped,
// at a cost bounded by the limit whatever the downtime.
func TestOldestCatchUp(t *testing.T) {
	cases := map[string]struct {
		schedule      string
		anchor, since time.Time
		newest        time.Time
		limit         int
		wantOldest    time.Time
		wantDropped   int
		maxCalls      int // 0: @every, whose times are arithmetic
	}{
		"hourly, five missed, limit 3": {
			schedule: "0 * * * *", anchor: HM(5, 0), since: HM(5, 0), newest: TopOfTheHour, limit: 3,
			wantOldest: HM(8, 0), wantDropped: 2, maxCalls: 60,
		},
		"hourly, two missed, limit 10: the first after since": {
			schedule: "0 * * * *", anchor: HM(8, 0), since: HM(8, 0), newest: TopOfTheHour, limit: 10,
			wantOldest: HM(9, 0), wantDropped: 0, maxCalls: 60,
		},
		"minutely, a year down, limit 100: the last 100 minutes, more than 100 dropped": {
			schedule: "* * * * *", anchor: TopOfTheHour.AddDate(-1, 0, 0), since: TopOfTheHour.AddDate(-1, 0, 0), newest: TopOfTheHour, limit: 100,
			wantOldest: TopOfTheHour.Add(-99 * time.Minute), wantDropped: MaxMissedTimes + 1, maxCalls: 700,
		},
		"irregular, weekdays 06:30-14:30 every 4 h, a week down, limit 4": {
			schedule: "30 6-16/4 * * 1-5", anchor: HM(5, 0).AddDate(0, 0, -7), since: HM(5, 0).AddDate(0, 0, -7), newest: HM(6, 30), limit: 4,
			// 16 times since the Monday before (5 days × 3, and Monday 06:30); the last 4 go back to Friday 06:30.
			wantOldest: HM(6, 30).AddDate(0, 0, -3), wantDropped: 12, maxCalls: 400,
		},
		"four times in the window found last, twice the limit of 2: the last 2 of them": {
			// The windows (09:59, 10:00], (09:58, 10:00] and (09:56, 10:00] hold only 10:00; (09:52, 10:00]
			// holds 09:53, 09:54, 09:55 and 10:00.
			schedule: "0,53-55 * * * *", anchor: HM(9, 30), since: HM(9, 30), newest: TopOfTheHour, limit: 2,
			wantOldest: HM(9, 55), wantDropped: 2, maxCalls: 60,
		},
		"@every 1h, since 05:00 (anchored at 00:00), limit 3: the first unmet time counts from since": {
			schedule: "@every 1h", anchor: HM(0, 0), since: HM(5, 0), newest: TopOfTheHour, limit: 3,
			wantOldest: HM(8, 0), wantDropped: 2, maxCalls: 0,
		},
		"@every 1h, exactly one missed": {
			schedule: "@every 1h", anchor: HM(0, 0), since: HM(9, 0), newest: TopOfTheHour, limit: 3,
			wantOldest: TopOfTheHour, wantDropped: 0, maxCalls: 0,
		},
		"@every 1m, a year down, limit 100: more than 100 dropped": {
			schedule: "@every 1m", anchor: TopOfTheHour.AddDate(-1, 0, 0), since: TopOfTheHour.AddDate(-1, 0, 0), newest: TopOfTheHour, limit: 100,
			wantOldest: TopOfTheHour.Add(-99 * time.Minute), wantDropped: MaxMissedTimes + 1, maxCalls: 0,
		},
		"@every 90m, anchored at creation, a day down, limit 5": {
			schedule: "@every 90m", anchor: HM(0, 0), since: HM(0, 0), newest: HM(0, 0).Add(16 * 90 * time.Minute), limit: 5,
			wantOldest: HM(0, 0).Add(12 * 90 * time.Minute), wantDropped: 11, maxCalls: 0,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sched := &countingSchedule{Schedule: mustParse(t, tc.schedule, nil)}
			var oldest time.Time
			var dropped int
			if tc.maxCalls == 0 { // @every: arithmetic, no walk
				oldest, dropped = OldestCatchUp(sched.Schedule, tc.anchor, tc.since, tc.newest, tc.limit)
			} else {
				oldest, dropped = OldestCatchUp(sched, tc.anchor, tc.since, tc.newest, tc.limit)
			}
			if !oldest.Equal(tc.wantOldest) || dropped != tc.wantDropped {
				t.Errorf("OldestCatchUp = %s, %d dropped; want %s, %d", oldest, dropped, tc.wantOldest, tc.wantDropped)
			}
			if tc.maxCalls > 0 && sched.calls > tc.maxCalls {
				t.Errorf("called Next %d times, want at most %d", sched.calls, tc.maxCalls)
			}
		})
	}
}

// ShortestInterval is what admission compares spec.jitterSeconds with: the shortest interval between two
// consecutive scheduled times from 2026-03-02 10:00 UTC on.
func TestShortestInterval(t *testing.T) {
	for schedule, want := range map[string]time.Duration{
		"* * * * *":         time.Minute,
		"0,1 0 * * *":       time.Minute,          // 00:00 and 00:01, though most intervals are a day
		"1-59/29 * * * *":   2 * time.Minute,      // :59 to :01 of the next hour
		"59 23 * * *":       24 * time.Hour,       // no shorter interval across midnight
		"0 9 * * 1-5":       24 * time.Hour,       // Monday to Friday; the weekend is longer
		"0 0 1 1 *":         365 * 24 * time.Hour, // 2027-01-01 to 2028-01-01, past the year looked at
		"@every 90m":        90 * time.Minute,     // the interval itself
		"30 6-16/4 * * 1-5": 4 * time.Hour,        // 06:30, 10:30, 14:30
		"0 0 31 2 *":        0,                    // never fires
	} {
		if got := ShortestInterval(mustParse(t, schedule, nil), TopOfTheHour); got != want {
			t.Errorf("ShortestInterval(%q) = %v, want %v", schedule, got, want)
		}
	}
}
