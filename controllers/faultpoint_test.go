package controllers

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExitOnceAt(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "fault")
	var exits []int
	fire := exitOnceAt(FaultAfterJobCreate, marker, func(code int) { exits = append(exits, code) })

	fire("some-other-point")
	if len(exits) != 0 {
		t.Fatalf("exited at a fault point that is not armed: %v", exits)
	}
	fire(FaultAfterJobCreate)
	if len(exits) != 1 || exits[0] != FaultExitCode {
		t.Fatalf("exits = %v, want one exit with code %d at the armed fault point", exits, FaultExitCode)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the marker was not written: %v", err)
	}
	fire(FaultAfterJobCreate) // a restarted process reaches it again
	if len(exits) != 1 {
		t.Fatalf("exits = %v, want the fault to fire once only", exits)
	}

	disarmed := exitOnceAt("", marker, func(code int) { t.Errorf("exited with %d though nothing was armed", code) })
	disarmed(FaultAfterJobCreate)
}
