package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConcurrencyPolicy says how the controller treats a run that is due while an earlier Job of the same
// CronJob is still active. The values and their meaning match batch/v1 CronJob.
// Enqueue is this project's addition (see EnqueueConcurrent).
// +kubebuilder:validation:Enum=Allow;Forbid;Replace;Enqueue
type ConcurrencyPolicy string

const (
	// AllowConcurrent lets Jobs run concurrently (the default).
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent skips a run while an earlier Job is active; the skipped run is retried while it is
	// still within startingDeadlineSeconds.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent deletes the active Jobs (and, through background propagation, their Pods) and then
	// starts the new one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
	// EnqueueConcurrent queues a run that is due while spec.maxActiveJobs Jobs are active (status.queued)
	// and starts it, oldest first, as soon as a Job finishes. batch/v1 has no such policy: there a run that
	// Forbid skips is lost once its starting deadline passes.
	EnqueueConcurrent ConcurrencyPolicy = "Enqueue"
)

// MissedRunPolicy says which runs start when several scheduled times were missed (the controller was
// down, or the CronJob could not run).
// +kubebuilder:validation:Enum=MostRecent;All
type MissedRunPolicy string

const (
	// MissedRunMostRecent starts only the most recent missed run, as batch/v1 does (the default).
	MissedRunMostRecent MissedRunPolicy = "MostRecent"
	// MissedRunAll starts every missed run, oldest first, one Job per scheduled time, up to
	// spec.maxCatchUpRuns of the most recent ones. batch/v1 has no such policy.
	MissedRunAll MissedRunPolicy = "All"
)

// Defaults of the spec, the same as batch/v1 CronJob.
const (
	// DefaultSuccessfulJobsHistoryLimit is the number of successful Jobs kept when the field is unset.
	DefaultSuccessfulJobsHistoryLimit int32 = 3
	// DefaultFailedJobsHistoryLimit is the number of failed Jobs kept when the field is unset.
	DefaultFailedJobsHistoryLimit int32 = 1
)

// Defaults and bounds of the fields batch/v1 does not have.
const (
	// DefaultMaxCatchUpRuns is spec.maxCatchUpRuns when unset under missedRunPolicy All.
	DefaultMaxCatchUpRuns int32 = 10
	// MaxCatchUpRunsLimit is the largest spec.maxCatchUpRuns, the number of missed times batch/v1 counts.
	MaxCatchUpRunsLimit int32 = 100
	// DefaultMaxQueuedRuns is spec.maxQueuedRuns when unset under concurrencyPolicy Enqueue.
	DefaultMaxQueuedRuns int32 = 10
	// MaxQueuedRunsLimit is the largest spec.maxQueuedRuns.
	MaxQueuedRunsLimit int32 = 100
	// MaxJitterSeconds is the largest spec.jitterSeconds (one hour).
	MaxJitterSeconds int32 = 3600
	// MaxActiveJobsLimit is the largest spec.maxActiveJobs: no more than status.active lists (MaxActiveListed).
	MaxActiveJobsLimit int32 = 100
)

// Bounds of fields batch/v1 leaves unbounded.
const (
	// MaxScheduleLength is the longest spec.schedule, in bytes. The schedule becomes a label of the state
	// metrics and is copied into status.observedSchedule. An explicit list of all 60 minutes (169 bytes)
	// with the other four fields fits.
	MaxScheduleLength = 256
	// MaxHistoryLimit is the largest successfulJobsHistoryLimit and failedJobsHistoryLimit.
	MaxHistoryLimit int32 = 100
	// MaxActiveListed is the most Jobs status.active lists (its maxItems). When more are active, it keeps
	// the ones it listed first; the concurrency decisions count every active Job all the same (see
	// CronJobStatus.Active).
	MaxActiveListed = 100
)

// Bounds of the run history (status.recentRuns).
const (
	// DefaultRecentRunsLimit is spec.recentRunsLimit when unset: the finished runs status.recentRuns keeps.
	DefaultRecentRunsLimit int32 = 10
	// MaxRecentRunsLimit is the largest spec.recentRunsLimit.
	MaxRecentRunsLimit int32 = 50
	// MaxRecentRunsListed is status.recentRuns' maxItems: the finished runs kept and the active Jobs listed.
	MaxRecentRunsListed = int(MaxRecentRunsLimit) + MaxActiveListed
)

