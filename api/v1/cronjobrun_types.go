package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RunConcurrencyPolicy says whether a manual run honours its CronJob's concurrencyPolicy.
// +kubebuilder:validation:Enum=Honor;Ignore
type RunConcurrencyPolicy string

const (
	// RunHonorConcurrency applies the CronJob's concurrencyPolicy and maxActiveJobs to the manual run, as
	// if it were scheduled (the default).
	RunHonorConcurrency RunConcurrencyPolicy = "Honor"
	// RunIgnoreConcurrency starts the manual run whatever is active.
	RunIgnoreConcurrency RunConcurrencyPolicy = "Ignore"
)

// CronJobRunPhase is where a CronJobRun is in its life.
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed;Rejected
type CronJobRunPhase string

const (
	// RunPending: the run's Job is not created yet (for example it waits for the CronJob's concurrency
	// policy).
	RunPending CronJobRunPhase = "Pending"
	// RunRunning: the run's Job exists and has not finished.
	RunRunning CronJobRunPhase = "Running"
	// RunSucceeded: the run's Job completed.
	RunSucceeded CronJobRunPhase = "Succeeded"
	// RunFailed: the run's Job failed.
	RunFailed CronJobRunPhase = "Failed"
	// RunRejected: the run will never start; the Ready condition's reason and message say why.
	RunRejected CronJobRunPhase = "Rejected"
)

// DefaultRunTTLSecondsAfterFinished is spec.ttlSecondsAfterFinished of a CronJobRun when unset: one day.
const DefaultRunTTLSecondsAfterFinished int32 = 86400

// MaxRunTTLSecondsAfterFinished is the largest spec.ttlSecondsAfterFinished of a CronJobRun: seven days
// (604800 s). The schema refuses more and the controller clamps to it (for runs stored before the bound):
// a finished or Rejected run is a record in etcd and in every replica's cache, and anyone who may create
// CronJobRuns in a namespace could otherwise keep any number of them forever. A week covers a weekend's
// post-mortem; the Job's own history (the CronJob's history limits) and events outlive it where needed.
const MaxRunTTLSecondsAfterFinished int32 = 604800

