// Package controllers holds the CronJob controller: a controller-runtime reconciler that creates batch/v1
// Jobs on a cron schedule, and its admission webhooks.
//
// The code is split by concern, one file each:
//   - setup.go wires the controller into a manager (Setup: field index, event recorder, reconciler, watches,
//     webhooks) and runs it (Controller.Start); main.go and test/framework both call it;
//   - cronjob_controller.go is the orchestrator: it loads the CronJob and its Jobs, reads the clock once,
//     syncs, writes status once and returns the requeue; outcome.go is the record of what a reconcile did;
//   - sync.go decides and starts the due run (concurrency policy, deterministic Job names, adoption);
//     track.go follows the Jobs (status.active, last successful and failed times) and deletes Jobs;
//   - schedule.go and dst.go are pure schedule math that takes `now` (next and most recent scheduled times,
//     daylight saving time); history.go picks the finished Jobs beyond the history limits; jobs.go builds
//     and classifies Jobs; status.go holds the Ready condition and status.observedSchedule; edits.go reads
//     when the schedule was edited from managedFields;
//   - remember.go is what the reconciler remembers between reconciles so it does not repeat itself (a
//     Warning once per cause, a run blocked by a Job of someone else);
//   - metrics.go holds the counters and the skew histogram (metrics.Metrics, metrics.MetricNames); state_metrics.go the
//     per-CronJob state metrics, collected from the cache while the replica leads;
//   - cronjobrun_controller.go is the CronJobRun controller (manual runs and backfills): its orchestrator,
//     following a run's Job and pruning runs; cronjobrun_start.go starts a run (target time and name,
//     adoption, the concurrency policy, the create); cronjobrun_status.go its names, phases, conditions
//     and reasons; cronjobrun_setup.go its wiring (index, watches), called by Setup; next.go
//     schedule.NextRuns, the schedule math kubectl-cjo uses, and schedule.IsScheduledTime for backfills;
//   - events.go holds the event reasons; recorder.go the events.k8s.io recorder; cache.go the cache
//     options; cronjob_webhook.go the defaulting and validating webhooks; faultpoint.go and
//     faultpoint_e2e.go the crash points of the e2e image.
package controllers
