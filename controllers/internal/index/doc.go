// Package index registers the field indexes of the manager's cache that the controllers list by, in one
// place: Jobs by their controlling CronJob, and CronJobRuns by the CronJob they run.
package index
