package faults

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExitOnceAt(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "fault")
	var exits []int
	fire := exitOnceAt(AfterJobCreate, marker, func(code int) { exits = append(exits, code) })

	fire("some-other-point")
	if len(exits) != 0 {
		t.Fatalf("exited at a fault point that is not armed: %v", exits)
	}
	fire(AfterJobCreate)
	if len(exits) != 1 || exits[0] != ExitCode {
		t.Fatalf("exits = %v, want one exit with code %d at the armed fault point", exits, ExitCode)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the marker was not written: %v", err)
	}
	fire(AfterJobCreate) // a restarted process reaches it again
	if len(exits) != 1 {
		t.Fatalf("exits = %v, want the fault to fire once only", exits)
	}

	disarmed := exitOnceAt("", marker, func(code int) { t.Errorf("exited with %d though nothing was armed", code) })
	disarmed(AfterJobCreate)
}
