// Command bench measures this project's CronJob controller side by side with the built-in one
// (kube-controller-manager --controllers=cronjob), on one envtest control plane, one controller at a time,
// interleaved (ours then the peer, then the peer then ours, ...), with the same schedules, the same client
// rate limits and the same Job watch. It writes results.json, report.md and skew.png to
// <out>/<UTC start>-<mode>/. `make bench` runs the full set, `make bench-quick` a smoke run of a few
// minutes; see bench/README.md.
//
// The command is thin: it parses the flags, plans the phases and runs them; the work is in internal
// packages:
//   - internal/rig: the envtest control plane with its audit log, the two controllers' processes and
//     their costs from /proc, and each controller's CronJob kind;
//   - internal/measure: what a phase measures: CPU and heap over a window and its idle spans, requests
//     from the audit log, the accounting of due, lost and duplicated runs from the Job watch, and a
//     controller's start from its workqueue's metrics;
//   - internal/results: the data model of a run (Run, Scenario, Result), written as results.json;
//   - internal/report: the aggregate over repetitions, report.md, skew.png and the results directory.
//
// Files of the command: main.go (flags, -mode defaults, the run loop), plan.go (the scenarios and the
// order of their phases, the host's description), scenario.go (one phase: its namespace, CronJobs and
// measurement), restart.go (the restart scenario's phase), start.go (the population's time to start),
// plan_test.go (the plan and the verdict on ours).
package main