// Labels and annotations of the Jobs of manual runs (CronJobRun).
const (
	// ReservedPrefix is the prefix of the labels and annotations the operator sets on its Jobs. A Job
	// template may not set keys with it (a CEL rule of the CRD), and the controllers never copy such keys
	// from a template onto a Job. Other prefixes of the domain (lifecycle.cronjob-operator.dev/, ...) are
	// not reserved.
	ReservedPrefix = "batch.cronjob-operator.dev/"
	// TriggerLabel is set on every Job the operator creates: "schedule" for a scheduled run (and a catch-up
	// or queued one), "manual" for a CronJobRun's.
	TriggerLabel = "batch.cronjob-operator.dev/trigger"
	// TriggerSchedule is the TriggerLabel value of a scheduled run's Job.
	TriggerSchedule = "schedule"
	// TriggerManual is the TriggerLabel value of a CronJobRun's Job.
	TriggerManual = "manual"
	// CronJobRunAnnotation is set on a CronJobRun's Job to the name of that CronJobRun.
	CronJobRunAnnotation = "batch.cronjob-operator.dev/cronjobrun"
)

// CreatedAtAnnotation is set on every Job the operator creates, to the time it built the Job by the
// controller's clock (RFC 3339 with nanoseconds, UTC): the start of the run, from which runTimeoutSeconds
// and startTimeoutSeconds count. A Job without it (created before the annotation) counts from its
// creationTimestamp.
const CreatedAtAnnotation = "batch.cronjob-operator.dev/created-at"

// PausedAtAnnotation is set on a CronJob, with spec.suspend true, when the controller paused it after
// spec.pauseAfterFailures failed runs in a row; its value is the time (RFC 3339, UTC). The controller
// removes it when spec.suspend is false again.
const PausedAtAnnotation = "batch.cronjob-operator.dev/paused-at"

// Annotations batch/v1 puts on the Jobs of its CronJobs, which this operator sets as well, so that tools
// keyed to them (dashboards, log pipelines, cost tools) see its runs.
const (
	// UpstreamScheduledTimestampAnnotation is batch/v1's scheduled-time annotation (RFC 3339 in the
	// CronJob's time zone), the same value as ScheduledAtAnnotation.
	UpstreamScheduledTimestampAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"
	// UpstreamInstantiateAnnotation marks a Job made by hand from a CronJob; kubectl create job --from
	// sets it to "manual", and so does the CronJobRun controller.
	UpstreamInstantiateAnnotation = "cronjob.kubernetes.io/instantiate"
)

// ScheduledAtAnnotation is set on every Job the controller creates. Its value is the scheduled time of the
// run in RFC 3339, in the CronJob's time zone (UTC when spec.timeZone is unset). batch/v1 names the same
// annotation batch.kubernetes.io/cronjob-scheduled-timestamp.
const ScheduledAtAnnotation = "batch.cronjob-operator.dev/scheduled-at"

// MaxNameLength is the longest CronJob name accepted: a Job name is the CronJob name, a dash and up to 10
// digits of Unix minutes, and must fit the 63 characters of a label value (the job-name label).
const MaxNameLength = 52

