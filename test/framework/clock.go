package framework

import (
	"slices"
	"sync"
	"time"

	"github.com/onsi/gomega"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// Clock is the fake clock of a manager: a k8s.io/utils/clock/testing FakeClock that the controller reads and
// its workqueue waits on, so a RequeueAfter elapses only when the spec moves the clock.
//
// It also keeps the times the workqueue asked to be woken at (the workqueue sets one timer for its earliest
// delayed item, such as the RequeueAfter of the last reconcile). A spec that moves the clock past a
// scheduled time should first wait until the controller has asked to be woken for it, with AdvanceTo:
// controller-runtime turns RequeueAfter into a deadline by reading the clock again after Reconcile
// returns, so a clock moved in between would push the deadline past the new time and the run would not
// happen.
//
// The workqueue's error backoff runs on this clock too: a reconcile that failed (say, on a status write
// conflict) is retried only when the clock moves. Such a retry shows in Wakeups a few milliseconds after
// the time it failed at, and masks the later RequeueAfter (the workqueue keeps one deadline per object,
// the earliest); moving the clock past it runs the retry, which requeues for the next run again.
//
// A spec with several managers on one time line (leader election, a restart) gives each manager its own
// Share of one Clock: they show the same time and move together, but each records only the wakeups of its
// own manager. A stopped manager's workqueue leaves its last timer pending, which must not pass for the
// wakeup of the manager that runs now.
type Clock struct {
	*testingclock.FakeClock

	// mu is shared by all the Shares of a clock. It serialises NewTimer with moves of the clock, so a
	// timer's deadline is exact.
	mu     *sync.Mutex
	timers map[*wakeupTimer]struct{} // this Share's timers
}

var _ clock.WithTicker = &Clock{}

// NewClock returns a Clock set to t.
func NewClock(t time.Time) *Clock {
	return &Clock{FakeClock: testingclock.NewFakeClock(t), mu: &sync.Mutex{}, timers: map[*wakeupTimer]struct{}{}}
}

// Share returns a Clock that shows the same time as c and moves whenever c (or any other Share of it)
// moves, but whose Wakeups are only those of the timers made through it. Give one to each manager that
// must act on the same time line.
func (c *Clock) Share() *Clock {
	return &Clock{FakeClock: c.FakeClock, mu: c.mu, timers: map[*wakeupTimer]struct{}{}}
}

// NewTimer is FakeClock.NewTimer, remembering the timer's deadline until it fires or is stopped.
func (c *Clock) NewTimer(d time.Duration) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &wakeupTimer{Timer: c.FakeClock.NewTimer(d), clock: c, at: c.FakeClock.Now().Add(d)}
	c.timers[t] = struct{}{}
	return t
}

// SetTime sets the clock (and all its Shares) to t and fires the timers and tickers due by then.
func (c *Clock) SetTime(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.FakeClock.SetTime(t)
}

// Step moves the clock (and all its Shares) by d and fires the timers and tickers due by then.
func (c *Clock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.FakeClock.Step(d)
}

// Sleep is Step: a fake clock does not wait.
func (c *Clock) Sleep(d time.Duration) { c.Step(d) }

// Wakeups returns, earliest first, the deadlines of the timers that are still pending: the times the
// controller's workqueue will next look at its delayed items. Empty means the controller has asked for
// no wakeup (nothing is requeued for later).
func (c *Clock) Wakeups() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.FakeClock.Now()
	var at []time.Time
	for t := range c.timers {
		if !t.at.After(now) { // fired
			delete(c.timers, t)
			continue
		}
		at = append(at, t.at)
	}
	slices.SortFunc(at, time.Time.Compare)
	return at
}

// WakeupBy reports whether the controller has asked to be woken at some time after now and at or before t.
func (c *Clock) WakeupBy(t time.Time) bool {
	at := c.Wakeups()
	return len(at) > 0 && !at[0].After(t)
}

// AdvanceTo waits (up to Timeout) until the controller has asked to be woken at or before t, then sets the
// clock to t, which wakes it. It fails the spec if no such wakeup comes, which means the controller did
// not requeue itself for a time it should act at.
func (c *Clock) AdvanceTo(t time.Time) {
	// Wakeups reads memory only, so poll it often: a spec that steps through a day of minutes calls this
	// once a minute.
	gomega.EventuallyWithOffset(1, func() []time.Time { return c.Wakeups() }, Timeout, time.Millisecond).Should(
		gomega.ContainElement(gomega.BeTemporally("<=", t)),
		"the controller has not asked to be woken at or before %s", t.Format(time.RFC3339Nano))
	c.SetTime(t)
}

// wakeupTimer is a fake timer whose deadline the Clock remembers until it is stopped or fires.
type wakeupTimer struct {
	clock.Timer
	clock *Clock
	at    time.Time
}

func (t *wakeupTimer) Stop() bool {
	stopped := t.Timer.Stop()
	t.clock.mu.Lock()
	delete(t.clock.timers, t)
	t.clock.mu.Unlock()
	return stopped
}

func (t *wakeupTimer) Reset(d time.Duration) bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	active := t.Timer.Reset(d)
	t.at = t.clock.FakeClock.Now().Add(d)
	t.clock.timers[t] = struct{}{}
	return active
}
