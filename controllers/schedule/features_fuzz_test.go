package schedule

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// FuzzCatchUpAndJitter walks the reconciles of missedRunPolicy All after a downtime, at one instant, with
// jitter: each starts the run that PlanRun and OldestCatchUp choose, and records it as the last scheduled
// time, as the controller does. Whatever the schedule, UID, jitter, downtime and cap:
//   - the runs started are strictly increasing (no time twice, oldest first), each a time the schedule has,
//     after the downtime began and due at the instant (its scheduled time plus its delay has come);
//   - at most maxCatchUpRuns start, and then nothing is due;
//   - a delay is below jitterSeconds and below the interval to the next scheduled time.
func FuzzCatchUpAndJitter(f *testing.F) {
	for _, seed := range []struct {
		schedule string
		uid      string
		jitter   uint16
		downtime uint32 // minutes
		limit    uint8
	}{
		{"* * * * *", "uid-a", 30, 600, 10}, {"0 * * * *", "uid-b", 3599, 24 * 60, 3}, {"@every 90m", "uid-c", 0, 10000, 100},
		{"30 6-16/4 * * 1-5", "uid-d", 900, 14 * 24 * 60, 7}, {"1-59/29 * * * *", "", 119, 300, 1}, {"0 0 29 2 *", "x", 60, 5 * 365 * 24 * 60, 2},
	} {
		f.Add(seed.schedule, seed.uid, seed.jitter, seed.downtime, seed.limit)
	}
	now := MustTime("2026-03-02T10:00:00Z")
	f.Fuzz(func(t *testing.T, schedule, uid string, jitter uint16, downtime uint32, limit uint8) {
		sched, _, err := Parse(schedule, ptr.To("Europe/Berlin"))
		if err != nil {
			return
		}
		jitterSeconds := int32(jitter % 3601)
		maxRuns := int(limit%100) + 1
		last := now.Add(-time.Duration(downtime%(366*24*60)) * time.Minute)
		delay := func(s time.Time) time.Duration {
			next := Next(sched, last, s)
			d := JitterDelay(uid, jitterSeconds, s, next)
			if d < 0 || (jitterSeconds > 0 && d >= time.Duration(jitterSeconds)*time.Second) || (jitterSeconds == 0 && d != 0) ||
				(!next.IsZero() && d > 0 && !s.Add(d).Before(next)) {
				t.Fatalf("schedule %q, jitter %d s: delay %v of %s is out of bounds (next %s)", schedule, jitterSeconds, d, s, next)
			}
			return d
		}
		started := 0
		for range maxRuns + 1 {
			plan := PlanRun(sched, last, now, nil, delay)
			if plan.Scheduled.IsZero() {
				return
			}
			run := plan.Scheduled
			if plan.Unmet > 1 {
				run, _ = OldestCatchUp(sched, last, plan.Since, plan.Scheduled, maxRuns)
			}
			switch {
			case !run.After(last):
				t.Fatalf("schedule %q: run %s is not after the last one, %s", schedule, run, last)
			case run.Add(delay(run)).After(now):
				t.Fatalf("schedule %q: run %s starts at %s, after now %s", schedule, run, run.Add(delay(run)), now)
			case !Next(sched, last, run.Add(-time.Nanosecond)).Equal(run):
				t.Fatalf("schedule %q: run %s is not a scheduled time", schedule, run)
			}
			started++
			if started > maxRuns {
				t.Fatalf("schedule %q, downtime %d min: %d runs started, more than maxCatchUpRuns %d", schedule, downtime, started, maxRuns)
			}
			last = run
		}
		t.Fatalf("schedule %q: a run is still due after %d runs (maxCatchUpRuns %d)", schedule, started, maxRuns)
	})
}