// CronJobSpec is the desired behaviour of a CronJob.
type CronJobSpec struct {
	// schedule is the schedule in standard cron format (five fields: minute hour day-of-month month
	// day-of-week) or a descriptor such as @hourly, @daily or @every 90m; see
	// https://en.wikipedia.org/wiki/Cron. It is evaluated in spec.timeZone. A TZ= or CRON_TZ= prefix is
	// rejected: set spec.timeZone instead. At most 256 bytes (an explicit list of all 60 minutes, 169
	// bytes, fits with the other four fields); batch/v1 has no bound, this one differs because the schedule
	// becomes a label of the state metrics and a status field (status.observedSchedule).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.trim().size() > 0",message="schedule must not be blank: give a cron expression such as '*/5 * * * *' or a descriptor such as '@hourly'"
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="schedule must not contain TZ= or CRON_TZ=: remove the prefix and set spec.timeZone to the IANA name instead"
	// Exactly one of schedule and schedules is set.
	// +optional
	Schedule string `json:"schedule,omitempty"`

	// schedules, instead of schedule, are several schedules whose times are the CronJob's: the union of
	// their scheduled times, in order, each instant once (two schedules that meet on an instant give one
	// run, one Job, named after the instant as always). Each entry may carry its own time zone (spec.timeZone
	// when unset), so "9:00 in Berlin and 9:00 in New York" is one CronJob; each entry keeps the daylight
	// saving time rules of its zone. @every is refused here: its intervals count from the last run, which
	// a union cannot share. Jitter, catch-up, the queue, nextScheduleTime and kubectl cjo next work on
	// the union. 1 to 10 entries. batch/v1 has no such field.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +listType=atomic
	// +optional
	Schedules []ScheduleEntry `json:"schedules,omitempty"`

	// timeZone is the IANA name of the time zone the schedule is evaluated in, such as "Europe/Berlin".
	// When unset the schedule is evaluated in UTC. This differs from batch/v1, which uses the local time
	// zone of kube-controller-manager: here the result never depends on the machine the operator runs on.
	// The format is checked at admission as batch/v1 checks it: path elements of 1 to 14 letters, digits,
	// '.', '_', '+' or '-', none of them "." or ".." or starting with '-' (so no leading '/'), and not
	// "Local". The admission webhook also checks that the zone is known; an unknown name that reaches the
	// controller anyway stops scheduling with an UnknownTimeZone warning event and condition.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self.split('/').all(p, p.matches('^[A-Za-z._+0-9-]{1,14}$') && p != '.' && p != '..' && !p.startsWith('-'))",message="timeZone must be an IANA time zone name such as 'Europe/Berlin': path elements of 1 to 14 letters, digits, '.', '_', '+' or '-', no leading '/', no '.' or '..' element, none starting with '-'"
	// +kubebuilder:validation:XValidation:rule="self.lowerAscii() != 'local'",message="timeZone must name an explicit IANA time zone such as 'Europe/Berlin', not Local: the zone of the machine the controller runs on is not part of the CronJob"
	// +optional
	TimeZone *string `json:"timeZone,omitempty"`

	// calendars are names of CronCalendars in the CronJob's namespace whose excluded times start no Job:
	// an excluded scheduled time is reported once (ExcludedByCalendar event, runs_excluded_total), is
	// never a missed run, and is skipped by nextScheduleTime and kubectl cjo next. While a listed calendar
	// does not exist no run starts (Ready False, CalendarNotFound): a missing calendar could have excluded
	// any of them. Editing a calendar re-plans the CronJob with no surprise run. At most 10. batch/v1 has
	// no such field.
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=set
	// +optional
	Calendars []string `json:"calendars,omitempty"`

	// activeWindow bounds the scheduled times that run: none before notBefore, none after notAfter (both
	// inclusive bounds, either may be unset). A time outside the window is not a run at all: it is not
	// missed, not caught up, not queued, and nextScheduleTime skips it (unset after notAfter). batch/v1 has
	// no such field.
	// +optional
	ActiveWindow *ActiveWindow `json:"activeWindow,omitempty"`

	// suspendUntil suspends scheduling until this instant: a scheduled time before it starts no Job and is
	// not missed; one at or after it runs as usual, so no surprise run happens when it passes (unlike
	// setting spec.suspend back to false by hand, which is the same: runs due while suspended never start).
	// Active Jobs go on. Setting or clearing it re-plans with no surprise run. `kubectl cjo suspend NAME
	// --until 2026-12-27T08:00:00+01:00` sets it. batch/v1 has no such field.
	// +optional
	SuspendUntil *metav1.Time `json:"suspendUntil,omitempty"`

	// startingDeadlineSeconds is how late, in seconds, a run may start after its scheduled time. A run
	// that could not start within it is counted as missed (MissSchedule event) and not started. Unset (or
	// more than 292 years) means no deadline: a late run always starts.
	// +kubebuilder:validation:Minimum=0
	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// concurrencyPolicy says what happens when a run is due while an earlier Job is active:
	// Allow (default) runs them concurrently (up to maxActiveJobs), Forbid skips the new run, Replace
	// deletes the active Jobs and starts the new one, Enqueue queues the new run in status.queued until
	// fewer than maxActiveJobs Jobs are active (Enqueue is not in batch/v1).
	// +kubebuilder:default=Allow
	// +optional
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// maxActiveJobs is how many Jobs of this CronJob may be active at once under concurrencyPolicy Allow
	// or Enqueue. Unset means unlimited under Allow and 1 under Enqueue. Under Allow, a run due at the
	// limit is skipped like under Forbid (JobAlreadyActive; retried within startingDeadlineSeconds). Not
	// allowed with Forbid or Replace, which run one Job at a time. 1 to 100, the most Jobs status.active
	// lists. batch/v1 has no such field.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	MaxActiveJobs *int32 `json:"maxActiveJobs,omitempty"`

	// maxQueuedRuns bounds status.queued under concurrencyPolicy Enqueue: a run due while the queue is
	// full is not queued (QueueFull event, runs_missed_total reason queue_full). 1 to 100; defaults to 10.
	// Only allowed with Enqueue.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	MaxQueuedRuns *int32 `json:"maxQueuedRuns,omitempty"`

	// missedRunPolicy says which runs start when several scheduled times were missed: MostRecent (default,
	// as batch/v1) starts the most recent one only; All starts each of the last maxCatchUpRuns missed
	// times, oldest first, one Job per scheduled time, each only while within startingDeadlineSeconds and
	// through the concurrency policy. batch/v1 has no such field.
	// +kubebuilder:default=MostRecent
	// +optional
	MissedRunPolicy MissedRunPolicy `json:"missedRunPolicy,omitempty"`

	// maxCatchUpRuns is how many missed runs missedRunPolicy All starts at most: the most recent ones;
	// older missed times are reported once (MissedRunsDropped event, runs_missed_total reason
	// too_many_missed) and not started. 1 to 100; defaults to 10. Only allowed with missedRunPolicy All.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	MaxCatchUpRuns *int32 `json:"maxCatchUpRuns,omitempty"`

	// jitterSeconds delays each run by up to this many seconds after its scheduled time, by an amount
	// derived from the CronJob's UID and the scheduled time: the same on every replica and after a
	// restart, and different for CronJobs that share a schedule, so that they do not all start at once.
	// The Job keeps the scheduled (not delayed) time in its name and annotation; startingDeadlineSeconds
	// counts from the scheduled time. 0 to 3600; must be shorter than startingDeadlineSeconds and than the
	// shortest interval between two scheduled times. Unset or 0 means no delay. batch/v1 has no such field.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +optional
	JitterSeconds *int32 `json:"jitterSeconds,omitempty"`

	// suspend, when true, stops new runs; active Jobs go on and history limits still apply. Runs whose time
	// passes while suspended are missed. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// jobTemplate is the Job created for each run. Its labels and annotations are copied onto the Job,
	// except keys with the prefix batch.cronjob-operator.dev/, which are reserved for the operator's own
	// (the trigger label, the scheduled-at and cronjobrun annotations): a template that sets one is
	// refused, and one admitted before that rule is not copied. The pod template's metadata is copied as it
	// is (nothing reads our keys on Pods). batch/v1 reserves nothing in the template.
	// +kubebuilder:validation:XValidation:rule="!has(self.metadata) || !has(self.metadata.labels) || self.metadata.labels.all(k, !k.startsWith('batch.cronjob-operator.dev/'))",fieldPath=".metadata.labels",message="keys with the prefix batch.cronjob-operator.dev/ are reserved for the operator's own labels on its Jobs (the trigger label): remove them from the template; labels of any other prefix are copied onto every Job"
	// +kubebuilder:validation:XValidation:rule="!has(self.metadata) || !has(self.metadata.annotations) || self.metadata.annotations.all(k, !k.startsWith('batch.cronjob-operator.dev/'))",fieldPath=".metadata.annotations",message="keys with the prefix batch.cronjob-operator.dev/ are reserved for the operator's own annotations on its Jobs (scheduled-at, cronjobrun): remove them from the template; annotations of any other prefix are copied onto every Job"
	// +required
	JobTemplate batchv1.JobTemplateSpec `json:"jobTemplate"`

	// successfulJobsHistoryLimit is how many successful finished Jobs are kept; older ones are deleted with
	// their Pods. Defaults to 3. 0 keeps none, at most 100: batch/v1 has no maximum, this differs because
	// every kept Job stays in etcd with its Pods and in the operator's cache, and is read at every reconcile.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=3
	// +optional
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`

	// failedJobsHistoryLimit is how many failed finished Jobs are kept; older ones are deleted with their
	// Pods. Defaults to 1. 0 keeps none, at most 100 (as successfulJobsHistoryLimit; batch/v1 has no maximum).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=1
	// +optional
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`

	// runTimeoutSeconds ends a run whose Job has not finished this many seconds after it was created (the
	// run's start, read from the Job's created-at annotation, which the controller writes with its own
	// clock): the controller deletes the Job with background propagation, so its Pods go, and records the
	// run as failed with reason RunTimedOut (a Warning event, lastFailureTime, failedRuns,
	// consecutiveFailures, a recentRuns entry with outcome TimedOut). The concurrency policy then counts
	// the Job as gone: Forbid starts the next due run and the queue drains. It applies to every Job of the
	// CronJob, manual runs included. Unset (the default) means no timeout, as in batch/v1 (whose nearest
	// field, the Job's activeDeadlineSeconds, counts from the Job's start and leaves a suspended Job alone).
	// 1 to 31536000 (a year).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=31536000
	// +optional
	RunTimeoutSeconds *int64 `json:"runTimeoutSeconds,omitempty"`

	// startTimeoutSeconds ends a run none of whose Pods has started this many seconds after its Job was
	// created: the Job's status reports no ready Pod and no Pod that succeeded or failed (unschedulable
	// Pods, image pull errors, a quota, a Job held suspended by a queueing system). The controller reads the
	// Job's status, never its Pods. The run is ended as by runTimeoutSeconds, with reason RunNeverStarted
	// and outcome NeverStarted. Unset (the default) means no timeout; batch/v1 has no such field. 1 to
	// 31536000, and shorter than runTimeoutSeconds when both are set.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=31536000
	// +optional
	StartTimeoutSeconds *int64 `json:"startTimeoutSeconds,omitempty"`

	// successDeadlineSeconds is the CronJob's dead-man's switch: when its last successful run finished
	// longer ago than this (or, never having succeeded, it has been scheduling for longer: counted from
	// status.observedSchedule.since, its creation, last edit of the schedule or resume), the condition
	// Healthy turns False with reason NoRecentSuccess and one Warning event; it turns True (reason
	// SucceededRecently) at the next success. While the CronJob is suspended by a user the switch waits
	// (Healthy True, reason Suspended) and it counts again from the resume; a CronJob paused after failures
	// (pauseAfterFailures) keeps counting. Unset: no Healthy condition, and the shipped alert
	// CronJobNoSuccessfulRun (3 schedule periods) applies instead. 60 to 31536000 (a year). batch/v1 has no
	// such field.
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=31536000
	// +optional
	SuccessDeadlineSeconds *int64 `json:"successDeadlineSeconds,omitempty"`

	// pauseAfterFailures pauses the CronJob after this many runs in a row failed (status.consecutiveFailures
	// reaches it; timed-out and never-started runs are failures): the controller sets spec.suspend to true
	// and the annotation batch.cronjob-operator.dev/paused-at to the time (one patch), emits a Warning event
	// PausedAfterFailures, and sets Ready to False with that reason, the count and the time. Active Jobs go
	// on. Resume with `kubectl cjo resume NAME` or by setting spec.suspend to false: as after any resume, no
	// run due before it starts (no surprise runs), consecutiveFailures restarts at 0, and the annotation is
	// removed. Manual runs (CronJobRun) of a paused CronJob start, as they do while it is suspended, and
	// their outcomes count. Unset (the default) never pauses, as batch/v1. 1 to 100.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	PauseAfterFailures *int32 `json:"pauseAfterFailures,omitempty"`

	// recentRunsLimit is how many finished runs status.recentRuns keeps, newest first (runs still active
	// are kept besides them). Defaults to 10; 1 to 50. batch/v1 has no such field.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=50
	// +kubebuilder:default=10
	// +optional
	RecentRunsLimit *int32 `json:"recentRunsLimit,omitempty"`

	// parameters are the named inputs of the CronJob's runs, at most 20 with unique names: each run's Job
	// gets each as an environment variable of every container and init container (see Parameter), and
	// all of them in the annotation batch.cronjob-operator.dev/parameters. Scheduled runs use the
	// defaults; a CronJobRun may give other values (its spec.parameters), which admission checks against
	// the declarations here. Unset: the Jobs are the jobTemplate's, with no variable added. batch/v1 has
	// no such field.
	// +kubebuilder:validation:MaxItems=20
	// +listType=map
	// +listMapKey=name
	// +optional
	Parameters []Parameter `json:"parameters,omitempty"`
}

