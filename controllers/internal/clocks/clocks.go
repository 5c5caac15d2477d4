package clocks

import "k8s.io/utils/clock"

// OrReal returns c, or the real clock when c is nil.
func OrReal(c clock.PassiveClock) clock.PassiveClock {
	if c == nil {
		return clock.RealClock{}
	}
	return c
}

// IsReal reports whether c is the real clock, whose timers need no wiring into a workqueue.
func IsReal(c clock.PassiveClock) bool {
	switch c.(type) {
	case clock.RealClock, *clock.RealClock:
		return true
	}
	return false
}
