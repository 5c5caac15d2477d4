//go:build e2e_faults

package faults

import (
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
)

// The e2e image arms the fault point named by $CRONJOB_OPERATOR_FAULT, to fire once per marker file
// $CRONJOB_OPERATOR_FAULT_MARKER.
func init() {
	fire := exitOnceAt(os.Getenv(Env), os.Getenv(MarkerEnv), func(code int) {
		ctrl.Log.WithName("faultpoint").Info("Exiting at an armed fault point", "fault", os.Getenv(Env), "exitCode", code)
		os.Exit(code)
	})
	point = fire
}