// CronJobStatus is the observed state of a CronJob.
type CronJobStatus struct {
	// active lists the Jobs of this CronJob that have not finished, at most 100 (batch/v1 has no bound: a
	// status object must fit etcd's request limit). When more are active (concurrencyPolicy Allow without
	// maxActiveJobs), it keeps the ones it listed first and gives a place that frees up to the oldest
	// unlisted Job (by creation time), so a new Job does not rewrite it. The concurrency decisions count
	// every active Job of the operator's cache, not this list, and so does the active-Jobs state metric
	// when the list is full.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	Active []corev1.ObjectReference `json:"active,omitempty"`

	// lastScheduleTime is the scheduled time of the most recent run that was started. It is the record of
	// what has run: the controller never rebuilds it from the Jobs that still exist.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// lastSuccessfulTime is the completion time of the newest Job that succeeded.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`

	// lastFailureTime is the time the newest failed Job was marked failed. batch/v1 has no such field.
	// +optional
	LastFailureTime *metav1.Time `json:"lastFailureTime,omitempty"`

	// nextScheduleTime is when the controller will start the next run: the next scheduled time plus its
	// jitter (spec.jitterSeconds). Unset while suspended, when the schedule never fires, or when the
	// schedule or time zone cannot be used. batch/v1 has no such field.
	// +optional
	NextScheduleTime *metav1.Time `json:"nextScheduleTime,omitempty"`

	// queued lists the runs waiting under concurrencyPolicy Enqueue, oldest first. Each starts as soon
	// as fewer than spec.maxActiveJobs Jobs are active, or is dropped (QueuedRunExpired event) once it is
	// past startingDeadlineSeconds. The queue is status, not memory: it survives restarts and leader
	// changes. At most 100 (spec.maxQueuedRuns). batch/v1 has no such field.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	Queued []QueuedRun `json:"queued,omitempty"`

	// conditions describe the CronJob's state. Ready is True (reason Scheduled, or Suspended) while the
	// controller can schedule runs, and False with the reason when it cannot: UnparseableSchedule,
	// UnknownTimeZone, ScheduleNeverFires or FailedCreate. It turns True again as soon as the cause is gone.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedSchedule is the schedule, time zone and suspend state the controller acts on, and since when.
	// Scheduled times at or before observedSchedule.since never start, so that editing the schedule or time
	// zone, or resuming a suspended CronJob, never starts a run that was due before the change was seen.
	// batch/v1 has no such field and starts the most recent missed run after such a change.
	// +optional
	ObservedSchedule *ObservedSchedule `json:"observedSchedule,omitempty"`

	// consecutiveFailures is how many runs in a row failed (outcomes Failed, TimedOut, NeverStarted), by
	// the order they ended, since the last success or the last resume after a pause (pauseAfterFailures).
	// A run that was Replaced or Deleted neither counts nor resets it. batch/v1 has no such field.
	// +kubebuilder:validation:Minimum=0
	// +optional
	ConsecutiveFailures int32 `json:"consecutiveFailures,omitempty"`

	// succeededRuns counts the runs that succeeded since the controller first tracked this CronJob (Jobs
	// finished before then count once, when it first sees them). batch/v1 has no such field.
	// +kubebuilder:validation:Minimum=0
	// +optional
	SucceededRuns int64 `json:"succeededRuns,omitempty"`

	// failedRuns counts the runs that failed (outcomes Failed, TimedOut, NeverStarted), as succeededRuns.
	// +kubebuilder:validation:Minimum=0
	// +optional
	FailedRuns int64 `json:"failedRuns,omitempty"`

	// recentRuns are the last runs, newest first by start: every run still active, and the newest
	// spec.recentRunsLimit (default 10) finished ones. Each is written in the status update that records
	// its start or its end, never in a write of its own. batch/v1 has no such field.
	// +kubebuilder:validation:MaxItems=150
	// +listType=atomic
	// +optional
	RecentRuns []RunRecord `json:"recentRuns,omitempty"`

	// lastExcludedTime is the newest scheduled time a calendar excluded that was reported (ExcludedByCalendar),
	// so each excluded time is reported once. batch/v1 has no such field.
	// +optional
	LastExcludedTime *metav1.Time `json:"lastExcludedTime,omitempty"`
}

