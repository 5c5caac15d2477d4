// Package cronjobrun is the CronJobRun reconciler (manual runs and backfills): it starts a run's Job
// through the CronJob's concurrency policy (package concurrency, the rule the scheduled runs follow), follows
// that Job into the run's phase, and deletes the run with its Job or after its ttlSecondsAfterFinished.
package cronjobrun
