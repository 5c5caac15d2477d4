// Package plugin holds the commands of the kubectl plugin kubectl-cjo, built with cobra on client-go (the
// plugin imports the API and the schedule math of the operator, never controller-runtime's client):
//   - plugin.go: the root command, its kubectl flags (--kubeconfig, -n/--namespace, --context, ...) and the
//     Factory that makes the client (NewKubeconfigFactory for the real one; tests give a fake cluster);
//   - client.go: the Client of the CronJob API the commands use, over client-go's REST client (NewClient);
//   - run.go: `run NAME` creates a CronJobRun and, with --wait, waits until it has finished;
//   - suspend.go: `suspend NAME` and `resume NAME` patch spec.suspend;
//   - next.go: `next NAME` prints the next scheduled times, from schedule.NextRuns (controllers/schedule).
//
// The commands read the clock (next) through an injected clock, so tests run at fixed instants.
package plugin
