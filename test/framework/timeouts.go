package framework

import "time"

// Shared waits of Eventually and Consistently. Use them instead of literals so that every spec waits alike
// and a slow machine needs one change.
const (
	// Timeout bounds an Eventually that waits for the controller to act on something it was told about.
	Timeout = 10 * time.Second
	// Interval is the polling interval of Eventually and Consistently.
	Interval = 50 * time.Millisecond
	// ConsistentDuration is how long a Consistently checks that something does not happen. Specs first
	// wait for positive evidence that the controller has looked (an event, a condition, a pending
	// wakeup), so this only guards against a late second action.
	ConsistentDuration = 500 * time.Millisecond
)
