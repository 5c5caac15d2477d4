package framework

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/onsi/gomega"
	"k8s.io/client-go/util/workqueue"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func TestClockWakeups(t *testing.T) {
	cases := map[string]struct {
		// environment
		timers []time.Duration // created at t0
		stop   []int           // indexes of timers stopped before the clock moves
		moveTo time.Time
		// expectations
		want []time.Time
	}{
		"no timer, no wakeup": {
			moveTo: t0,
		},
		"pending timers, earliest first": {
			timers: []time.Duration{5 * time.Minute, time.Minute},
			moveTo: t0,
			want:   []time.Time{t0.Add(time.Minute), t0.Add(5 * time.Minute)},
		},
		"a stopped timer is no wakeup": {
			timers: []time.Duration{time.Minute, 2 * time.Minute},
			stop:   []int{0},
			moveTo: t0,
			want:   []time.Time{t0.Add(2 * time.Minute)},
		},
		"a fired timer is no wakeup": {
			timers: []time.Duration{time.Minute, 2 * time.Minute},
			moveTo: t0.Add(time.Minute),
			want:   []time.Time{t0.Add(2 * time.Minute)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := NewClock(t0)
			var timers []interface{ Stop() bool }
			for _, d := range tc.timers {
				timers = append(timers, c.NewTimer(d))
			}
			for _, i := range tc.stop {
				timers[i].Stop()
			}
			c.SetTime(tc.moveTo)
			if diff := cmp.Diff(tc.want, c.Wakeups()); diff != "" {
				t.Errorf("Wakeups() (-want,+got):\n%s", diff)
			}
		})
	}
}

// TestClockSeesWorkqueueRequeue checks the assumption AdvanceTo rests on: a delaying workqueue on this
// clock turns AddAfter into a timer at the item's deadline, and moving the clock there releases the item.
func TestClockSeesWorkqueueRequeue(t *testing.T) {
	g := gomega.NewWithT(t)
	c := NewClock(t0)
	q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Clock: c})
	defer q.ShutDown()

	q.AddAfter("cronjob", 5*time.Minute)
	deadline := t0.Add(5 * time.Minute)
	g.Eventually(c.Wakeups, Timeout, Interval).Should(gomega.Equal([]time.Time{deadline}))

	c.SetTime(deadline.Add(-time.Nanosecond))
	g.Consistently(q.Len, 10*Interval, Interval).Should(gomega.BeZero(), "released before its deadline")
	c.SetTime(deadline)
	g.Eventually(q.Len, Timeout, Interval).Should(gomega.Equal(1), "not released at its deadline")
	g.Expect(c.Wakeups()).To(gomega.BeEmpty())
}

// TestClockShare checks that Shares of a clock move together but keep their own wakeups, so a spec waits
// for the manager it means and not for a timer a stopped manager left behind.
func TestClockShare(t *testing.T) {
	base := NewClock(t0)
	stopped, running := base.Share(), base.Share()
	stopped.NewTimer(time.Minute) // the last timer of a manager that stopped without stopping it
	running.NewTimer(2 * time.Minute)

	if diff := cmp.Diff([]time.Time{t0.Add(2 * time.Minute)}, running.Wakeups()); diff != "" {
		t.Errorf("running.Wakeups() (-want,+got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Time{t0.Add(time.Minute)}, stopped.Wakeups()); diff != "" {
		t.Errorf("stopped.Wakeups() (-want,+got):\n%s", diff)
	}
	if got := base.Wakeups(); len(got) != 0 {
		t.Errorf("base.Wakeups() = %v, want none: no timer was made through it", got)
	}

	running.SetTime(t0.Add(90 * time.Second))
	for name, c := range map[string]*Clock{"base": base, "stopped": stopped, "running": running} {
		if got, want := c.Now(), t0.Add(90*time.Second); !got.Equal(want) {
			t.Errorf("%s.Now() = %s, want %s: Shares must move together", name, got, want)
		}
	}
	if got := stopped.Wakeups(); len(got) != 0 {
		t.Errorf("stopped.Wakeups() = %v, want none: its timer fired when a Share moved the clock", got)
	}
}
