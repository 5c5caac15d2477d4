package v1

// Every reason of a condition and of an event the controllers set or emit, in one place. Where the meaning
// is the same, a reason is the one users know from the built-in batch/v1 CronJob controller.

// Condition types and reasons of CronJobStatus.Conditions, also the reasons of the Warning events that
// report the same cause.
const (
	// ConditionReady is True while the controller can schedule runs of the CronJob.
	ConditionReady = "Ready"
	// ReasonScheduled is the reason of a True Ready condition of an active CronJob.
	ReasonScheduled = "Scheduled"
	// ReasonSuspended is the reason of a True Ready condition of a suspended CronJob.
	ReasonSuspended = "Suspended"
	// ReasonUnparseableSchedule (Warning event too): spec.schedule cannot be parsed.
	ReasonUnparseableSchedule = "UnparseableSchedule"
	// ReasonUnknownTimeZone (Warning event too): spec.timeZone is not a known IANA time zone.
	ReasonUnknownTimeZone = "UnknownTimeZone"
	// ReasonScheduleNeverFires (Warning event too; batch/v1 has no such event): the schedule has no time in the next five years, such as "0 0 31 2 *".
	ReasonScheduleNeverFires = "ScheduleNeverFires"
	// ReasonFailedCreate (Warning event too): the Job of the due run could not be created, or a Job of its name belongs to
	// someone else.
	ReasonFailedCreate = "FailedCreate"
	// ReasonPausedAfterFailures (Ready=False, Warning event too): spec.pauseAfterFailures runs in a row
	// failed, and the controller suspended the CronJob; resume it to schedule again.
	ReasonPausedAfterFailures = "PausedAfterFailures"
	// ReasonCalendarNotFound (Ready=False, Warning event too): a CronCalendar of spec.calendars does not
	// exist in the CronJob's namespace; no run starts until it does or the reference goes.
	ReasonCalendarNotFound = "CalendarNotFound"
	// ReasonInvalidCalendar (Ready=False, Warning event too): a CronCalendar of spec.calendars has an entry
	// the controller cannot use (one admitted before a rule, or without the webhook); no run starts.
	ReasonInvalidCalendar = "InvalidCalendar"
	// ReasonActiveWindowEnded (Ready=True): spec.activeWindow.notAfter has passed; no run starts again.
	ReasonActiveWindowEnded = "ActiveWindowEnded"
	// ReasonSuspendedUntil (Ready=True): spec.suspendUntil is in the future; runs start again at it.
	ReasonSuspendedUntil = "SuspendedUntil"

	// ConditionHealthy is the dead-man's switch (spec.successDeadlineSeconds): True while the CronJob
	// succeeded recently enough, False when not. Absent when spec.successDeadlineSeconds is unset.
	ConditionHealthy = "Healthy"
	// ReasonSucceededRecently (Healthy=True): the last success is within spec.successDeadlineSeconds, or
	// the CronJob has not been scheduling that long.
	ReasonSucceededRecently = "SucceededRecently"
	// ReasonNoRecentSuccess (Healthy=False, Warning event too): no run succeeded within
	// spec.successDeadlineSeconds.
	ReasonNoRecentSuccess = "NoRecentSuccess"
	// ReasonHealthSuspended (Healthy=True): suspended by a user, the switch waits; it counts again from the
	// resume.
	ReasonHealthSuspended = "Suspended"
)

// Reasons of the events about a CronJob that no condition carries.
const (
	// ReasonSuccessfulCreate (Normal): a Job was created for a scheduled time.
	ReasonSuccessfulCreate = "SuccessfulCreate"
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
	// ReasonSawCompletedJob (Normal): an active Job finished and left status.active.
	ReasonSawCompletedJob = "SawCompletedJob"
	// ReasonMissingJob (Normal, as in batch/v1): a Job listed in status.active no longer exists.
	ReasonMissingJob = "MissingJob"
	// ReasonUnexpectedJob (Warning): a Job listed in status.active is not a Job of this CronJob.
	ReasonUnexpectedJob = "UnexpectedJob"
	// ReasonExcludedByCalendar (Normal): a scheduled time was excluded by a CronCalendar of spec.calendars
	// and started no Job; reported once per time. batch/v1 has no such event.
	ReasonExcludedByCalendar = "ExcludedByCalendar"
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
	// ReasonRunTimedOut (Warning): a run did not finish within spec.runTimeoutSeconds; its Job was deleted.
	ReasonRunTimedOut = "RunTimedOut"
	// ReasonRunNeverStarted (Warning): no Pod of a run started within spec.startTimeoutSeconds; its Job was
	// deleted.
	ReasonRunNeverStarted = "RunNeverStarted"
	// ReasonResumed (Normal): a CronJob paused after failures was resumed (spec.suspend false);
	// consecutiveFailures restarts at 0.
	ReasonResumed = "Resumed"
)