// ObservedSchedule is a schedule as the controller observed it, and since when.
type ObservedSchedule struct {
	// schedule is spec.schedule as observed; empty when spec.schedules is used (plan covers it).
	// +kubebuilder:validation:MaxLength=256
	// +required
	Schedule string `json:"schedule"`

	// timeZone is spec.timeZone as observed; empty means UTC.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	TimeZone string `json:"timeZone,omitempty"`

	// suspended is spec.suspend as observed.
	// +optional
	Suspended bool `json:"suspended,omitempty"`

	// plan is a digest of everything else that decides which times run, as observed: spec.schedules,
	// spec.calendars and the content of each, spec.activeWindow and spec.suspendUntil. Empty when none is
	// set. When the CronJob's own fields among them change, since moves to when the API server recorded
	// the edit (as for schedule); when only a calendar changes (created, edited, deleted), to now: the
	// API server timed no edit of the CronJob. Either way no time due before the change starts. Its form
	// is "<own fields>-<calendars>", two FNV-64a digests.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Plan string `json:"plan,omitempty"`

	// since is when the controller first observed this schedule, time zone and suspend state. The first
	// time the controller sees a CronJob it is status.lastScheduleTime, or the creation time if it never ran.
	// +required
	Since metav1.Time `json:"since"`
}

