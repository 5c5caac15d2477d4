package v2

import (
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// CronJobSpec is the desired behaviour of a CronJob, grouped by concern. Each field has exactly one v1
// field it converts to (README "API versions" has the table).
type CronJobSpec struct {
	// schedule says when runs are due: one cron expression or several, the time zone, the calendars that
	// exclude times, the window outside which no time runs, and the jitter.
	// +required
	Schedule Schedule `json:"schedule"`

	// suspend, when true, stops new runs; active Jobs go on and history limits still apply. Runs whose time
	// passes while suspended never start. Defaults to false. v1: spec.suspend (as batch/v1).
	// +kubebuilder:default=false
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// suspendUntil suspends scheduling until this instant: a scheduled time before it starts no Job and is
	// not missed; one at or after it runs as usual, with no surprise run when it passes. v1:
	// spec.suspendUntil.
	// +optional
	SuspendUntil *metav1.Time `json:"suspendUntil,omitempty"`

	// concurrency says what happens when a run is due while earlier Jobs are active.
	// +kubebuilder:default={}
	// +optional
	Concurrency Concurrency `json:"concurrency,omitzero"`

	// missedRuns says which runs start late, and how late they may.
	// +kubebuilder:default={}
	// +optional
	MissedRuns MissedRuns `json:"missedRuns,omitzero"`

	// history says how many finished Jobs and run records are kept.
	// +kubebuilder:default={}
	// +optional
	History History `json:"history,omitzero"`

	// timeouts end runs that take too long or never start.
	// +optional
	Timeouts Timeouts `json:"timeouts,omitzero"`

	// health is the dead-man's switch and the pause after repeated failures.
	// +optional
	Health Health `json:"health,omitzero"`

	// parameters are the named inputs of the CronJob's runs, at most 20 with unique names; see v1
	// spec.parameters, whose type this is.
	// +kubebuilder:validation:MaxItems=20
	// +listType=map
	// +listMapKey=name
	// +optional
	Parameters []cronjobv1.Parameter `json:"parameters,omitempty"`

	// jobTemplate is the Job created for each run, as in batch/v1. Labels and annotations with the prefix
	// batch.cronjob-operator.dev/ are reserved for the operator's own and refused here.
	// +kubebuilder:validation:XValidation:rule="!has(self.metadata) || !has(self.metadata.labels) || self.metadata.labels.all(k, !k.startsWith('batch.cronjob-operator.dev/'))",fieldPath=".metadata.labels",message="keys with the prefix batch.cronjob-operator.dev/ are reserved for the operator's own labels on its Jobs (the trigger label): remove them from the template; labels of any other prefix are copied onto every Job"
	// +kubebuilder:validation:XValidation:rule="!has(self.metadata) || !has(self.metadata.annotations) || self.metadata.annotations.all(k, !k.startsWith('batch.cronjob-operator.dev/'))",fieldPath=".metadata.annotations",message="keys with the prefix batch.cronjob-operator.dev/ are reserved for the operator's own annotations on its Jobs (scheduled-at, cronjobrun): remove them from the template; annotations of any other prefix are copied onto every Job"
	// +required
	JobTemplate batchv1.JobTemplateSpec `json:"jobTemplate"`
}

// Schedule is when a CronJob's runs are due. Exactly one of cron and crons is set.
// +kubebuilder:validation:XValidation:rule="has(self.cron) != has(self.crons)",message="set exactly one of spec.schedule.cron and spec.schedule.crons"
type Schedule struct {
	// cron is the schedule in standard cron format (minute hour day-of-month month day-of-week) or a
	// descriptor such as @hourly or @every 90m, evaluated in timeZone. At most 256 bytes; a TZ= or
	// CRON_TZ= prefix is refused (set timeZone). v1: spec.schedule, with the same rules.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.trim().size() > 0",message="schedule must not be blank: give a cron expression such as '*/5 * * * *' or a descriptor such as '@hourly'"
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="schedule must not contain TZ= or CRON_TZ=: remove the prefix and set spec.schedule.timeZone to the IANA name instead"
	// +optional
	Cron string `json:"cron,omitempty"`

	// crons, instead of cron, are several cron expressions whose times are the CronJob's: the union of
	// their scheduled times, each instant once. Each may carry its own time zone (timeZone when unset).
	// @every is refused here. 1 to 10 entries. v1: spec.schedules.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +listType=atomic
	// +optional
	Crons []Cron `json:"crons,omitempty"`

	// timeZone is the IANA name of the time zone the schedule is evaluated in, such as "Europe/Berlin";
	// UTC when unset (batch/v1 uses the controller's local zone; here the result never depends on the
	// machine). Not "Local". v1: spec.timeZone, with the same rules.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self.split('/').all(p, p.matches('^[A-Za-z._+0-9-]{1,14}$') && p != '.' && p != '..' && !p.startsWith('-'))",message="timeZone must be an IANA time zone name such as 'Europe/Berlin': path elements of 1 to 14 letters, digits, '.', '_', '+' or '-', no leading '/', no '.' or '..' element, none starting with '-'"
	// +kubebuilder:validation:XValidation:rule="self.lowerAscii() != 'local'",message="timeZone must name an explicit IANA time zone such as 'Europe/Berlin', not Local: the zone of the machine the controller runs on is not part of the CronJob"
	// +optional
	TimeZone *string `json:"timeZone,omitempty"`

	// calendars are names of CronCalendars in the CronJob's namespace whose excluded times start no Job.
	// While a listed calendar does not exist no run starts (Ready False, CalendarNotFound). At most 10.
	// v1: spec.calendars.
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=set
	// +optional
	Calendars []string `json:"calendars,omitempty"`

	// activeWindow bounds the scheduled times that run (both bounds inclusive, either may be unset); a time
	// outside it is not a run at all. v1: spec.activeWindow.
	// +optional
	ActiveWindow *cronjobv1.ActiveWindow `json:"activeWindow,omitempty"`

	// jitterSeconds delays each run by up to this many seconds after its scheduled time, by an amount
	// derived from the CronJob's UID and the scheduled time. 0 to 3600, shorter than
	// missedRuns.startingDeadlineSeconds. Unset or 0: no delay. v1: spec.jitterSeconds.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +optional
	JitterSeconds *int32 `json:"jitterSeconds,omitempty"`
}

// Cron is one entry of spec.schedule.crons.
type Cron struct {
	// cron is a cron expression with the rules of spec.schedule.cron, except @every.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.trim().size() > 0",message="schedule must not be blank: give a cron expression such as '0 9 * * MON-FRI'"
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="schedule must not contain TZ= or CRON_TZ=: remove the prefix and set the entry's timeZone instead"
	// +kubebuilder:validation:XValidation:rule="!self.trim().startsWith('@every')",message="@every is not allowed in spec.schedule.crons: its intervals count from the last run, which schedules cannot share; use spec.schedule.cron for an @every schedule"
	// +required
	Cron string `json:"cron"`

	// timeZone is the IANA time zone of this entry; spec.schedule.timeZone (or UTC) when unset.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self.split('/').all(p, p.matches('^[A-Za-z._+0-9-]{1,14}$') && p != '.' && p != '..' && !p.startsWith('-'))",message="timeZone must be an IANA time zone name such as 'Europe/Berlin': path elements of 1 to 14 letters, digits, '.', '_', '+' or '-', no leading '/', no '.' or '..' element, none starting with '-'"
	// +kubebuilder:validation:XValidation:rule="self.lowerAscii() != 'local'",message="timeZone must name an explicit IANA time zone such as 'Europe/Berlin', not Local"
	// +optional
	TimeZone *string `json:"timeZone,omitempty"`
}

// Concurrency says what happens when a run is due while earlier Jobs of the CronJob are active. policy is
// the discriminator: maxActiveJobs goes with Allow or Enqueue, maxQueuedRuns with Enqueue only.
// +kubebuilder:validation:XValidation:rule="!has(self.maxActiveJobs) || !has(self.policy) || self.policy in ['Allow', 'Enqueue']",fieldPath=".maxActiveJobs",message="spec.concurrency.maxActiveJobs is only allowed with spec.concurrency.policy Allow or Enqueue: Forbid and Replace run one Job at a time; remove spec.concurrency.maxActiveJobs or change the policy"
// +kubebuilder:validation:XValidation:rule="!has(self.maxQueuedRuns) || (has(self.policy) && self.policy == 'Enqueue')",fieldPath=".maxQueuedRuns",message="spec.concurrency.maxQueuedRuns is only allowed with spec.concurrency.policy Enqueue: remove it or set spec.concurrency.policy to Enqueue"
type Concurrency struct {
	// policy: Allow (default) runs Jobs concurrently (up to maxActiveJobs), Forbid skips a run due while
	// a Job is active, Replace deletes the active Jobs and starts the new one (all three as batch/v1),
	// Enqueue queues the run in status.queued until fewer than maxActiveJobs Jobs are active. v1:
	// spec.concurrencyPolicy.
	// +kubebuilder:default=Allow
	// +optional
	Policy cronjobv1.ConcurrencyPolicy `json:"policy,omitempty"`

	// maxActiveJobs is how many Jobs may be active at once under Allow (unset: unlimited) or Enqueue
	// (unset: 1). 1 to 100. v1: spec.maxActiveJobs.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	MaxActiveJobs *int32 `json:"maxActiveJobs,omitempty"`

	// maxQueuedRuns bounds status.queued under Enqueue; a run due while it is full is not queued
	// (QueueFull). 1 to 100, default 10. v1: spec.maxQueuedRuns.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	MaxQueuedRuns *int32 `json:"maxQueuedRuns,omitempty"`
}

// MissedRuns says which runs start late and how late they may. policy is the discriminator:
// maxCatchUpRuns goes with All only.
// +kubebuilder:validation:XValidation:rule="!has(self.maxCatchUpRuns) || (has(self.policy) && self.policy == 'All')",fieldPath=".maxCatchUpRuns",message="spec.missedRuns.maxCatchUpRuns is only allowed with spec.missedRuns.policy All: remove it or set spec.missedRuns.policy to All"
type MissedRuns struct {
	// policy: MostRecent (default, as batch/v1) starts only the most recent missed run; All starts each of
	// the last maxCatchUpRuns missed times, oldest first. v1: spec.missedRunPolicy.
	// +kubebuilder:default=MostRecent
	// +optional
	Policy cronjobv1.MissedRunPolicy `json:"policy,omitempty"`

	// startingDeadlineSeconds is how late, in seconds, a run may start after its scheduled time; later it
	// is missed (MissSchedule). Unset: no deadline. v1: spec.startingDeadlineSeconds (as batch/v1).
	// +kubebuilder:validation:Minimum=0
	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// maxCatchUpRuns is how many missed runs policy All starts at most, the most recent ones. 1 to 100,
	// default 10. v1: spec.maxCatchUpRuns.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	MaxCatchUpRuns *int32 `json:"maxCatchUpRuns,omitempty"`
}

// History says how much of the past is kept.
type History struct {
	// successfulJobs is how many successful finished Jobs are kept. 0 to 100, default 3. v1:
	// spec.successfulJobsHistoryLimit (batch/v1 has no maximum).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=3
	// +optional
	SuccessfulJobs *int32 `json:"successfulJobs,omitempty"`

	// failedJobs is how many failed finished Jobs are kept. 0 to 100, default 1. v1:
	// spec.failedJobsHistoryLimit.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=1
	// +optional
	FailedJobs *int32 `json:"failedJobs,omitempty"`

	// recentRuns is how many finished runs status.recentRuns keeps, newest first. 1 to 50, default 10.
	// v1: spec.recentRunsLimit.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=50
	// +kubebuilder:default=10
	// +optional
	RecentRuns *int32 `json:"recentRuns,omitempty"`
}

// Timeouts end runs that take too long. startSeconds must be shorter than runSeconds when both are set.
// +kubebuilder:validation:XValidation:rule="!has(self.startSeconds) || !has(self.runSeconds) || self.startSeconds < self.runSeconds",fieldPath=".startSeconds",message="spec.timeouts.startSeconds must be shorter than spec.timeouts.runSeconds, or the run timeout would always end a run first: lower spec.timeouts.startSeconds or raise spec.timeouts.runSeconds"
type Timeouts struct {
	// runSeconds ends a run whose Job has not finished this many seconds after it was created (RunTimedOut).
	// 1 to 31536000; unset: no timeout. v1: spec.runTimeoutSeconds.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=31536000
	// +optional
	RunSeconds *int64 `json:"runSeconds,omitempty"`

	// startSeconds ends a run none of whose Pods started this many seconds after its Job was created
	// (RunNeverStarted). 1 to 31536000; unset: no timeout. v1: spec.startTimeoutSeconds.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=31536000
	// +optional
	StartSeconds *int64 `json:"startSeconds,omitempty"`
}

// Health is how failures get noticed.
type Health struct {
	// successDeadlineSeconds is the dead-man's switch: Healthy turns False (NoRecentSuccess) when the last
	// success is older than this. 60 to 31536000; unset: no Healthy condition. v1:
	// spec.successDeadlineSeconds.
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=31536000
	// +optional
	SuccessDeadlineSeconds *int64 `json:"successDeadlineSeconds,omitempty"`

	// pauseAfterFailures suspends the CronJob after this many runs in a row failed (PausedAfterFailures).
	// 1 to 100; unset: never. v1: spec.pauseAfterFailures.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	PauseAfterFailures *int32 `json:"pauseAfterFailures,omitempty"`
}

// CronJob runs a Job on a cron schedule, like batch/v1 CronJob; v2 groups v1's spec by concern.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=cjo,categories=all
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule.cron`
// +kubebuilder:printcolumn:name="Crons",type=string,JSONPath=`.spec.schedule.crons[*].cron`,priority=1,description="spec.schedule.crons, when used instead of spec.schedule.cron"
// +kubebuilder:printcolumn:name="TimeZone",type=string,JSONPath=`.spec.schedule.timeZone`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Active",type=string,JSONPath=`.status.active[*].name`,description="Names of the active Jobs"
// +kubebuilder:printcolumn:name="Last Schedule",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Next",type=string,JSONPath=`.status.nextScheduleTime`,description="When the next run starts (RFC 3339, UTC)"
// +kubebuilder:printcolumn:name="Failures",type=integer,JSONPath=`.status.consecutiveFailures`,description="Failed runs in a row (status.consecutiveFailures)"
// +kubebuilder:printcolumn:name="Healthy",type=string,JSONPath=`.status.conditions[?(@.type=="Healthy")].status`,priority=1,description="The dead-man's switch (spec.health.successDeadlineSeconds), when set"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(self.spec.schedule.jitterSeconds) || !has(self.spec.missedRuns) || !has(self.spec.missedRuns.startingDeadlineSeconds) || self.spec.schedule.jitterSeconds == 0 || self.spec.schedule.jitterSeconds < self.spec.missedRuns.startingDeadlineSeconds",message="spec.schedule.jitterSeconds must be shorter than spec.missedRuns.startingDeadlineSeconds, or a delayed run could be past its deadline: lower the jitter or raise the deadline"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 52",message="metadata.name must be at most 52 characters: Job names add a dash and the scheduled minute and must fit 63"
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired behaviour of the CronJob.
	// +required
	Spec CronJobSpec `json:"spec"`

	// status is the observed state of the CronJob, written by the controller; the same fields as v1's.
	// +optional
	Status cronjobv1.CronJobStatus `json:"status,omitempty"`
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
