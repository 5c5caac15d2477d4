package cronjob

import (
	"testing"

	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// TestDroppedCount: the MissedRunsDropped event says how many runs were dropped, exactly up to
// schedule.MaxMissedTimes, and "More than" beyond, where the count stops.
func TestDroppedCount(t *testing.T) {
	for n, want := range map[int]string{1: "1", schedule.MaxMissedTimes: "100", schedule.MaxMissedTimes + 1: "More than 100"} {
		if got := droppedCount(n); got != want {
			t.Errorf("droppedCount(%d) = %q, want %q", n, got, want)
		}
	}
}
