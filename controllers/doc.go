// Package controllers holds the CronJob controller: a controller-runtime reconciler that creates batch/v1
// Jobs on a cron schedule.
//
// The code is split by concern. schedule.go holds pure schedule math that takes `now` as an argument;
// jobs.go builds and classifies child Jobs; history.go picks the finished Jobs beyond the history limits;
// status.go holds conditions; events.go the event reasons. cronjob_controller.go is the orchestrator:
// it reads the clock once per reconcile, asks the pure functions what to do, acts, writes status once and
// returns the requeue delay.
package controllers
