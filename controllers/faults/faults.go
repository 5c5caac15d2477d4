package faults

import (
	"errors"
	"io/fs"
	"os"
)

// The fault points, and how the e2e image is told which to arm.
const (
	// AfterJobCreate is right after a run's Job was created and before the status that records it is
	// written: the crash that leaves a Job the status does not know.
	AfterJobCreate = "after-job-create"

	// Env names the fault point to arm (AfterJobCreate), and MarkerEnv the file that
	// records that it fired, in e2e builds.
	Env       = "CRONJOB_OPERATOR_FAULT"
	MarkerEnv = "CRONJOB_OPERATOR_FAULT_MARKER"
	// ExitCode is the exit code of a manager that stopped at a fault point.
	ExitCode = 3
)

// point is called at each fault point with its name: a no-op but in e2e builds (faults_e2e.go).
var point = func(string) {}

// At is a fault point: the controller calls it with the point's name (one of the constants above).
func At(name string) { point(name) }

// exitOnceAt returns a fault point function that calls exit(ExitCode) the first time the fault point
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
		exit(ExitCode)
	}
}
