package cronjob

import (
	"time"
)

// Outcome is what one reconcile of a CronJob did: what became of the run that was due, which Jobs it
// deleted, whether it wrote status, and when it asked to run again. Reconcile hands it to OnReconcile.
type Outcome struct {
	// Run is what became of the run that was due; RunNone when none was.
	Run RunOutcome
	// Scheduled is the scheduled time of that run; zero with RunNone.
	Scheduled time.Time
	// Job is the name of that run's Job: created, adopted, or held by someone else (RunBlocked).
	Job string
	// Dequeued is the scheduled time of the queued run (concurrencyPolicy Enqueue) whose Job this reconcile
	// created or adopted before it looked at the run due now; zero if none.
	Dequeued time.Time
	// Deleted lists the Jobs deleted (history limits, Replace), in order.
	Deleted []string
	// Status says whether the status was written.
	Status StatusWrite
	// RequeueAfter is when the reconcile asked to run again: the next scheduled time plus
	// schedule.RequeuePadding, conflict.RequeueDelay after a conflict, or 0 (only on a change, with Err, or with
	// StatusDeferred, which queues the CronJob itself).
	RequeueAfter time.Duration
	// Err is the error returned to the workqueue, which retries with backoff; nil if none.
	Err error
}

// RunOutcome is what became of the run that was due in a reconcile.
type RunOutcome string

const (
	// RunNone: no run was due.
	RunNone RunOutcome = ""
	// RunCreated: the run's Job was created.
	RunCreated RunOutcome = "Created"
	// RunAdopted: a Job of this CronJob for the run existed already (a create whose status write was lost,
	// or a cache behind the API server) and now counts as the run.
	RunAdopted RunOutcome = "Adopted"
	// RunSkipped: concurrencyPolicy Forbid and a Job is active, or Allow and maxActiveJobs are active
	// (JobAlreadyActive), or Enqueue and the queue is full (QueueFull); retried while within
	// startingDeadlineSeconds.
	RunSkipped RunOutcome = "Skipped"
	// RunMissed: the most recent scheduled time is past startingDeadlineSeconds (MissSchedule).
	RunMissed RunOutcome = "Missed"
	// RunBlocked: a Job of someone else holds the run's name (FailedCreate); retried when that Job changes
	// or goes, or when the CronJob's spec changes.
	RunBlocked RunOutcome = "Blocked"
	// RunFailed: the Job could not be created, or the Replace policy could not delete an active Job; the
	// error is in Err and the reconcile is retried.
	RunFailed RunOutcome = "Failed"
	// RunQueued: concurrencyPolicy Enqueue put the run in status.queued (maxActiveJobs Jobs are active, or
	// older runs are queued).
	RunQueued RunOutcome = "Queued"
	// RunNamespaceTerminating: the namespace is being deleted, so no Job can be created there.
	RunNamespaceTerminating RunOutcome = "NamespaceTerminating"
)

// StatusWrite says whether a reconcile wrote the CronJob's status.
type StatusWrite string

const (
	// StatusUnchanged: nothing changed, nothing was written.
	StatusUnchanged StatusWrite = ""
	// StatusWritten: the status was written.
	StatusWritten StatusWrite = "Written"
	// StatusDeferred: the reconcile created a run's Job while other reconciles waited, and left the
	// status it computed to the next reconcile of the CronJob, which it queued behind them (deferred.go).
	StatusDeferred StatusWrite = "Deferred"
	// StatusConflicted: the write met a newer CronJob on the server (the cache was behind); the reconcile
	// is requeued after conflict.RequeueDelay and redoes its work, which is idempotent.
	StatusConflicted StatusWrite = "Conflicted"
)