// RunTrigger says what started a run.
// +kubebuilder:validation:Enum=Schedule;CatchUp;Queue;Manual;Backfill
type RunTrigger string

const (
	// TriggeredBySchedule: the run started at (or within startingDeadlineSeconds of) its scheduled time,
	// the first due time the controller met since it started.
	TriggeredBySchedule RunTrigger = "Schedule"
	// TriggeredByCatchUp: a missed run started late (after the controller was down, or under
	// missedRunPolicy All).
	TriggeredByCatchUp RunTrigger = "CatchUp"
	// TriggeredByQueue: a run of status.queued started (concurrencyPolicy Enqueue).
	TriggeredByQueue RunTrigger = "Queue"
	// TriggeredByManual: a CronJobRun without spec.scheduledTime (run now).
	TriggeredByManual RunTrigger = "Manual"
	// TriggeredByBackfill: a CronJobRun with spec.scheduledTime.
	TriggeredByBackfill RunTrigger = "Backfill"
)

// RunResult is how a run ended, or Running.
// +kubebuilder:validation:Enum=Running;Succeeded;Failed;TimedOut;NeverStarted;Replaced;Deleted
type RunResult string

const (
	// RunResultRunning: the run's Job has not finished.
	RunResultRunning RunResult = "Running"
	// RunResultSucceeded: the Job completed.
	RunResultSucceeded RunResult = "Succeeded"
	// RunResultFailed: the Job failed; reason is the Job's (BackoffLimitExceeded, DeadlineExceeded, ...).
	RunResultFailed RunResult = "Failed"
	// RunResultTimedOut: spec.runTimeoutSeconds passed; the controller deleted the Job (reason RunTimedOut).
	RunResultTimedOut RunResult = "TimedOut"
	// RunResultNeverStarted: spec.startTimeoutSeconds passed with no Pod started; the controller deleted the
	// Job (reason RunNeverStarted).
	RunResultNeverStarted RunResult = "NeverStarted"
	// RunResultReplaced: concurrencyPolicy Replace deleted the Job for a newer run.
	RunResultReplaced RunResult = "Replaced"
	// RunResultDeleted: the Job went before it finished (deleted by someone, or by its
	// ttlSecondsAfterFinished before the controller saw it finish).
	RunResultDeleted RunResult = "Deleted"
)

