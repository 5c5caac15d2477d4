// Package cronjobrun is the CronJobRun reconciler (manual runs and backfills): it reconciles the runs of
// one CronJob together, starting each run's Job through the CronJob's concurrency policy (package
// concurrency, the rule the scheduled runs follow), following that Job into the run's phase, and deleting
// the run with its Job or after its ttlSecondsAfterFinished.
package cronjobrun
