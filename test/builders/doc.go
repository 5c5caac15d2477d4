// Package builders holds fluent builders of the objects the tests of every layer use (unit, envtest
// integration, e2e), in the style of kueue's pkg/util/testing wrappers:
//
//	cj := builders.MakeCronJob("nightly", ns).Schedule("0 3 * * *").Forbid().Obj()
//	job := builders.MakeJob("nightly-29535120", ns).OwnedBy(cj).ScheduledAt(t).Succeeded(done).Obj()
//
// Make* starts from a valid object; each method changes one thing and returns the builder; Obj returns a
// copy, so one builder can produce several objects.
//
// Files: cronjob.go builds CronJobs (CronJobWrapper: spec, status, and metadata the API server would set,
// for tests without one); cronjobrun.go builds CronJobRuns (CronJobRunWrapper: manual runs and
// backfills); job.go builds Jobs (JobWrapper: owner, scheduled-at, and status as the Job controller writes
// it, which the API server's Job status validation accepts).
package builders
