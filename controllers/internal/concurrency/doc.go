// Package concurrency is a CronJob's concurrency policy (spec.concurrencyPolicy with spec.maxActiveJobs),
// encoded once: the CronJob reconciler asks it about a scheduled run, the CronJobRun reconciler about a
// manual one.
package concurrency
