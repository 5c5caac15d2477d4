// Command kubectl-cjo is the kubectl plugin of cronjob-operator (`kubectl cjo ...` once it is on PATH):
// run a CronJob now or for a past scheduled time (a CronJobRun), suspend and resume it, and print its next
// scheduled times with the controller's own schedule math. `make plugin` builds it into bin/.
package main

import (
	"os"
	_ "time/tzdata" // spec.timeZone must resolve wherever the plugin runs.

	"github.com/cronjob-operator/cronjob-operator/cmd/kubectl-cjo/plugin"
)

func main() {
	cmd := plugin.NewCommand(plugin.NewKubeconfigFactory(), nil, os.Stdout, os.Stderr)
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
