package controllers

import (
	"errors"
	"io/fs"
	"os"
)

// Fault points are places in the controller where the e2e image can make the manager exit, so that an
// e2e spec crashes it at an exact moment instead of hoping a pod kill lands there. Only a build with the
// tag e2e_faults arms them (see faultpoint_e2e.go); in every other build faultPoint does nothing.
const (
	// FaultAfterJobCreate is right after a run's Job was created and before the status that records it is
	// written: the crash that leaves a Job the status does not know.
	FaultAfterJobCreate = "after-job-create"

	// FaultEnv names the fault point to arm (one of the Fault* names), and FaultMarkerEnv the file that
	// records that it fired, in e2e builds.
	FaultEnv       = "CRONJOB_OPERATOR_FAULT"
	FaultMarkerEnv = "CRONJOB_OPERATOR_FAULT_MARKER"
	// FaultExitCode is the exit code of a manager that stopped at a fault point.
	FaultExitCode = 3
)

// faultPoint is called at each fault point with its name.
var faultPoint = func(name string) {}

// exitOnceAt returns a fault point function that calls exit(FaultExitCode) the first time the fault point
// armed is reached, and does nothing at other fault points or after that. "First time" is kept in the
// file marker, created when it fires, so it holds across restarts of the process when the file lives on
// a volume that outlives the container (an emptyDir). An empty armed or marker arms nothing.
func exitOnceAt(armed, marker string, exit func(code int)) func(name string) {
	return func(name string) {
		if armed == "" || marker == "" || name != armed {
			return
		}
		f, err := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return // fired before
		}
		if err == nil {
			_, _ = f.WriteString(name + "\n")
			_ = f.Close()
		}
		// If the marker cannot be written the fault would fire forever: better once without a record
		// than a crash loop, so exit only when the marker was created.
		if err != nil {
			return
		}
		exit(FaultExitCode)
	}
}
