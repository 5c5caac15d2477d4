// Package clocks is the one place under controllers/ that turns "no clock given" into the wall clock:
// every reconciler and the admission webhook take a clock.PassiveClock, and nil means the real one.
package clocks
