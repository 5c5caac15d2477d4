// Package cronjob is the CronJob reconciler: for each CronJob it follows the Jobs, prunes the history,
// decides which run is due and what the concurrency policy says of it (decide.go, pure), acts on that
// decision, writes the status once and requeues itself for the next scheduled time.
package cronjob