// CronJobRunSpec is a request to run a CronJob's Job now, or for one past scheduled time. Only
// ttlSecondsAfterFinished may change after creation.
// +kubebuilder:validation:XValidation:rule="has(self.parameters) == has(oldSelf.parameters) && (!has(self.parameters) || self.parameters == oldSelf.parameters)",message="spec.parameters is immutable: create another CronJobRun"
// +kubebuilder:validation:XValidation:rule="!(has(self.scheduledTime) && has(self.range))",message="spec.scheduledTime and spec.range are exclusive: name one past scheduled time, or a range of them"
// +kubebuilder:validation:XValidation:rule="!has(self.parallelism) || has(self.range)",message="spec.parallelism applies to a range backfill only: set spec.range, or remove spec.parallelism"
// +kubebuilder:validation:XValidation:rule="has(self.range) == has(oldSelf.range) && (!has(self.range) || self.range == oldSelf.range)",message="spec.range is immutable: create another CronJobRun"
// +kubebuilder:validation:XValidation:rule="self.cronJobName == oldSelf.cronJobName && has(self.scheduledTime) == has(oldSelf.scheduledTime) && (!has(self.scheduledTime) || self.scheduledTime == oldSelf.scheduledTime) && (has(self.concurrencyPolicy) ? self.concurrencyPolicy : 'Honor') == (has(oldSelf.concurrencyPolicy) ? oldSelf.concurrencyPolicy : 'Honor')",message="spec.cronJobName, spec.scheduledTime and spec.concurrencyPolicy are immutable: create another CronJobRun"
type CronJobRunSpec struct {
	// cronJobName is the name of the CronJob, in the CronJobRun's namespace, whose jobTemplate runs. A
	// CronJob that does not exist or is being deleted rejects the run (CronJobNotFound, CronJobDeleting),
	// also if it is created later: create another CronJobRun then. A suspended CronJob's runs start.
	//
	// It must be a DNS-1123 subdomain name (lowercase letters, digits, '-' and '.', starting and ending with
	// a letter or digit), as every CronJob's name is: a name that is not could never name one, so it is
	// refused at create rather than Rejected later.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=52
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="spec.cronJobName must be the name of a CronJob: a DNS-1123 subdomain of lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, such as 'nightly-report'"
	// +required
	CronJobName string `json:"cronJobName"`

	// scheduledTime, when set, runs the CronJob for that past scheduled time (a backfill): the Job gets
	// that time's deterministic name and annotation, so it can never duplicate the scheduled run of the
	// same time; if that Job exists, the CronJobRun reports it and creates nothing (a Job of that name
	// that is not the CronJob's rejects the run, JobNameTaken). It must be a scheduled time of the
	// CronJob's schedule in its time zone (for @every, the last run plus or minus whole intervals) and not
	// in the future, else the run is rejected (NotAScheduledTime, ScheduledTimeInFuture);
	// startingDeadlineSeconds does not apply. Unset means now: the Job is then named
	// <cronjob>-m<9 hex digits of a hash of the CronJobRun's UID>.
	// +optional
	ScheduledTime *metav1.Time `json:"scheduledTime,omitempty"`

	// range, when set, backfills every scheduled time of the CronJob from range.from to range.to, both
	// inclusive: the times of spec.schedule (or the union of spec.schedules) in the CronJob's time zone,
	// within spec.activeWindow, without the times its calendars exclude (a backfill of one scheduledTime
	// runs even an excluded time, since it was named; a range is a plan and follows the calendars). Each
	// time (a slot) runs once, oldest first, at most spec.parallelism at a time, as a Job with the slot's
	// deterministic name (the name the scheduled run of that time has), so a slot whose Job exists already
	// (the scheduled run, or another backfill) is counted in status.backfill.skipped and not run again.
	// status.backfill shows the progress and survives a restart or a failover of the controller: a Job
	// created just before a lost status write is found by its name and counted once. range.to must not be
	// in the future, and the range may hold at most 1000 slots (MaxBackfillSlots); admission refuses a
	// range that breaks either when the CronJob can be read, and the controller rejects it otherwise
	// (ScheduledTimeInFuture, TooManySlots; NoScheduledTimeInRange for a range without a slot).
	// Exclusive with scheduledTime; immutable. batch/v1 has no such field.
	// +optional
	Range *RunRange `json:"range,omitempty"`

	// parallelism is how many Jobs of a range backfill may run at once: 1 to 20, default 1 (one slot after
	// the other, oldest first). It may change while the backfill runs: lowered, no running Job stops;
	// raised, more start. With concurrencyPolicy Honor the CronJob's policy bounds it further (see
	// concurrencyPolicy). Only with spec.range.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=20
	// +optional
	Parallelism *int32 `json:"parallelism,omitempty"`

	// concurrencyPolicy says whether the CronJob's concurrencyPolicy and maxActiveJobs apply to this run.
	// Honor (default): under Allow the run starts (while fewer than maxActiveJobs are active, when set);
	// under Forbid it stays Pending while a Job of the CronJob is active, under Enqueue while maxActiveJobs
	// (default 1) are, and starts when one finishes, older waiting runs first; under Replace the active
	// Jobs are deleted first. Ignore starts the run at once.
	//
	// For a range backfill, Honor counts each slot as one more Job of the CronJob: under Forbid and Replace
	// a slot starts only while no Job of the CronJob is active (one slot at a time, whatever parallelism
	// says; a backfill never deletes a Job), under Enqueue and under Allow with maxActiveJobs while fewer
	// than maxActiveJobs are. Ignore bounds a backfill by spec.parallelism alone.
	// +kubebuilder:default=Honor
	// +optional
	ConcurrencyPolicy RunConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// ttlSecondsAfterFinished is how long a finished (Succeeded, Failed or Rejected) CronJobRun is kept
	// before the controller deletes it. A CronJobRun whose Job is deleted (history limits) goes with it
	// sooner. Defaults to 86400 (one day); 0 deletes it as soon as it finishes. At most 604800 (seven
	// days, MaxRunTTLSecondsAfterFinished): finished runs are records every tenant of the namespace can
	// create, so their life is bounded; batch/v1's Job field has no maximum, ours differs on purpose.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=604800
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`

	// parameters gives values to parameters of the CronJob (its spec.parameters), at most 20 with unique
	// names; a parameter given no value gets its default. A name the CronJob does not declare, a value not
	// in the parameter's enum or not matching its pattern is refused at admission, with a message that
	// names the parameter; a run admitted while its CronJob did not exist (or could not be read) and whose
	// values do not fit when it starts is Rejected (InvalidParameters). Immutable. batch/v1 has no such
	// field.
	// +kubebuilder:validation:MaxItems=20
	// +listType=map
	// +listMapKey=name
	// +optional
	Parameters []ParameterValue `json:"parameters,omitempty"`
}

// MaxBackfillSlots is the most scheduled times a range backfill (spec.range) may hold: 1000, a minutely
// schedule's 16 hours, an hourly one's six weeks. A longer backfill is several CronJobRuns; the bound keeps
// each reconcile of the run (which counts the slots left) bounded.
const MaxBackfillSlots = 1000

// MaxBackfillSlotsListed is the most slots status.backfill lists in skippedSlots and in failedSlots (the
// oldest ones); the counts go on.
const MaxBackfillSlotsListed = 50

// MaxBackfillParallelism is the largest spec.parallelism, and status.backfill.active's maxItems.
const MaxBackfillParallelism = 20

// RunRange is the range of scheduled times a CronJobRun backfills, both ends inclusive.
// +kubebuilder:validation:XValidation:rule="self.from <= self.to",message="spec.range.from must not be after spec.range.to"
type RunRange struct {
	// from is the first instant of the range (inclusive), RFC 3339.
	// +required
	From metav1.Time `json:"from"`
	// to is the last instant of the range (inclusive), RFC 3339; not in the future.
	// +required
	To metav1.Time `json:"to"`
}

// BackfillSlot is one scheduled time of a range backfill and its Job.
type BackfillSlot struct {
	// scheduledTime is the slot.
	// +required
	ScheduledTime metav1.Time `json:"scheduledTime"`
	// jobName is the slot's Job: the name the scheduled run of that time has.
	// +kubebuilder:validation:MaxLength=63
	// +required
	JobName string `json:"jobName"`
	// reason, for a skipped or failed slot, says why: JobExisted (the slot's Job existed, created by the
	// schedule or another run), JobNameTaken (a Job of that name not controlled by the CronJob), the Job's
	// Failed condition reason (BackoffLimitExceeded, DeadlineExceeded, ...), or JobDeleted (the Job went
	// before the run saw it end).
	// +kubebuilder:validation:MaxLength=128
	// +optional
	Reason string `json:"reason,omitempty"`
}

// BackfillStatus is the progress of a range backfill. Every slot is in exactly one of succeeded, failed,
// skipped, running, or not started (total minus the others). status.phase is Succeeded once every slot
// ended and none failed, Failed once every slot ended and one or more failed.
type BackfillStatus struct {
	// total is the number of slots in the range: those accounted for, plus those from next to range.to by
	// the CronJob's current schedule and calendars (an edit of either moves the slots not started yet).
	Total int32 `json:"total"`
	// succeeded counts the slots whose Job completed.
	Succeeded int32 `json:"succeeded"`
	// failed counts the slots whose Job failed, went before it ended, or whose name another Job holds.
	Failed int32 `json:"failed"`
	// skipped counts the slots whose Job existed already (the slot ran before): not run again.
	Skipped int32 `json:"skipped"`
	// running counts the slots whose Job runs now (the entries of active).
	Running int32 `json:"running"`
	// next is the oldest slot not started yet; unset once every slot has started.
	// +optional
	Next *metav1.Time `json:"next,omitempty"`
	// active are the slots whose Job runs, oldest first.
	// +kubebuilder:validation:MaxItems=20
	// +listType=atomic
	// +optional
	Active []BackfillSlot `json:"active,omitempty"`
	// skippedSlots are the oldest skipped slots (at most MaxBackfillSlotsListed, 50), with the reason.
	// +kubebuilder:validation:MaxItems=50
	// +listType=atomic
	// +optional
	SkippedSlots []BackfillSlot `json:"skippedSlots,omitempty"`
	// failedSlots are the oldest failed slots (at most 50), with the reason: what to backfill again.
	// +kubebuilder:validation:MaxItems=50
	// +listType=atomic
	// +optional
	FailedSlots []BackfillSlot `json:"failedSlots,omitempty"`
}

// CronJobRunStatus is the observed state of a CronJobRun.
type CronJobRunStatus struct {
	// phase is Pending, Running, Succeeded, Failed or Rejected.
	// +optional
	Phase CronJobRunPhase `json:"phase,omitempty"`

	// jobName is the name of the run's Job: the one created, or, for a scheduledTime whose Job existed,
	// that Job.
	// +optional
	JobName string `json:"jobName,omitempty"`

	// scheduledTime is the time the run is for: spec.scheduledTime, or when the Job was created.
	// +optional
	ScheduledTime *metav1.Time `json:"scheduledTime,omitempty"`

	// startTime is when the run's Job was created.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// completionTime is when the run finished (its Job completed or failed) or was rejected.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// backfill is the progress of a range backfill (spec.range); unset for the other runs, whose jobName,
	// scheduledTime and startTime tell the same of their one Job.
	// +optional
	Backfill *BackfillStatus `json:"backfill,omitempty"`

	// conditions: Ready says whether the run is going as asked (False with reason when Rejected).
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// CronJobRun is a manual run of a CronJob: its Job is created from the CronJob's jobTemplate, owned by the
// CronJob (so history limits and status.active count it) and labelled as manual. batch/v1 has no such
// resource (kubectl create job --from=cronjob/NAME makes a Job the CronJob does not know).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=cjr,categories=all
// +kubebuilder:printcolumn:name="CronJob",type=string,JSONPath=`.spec.cronJobName`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Job",type=string,JSONPath=`.status.jobName`
// +kubebuilder:printcolumn:name="Scheduled",type=string,JSONPath=`.status.scheduledTime`
// +kubebuilder:printcolumn:name="Succeeded",type=integer,JSONPath=`.status.backfill.succeeded`,priority=1
// +kubebuilder:printcolumn:name="Failed",type=integer,JSONPath=`.status.backfill.failed`,priority=1
// +kubebuilder:printcolumn:name="Skipped",type=integer,JSONPath=`.status.backfill.skipped`,priority=1
// +kubebuilder:printcolumn:name="Slots",type=integer,JSONPath=`.status.backfill.total`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CronJobRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the requested run.
	// +required
	Spec CronJobRunSpec `json:"spec"`

	// status is the observed state of the run, written by the controller.
	// +optional
	Status CronJobRunStatus `json:"status,omitempty"`
}

// CronJobRunList is a list of CronJobRuns.
// +kubebuilder:object:root=true
type CronJobRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJobRun `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CronJobRun{}, &CronJobRunList{})
}