// RunRecord is one run in status.recentRuns.
type RunRecord struct {
	// jobName is the name of the run's Job.
	// +kubebuilder:validation:MaxLength=63
	// +required
	JobName string `json:"jobName"`
	// scheduledTime is the scheduled time the run is for; for a manual run now, when its Job was created.
	// +optional
	ScheduledTime *metav1.Time `json:"scheduledTime,omitempty"`
	// trigger is what started the run: Schedule, CatchUp, Queue, Manual or Backfill.
	// +optional
	Trigger RunTrigger `json:"trigger,omitempty"`
	// startTime is when the run's Job was created, by the controller's clock.
	// +required
	StartTime metav1.Time `json:"startTime"`
	// endTime is when the run ended: the Job's completion or failure time, or when the controller ended it
	// or saw it gone. Unset while Running.
	// +optional
	EndTime *metav1.Time `json:"endTime,omitempty"`
	// result is Running, or how the run ended: Succeeded, Failed, TimedOut, NeverStarted, Replaced, Deleted.
	// +required
	Result RunResult `json:"result"`
	// reason is a one-word cause of a result other than Succeeded and Running: the Job's Failed condition
	// reason, RunTimedOut, RunNeverStarted, Replaced or MissingJob.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	Reason string `json:"reason,omitempty"`
}

// QueuedRun is a run waiting under concurrencyPolicy Enqueue.
type QueuedRun struct {
	// scheduledTime is the scheduled time of the run; its Job gets the name and annotation of that time.
	// +required
	ScheduledTime metav1.Time `json:"scheduledTime"`
	// since is when the run was queued.
	// +required
	Since metav1.Time `json:"since"`
}

// ScheduleEntry is one schedule of spec.schedules.
type ScheduleEntry struct {
	// schedule is a cron expression with the rules of spec.schedule, except @every.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.trim().size() > 0",message="schedule must not be blank: give a cron expression such as '0 9 * * MON-FRI'"
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="schedule must not contain TZ= or CRON_TZ=: remove the prefix and set the entry's timeZone instead"
	// +kubebuilder:validation:XValidation:rule="!self.trim().startsWith('@every')",message="@every is not allowed in spec.schedules: its intervals count from the last run, which schedules cannot share; use spec.schedule for an @every schedule"
	// +required
	Schedule string `json:"schedule"`

	// timeZone is the IANA time zone of this schedule; spec.timeZone (or UTC) when unset. The same format
	// rules as spec.timeZone.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self.split('/').all(p, p.matches('^[A-Za-z._+0-9-]{1,14}$') && p != '.' && p != '..' && !p.startsWith('-'))",message="timeZone must be an IANA time zone name such as 'Europe/Berlin': path elements of 1 to 14 letters, digits, '.', '_', '+' or '-', no leading '/', no '.' or '..' element, none starting with '-'"
	// +kubebuilder:validation:XValidation:rule="self.lowerAscii() != 'local'",message="timeZone must name an explicit IANA time zone such as 'Europe/Berlin', not Local"
	// +optional
	TimeZone *string `json:"timeZone,omitempty"`
}