// Reasons of a CronJobRun's Ready condition and of the events about it. Those that reject a run say what to
// fix in their message; the run is not retried (create another CronJobRun).
const (
	// ReasonJobCreated (Ready=True): the run's Job was created and runs.
	ReasonJobCreated = "JobCreated"
	// ReasonJobExisted (Ready=True, Normal event): the Job of spec.scheduledTime existed already (the
	// scheduled run of that time, or another backfill of it): the run reports it and creates nothing.
	ReasonJobExisted = "JobExisted"
	// ReasonJobComplete (Ready=True): the run's Job completed.
	ReasonJobComplete = "JobComplete"
	// ReasonJobFailed (Ready=False): the run's Job failed.
	ReasonJobFailed = "JobFailed"
	// ReasonMaxActiveJobs (Ready=False, Pending): spec.maxActiveJobs Jobs of the CronJob are active
	// (concurrencyPolicy Allow with maxActiveJobs, or Enqueue); the run starts when one finishes.
	ReasonMaxActiveJobs = "MaxActiveJobsReached"
	// ReasonCronJobNotFound (Rejected): spec.cronJobName names no CronJob in the namespace.
	ReasonCronJobNotFound = "CronJobNotFound"
	// ReasonCronJobDeleting (Rejected): the CronJob is being deleted.
	ReasonCronJobDeleting = "CronJobDeleting"
	// ReasonNotAScheduledTime (Rejected): spec.scheduledTime is not a scheduled time of the schedule.
	ReasonNotAScheduledTime = "NotAScheduledTime"
	// ReasonScheduledTimeInFuture (Rejected): spec.scheduledTime is later than now.
	ReasonScheduledTimeInFuture = "ScheduledTimeInFuture"
	// ReasonJobNameTaken (Rejected): a Job of the run's name exists and is not the CronJob's.
	ReasonJobNameTaken = "JobNameTaken"
	// ReasonTooManyWaitingRuns (Rejected): the CronJob has as many Pending runs as the controller keeps
	// (--max-waiting-runs-per-cronjob, default 100): wait for them to start or delete some, then create
	// another CronJobRun.
	ReasonTooManyWaitingRuns = "TooManyWaitingRuns"
	// ReasonInvalidParameters (Rejected): spec.parameters of the run does not fit the CronJob's declared
	// parameters (a name it does not declare, a value outside the enum or not matching the pattern). The
	// admission webhook refuses such a run; this reason is for one admitted while the CronJob did not exist
	// or could not be read, or whose CronJob's parameters changed before the run started.
	ReasonInvalidParameters = "InvalidParameters"
	// ReasonTooManySlots (Rejected): spec.range holds more than MaxBackfillSlots (1000) scheduled times:
	// split it into several CronJobRuns.
	ReasonTooManySlots = "TooManySlots"
	// ReasonNoScheduledTimeInRange (Rejected): spec.range holds no scheduled time of the CronJob.
	ReasonNoScheduledTimeInRange = "NoScheduledTimeInRange"
	// ReasonBackfillRunning (Ready=True): a range backfill has Jobs running or slots left to start.
	ReasonBackfillRunning = "BackfillRunning"
	// ReasonBackfillComplete (Ready=True, Normal event): every slot of a range backfill ended and none
	// failed.
	ReasonBackfillComplete = "BackfillComplete"
	// ReasonBackfillFailed (Ready=False, Warning event): every slot of a range backfill ended and one or
	// more failed (status.backfill.failedSlots lists them).
	ReasonBackfillFailed = "BackfillFailed"
	// ReasonJobDeleted: a backfill slot's Job went before the run saw it end (a user, or the CronJob's
	// history limits); the slot counts as failed.
	ReasonJobDeleted = "JobDeleted"
)
