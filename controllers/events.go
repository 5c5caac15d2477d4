package controllers

import cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"

// Event reasons. Where the meaning is the same, the reason is the one users know from the built-in
// batch/v1 CronJob controller.
const (
	// ReasonSuccessfulCreate (Normal): a Job was created for a scheduled time.
	ReasonSuccessfulCreate = "SuccessfulCreate"
	// ReasonFailedCreate (Warning): a Job could not be created, or a Job of that name exists and belongs to
	// someone else.
	ReasonFailedCreate = cronjobv1.ReasonFailedCreate
	// ReasonSuccessfulDelete (Normal): a Job was deleted by the Replace policy or the history limits.
	ReasonSuccessfulDelete = "SuccessfulDelete"
	// ReasonFailedDelete (Warning): a Job could not be deleted.
	ReasonFailedDelete = "FailedDelete"
	// ReasonJobAlreadyActive (Normal): a run was skipped because of concurrencyPolicy Forbid.
	ReasonJobAlreadyActive = "JobAlreadyActive"
	// ReasonMissSchedule (Warning): the most recent scheduled time is older than startingDeadlineSeconds.
	ReasonMissSchedule = "MissSchedule"
	// ReasonTooManyMissedTimes (Warning): more than 100 scheduled times were missed; the most recent runs.
	ReasonTooManyMissedTimes = "TooManyMissedTimes"
	// ReasonUnparseableSchedule (Warning): spec.schedule cannot be parsed.
	ReasonUnparseableSchedule = cronjobv1.ReasonUnparseableSchedule
	// ReasonUnknownTimeZone (Warning): spec.timeZone is not a known IANA time zone.
	ReasonUnknownTimeZone = cronjobv1.ReasonUnknownTimeZone
	// ReasonScheduleNeverFires (Warning): the schedule has no time in the next five years, such as
	// "0 0 31 2 *" (31 February). batch/v1 has no such event.
	ReasonScheduleNeverFires = cronjobv1.ReasonScheduleNeverFires
	// ReasonSawCompletedJob (Normal): an active Job finished and left status.active.
	ReasonSawCompletedJob = "SawCompletedJob"
	// ReasonMissingJob (Normal, as in batch/v1): a Job listed in status.active no longer exists.
	ReasonMissingJob = "MissingJob"
	// ReasonUnexpectedJob (Warning): a Job listed in status.active is not a Job of this CronJob.
	ReasonUnexpectedJob = "UnexpectedJob"
	// ReasonMissedRunsDropped (Warning): under missedRunPolicy All, missed runs beyond spec.maxCatchUpRuns
	// do not start. batch/v1 has no such event.
	ReasonMissedRunsDropped = "MissedRunsDropped"
	// ReasonQueued (Normal): under concurrencyPolicy Enqueue, a due run waits in status.queued.
	ReasonQueued = "Queued"
	// ReasonQueueFull (Warning): under concurrencyPolicy Enqueue, a due run could not be queued because
	// spec.maxQueuedRuns runs are queued.
	ReasonQueueFull = "QueueFull"
	// ReasonQueuedRunExpired (Warning): a queued run was dropped: past startingDeadlineSeconds, or the
	// policy is no longer Enqueue.
	ReasonQueuedRunExpired = "QueuedRunExpired"
)
