package clocks_test

import (
	"testing"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/cronjob-operator/cronjob-operator/controllers/internal/clocks"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

func TestOrReal(t *testing.T) {
	fake := clocktesting.NewFakePassiveClock(TopOfTheHour)
	cases := map[string]struct {
		given    clock.PassiveClock
		wantReal bool
		want     clock.PassiveClock // when not the real clock: the very clock given
	}{
		"no clock given: the real clock":      {wantReal: true},
		"a fake clock given: that fake clock": {given: fake, want: fake},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := clocks.OrReal(tc.given)
			if got == nil {
				t.Fatal("OrReal returned nil")
			}
			if isReal := clocks.IsReal(got); isReal != tc.wantReal {
				t.Errorf("IsReal(OrReal(%v)) = %v, want %v", tc.given, isReal, tc.wantReal)
			}
			if !tc.wantReal && got != tc.want {
				t.Errorf("OrReal(%v) = %v, want the clock given", tc.given, got)
			}
		})
	}
}

func TestIsReal(t *testing.T) {
	cases := map[string]struct {
		c    clock.PassiveClock
		want bool
	}{
		"the real clock: real":               {c: clock.RealClock{}, want: true},
		"a pointer to the real clock: real":  {c: &clock.RealClock{}, want: true},
		"a fake passive clock: not real":     {c: clocktesting.NewFakePassiveClock(TopOfTheHour)},
		"a fake clock with timers: not real": {c: clocktesting.NewFakeClock(TopOfTheHour)},
		"no clock (nil interface): not real": {},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := clocks.IsReal(tc.c); got != tc.want {
				t.Errorf("IsReal = %v, want %v", got, tc.want)
			}
		})
	}
}