// ActiveWindow is the span of time in which a CronJob's scheduled times run.
// +kubebuilder:validation:XValidation:rule="has(self.notBefore) || has(self.notAfter)",message="activeWindow needs notBefore, notAfter or both"
// +kubebuilder:validation:XValidation:rule="!has(self.notBefore) || !has(self.notAfter) || self.notBefore <= self.notAfter",message="activeWindow.notBefore must not be after notAfter"
type ActiveWindow struct {
	// notBefore: no scheduled time before it runs.
	// +optional
	NotBefore *metav1.Time `json:"notBefore,omitempty"`
	// notAfter: no scheduled time after it runs.
	// +optional
	NotAfter *metav1.Time `json:"notAfter,omitempty"`
}

// CronJob runs a Job on a cron schedule, like batch/v1 CronJob.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=cjo,categories=all
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Schedules",type=string,JSONPath=`.spec.schedules[*].schedule`,priority=1,description="spec.schedules, when used instead of spec.schedule"
// +kubebuilder:printcolumn:name="TimeZone",type=string,JSONPath=`.spec.timeZone`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Active",type=string,JSONPath=`.status.active[*].name`,description="Names of the active Jobs"
// +kubebuilder:printcolumn:name="Last Schedule",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Next",type=string,JSONPath=`.status.nextScheduleTime`,description="When the next run starts (RFC 3339, UTC)"
// +kubebuilder:printcolumn:name="Failures",type=integer,JSONPath=`.status.consecutiveFailures`,description="Failed runs in a row (status.consecutiveFailures)"
// +kubebuilder:printcolumn:name="Healthy",type=string,JSONPath=`.status.conditions[?(@.type=="Healthy")].status`,priority=1,description="The dead-man's switch (spec.successDeadlineSeconds), when set"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(self.spec.maxActiveJobs) || !has(self.spec.concurrencyPolicy) || self.spec.concurrencyPolicy in ['Allow', 'Enqueue']",message="spec.maxActiveJobs is only allowed with spec.concurrencyPolicy Allow or Enqueue: Forbid and Replace run one Job at a time; remove spec.maxActiveJobs or change the policy"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.maxQueuedRuns) || (has(self.spec.concurrencyPolicy) && self.spec.concurrencyPolicy == 'Enqueue')",message="spec.maxQueuedRuns is only allowed with spec.concurrencyPolicy Enqueue: remove it or set spec.concurrencyPolicy to Enqueue"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.maxCatchUpRuns) || (has(self.spec.missedRunPolicy) && self.spec.missedRunPolicy == 'All')",message="spec.maxCatchUpRuns is only allowed with spec.missedRunPolicy All: remove it or set spec.missedRunPolicy to All"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.jitterSeconds) || !has(self.spec.startingDeadlineSeconds) || self.spec.jitterSeconds == 0 || self.spec.jitterSeconds < self.spec.startingDeadlineSeconds",message="spec.jitterSeconds must be shorter than spec.startingDeadlineSeconds, or a delayed run could be past its deadline: lower the jitter or raise the deadline"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.startTimeoutSeconds) || !has(self.spec.runTimeoutSeconds) || self.spec.startTimeoutSeconds < self.spec.runTimeoutSeconds",message="spec.startTimeoutSeconds must be shorter than spec.runTimeoutSeconds, or the run timeout would always end a run first: lower spec.startTimeoutSeconds or raise spec.runTimeoutSeconds"
// +kubebuilder:validation:XValidation:rule="has(self.spec.schedule) != has(self.spec.schedules)",message="set exactly one of spec.schedule and spec.schedules"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 52",message="metadata.name must be at most 52 characters: Job names add a dash and the scheduled minute and must fit 63"
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired behaviour of the CronJob.
	// +required
	Spec CronJobSpec `json:"spec"`

	// status is the observed state of the CronJob, written by the controller.
	// +optional
	Status CronJobStatus `json:"status,omitempty"`
}

// CronJobList is a list of CronJobs.
// +kubebuilder:object:root=true
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CronJob{}, &CronJobList{})
}
