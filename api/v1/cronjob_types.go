package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConcurrencyPolicy says how the controller treats a run that is due while an earlier Job of the same
// CronJob is still active. The values and their meaning match batch/v1 CronJob.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
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
)

// Defaults of the spec, the same as batch/v1 CronJob.
const (
	// DefaultSuccessfulJobsHistoryLimit is the number of successful Jobs kept when the field is unset.
	DefaultSuccessfulJobsHistoryLimit int32 = 3
	// DefaultFailedJobsHistoryLimit is the number of failed Jobs kept when the field is unset.
	DefaultFailedJobsHistoryLimit int32 = 1
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
	// rejected: set spec.timeZone instead.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:XValidation:rule="self.trim().size() > 0",message="schedule must not be blank: give a cron expression such as '*/5 * * * *' or a descriptor such as '@hourly'"
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="schedule must not contain TZ= or CRON_TZ=: remove the prefix and set spec.timeZone to the IANA name instead"
	// +required
	Schedule string `json:"schedule"`

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

	// startingDeadlineSeconds is how late, in seconds, a run may start after its scheduled time. A run
	// that could not start within it is counted as missed (MissSchedule event) and not started. Unset (or
	// more than 292 years) means no deadline: a late run always starts.
	// +kubebuilder:validation:Minimum=0
	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// concurrencyPolicy says what happens when a run is due while an earlier Job is active:
	// Allow (default) runs them concurrently, Forbid skips the new run, Replace deletes the active Jobs
	// and starts the new one.
	// +kubebuilder:default=Allow
	// +optional
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// suspend, when true, stops new runs; active Jobs go on and history limits still apply. Runs whose time
	// passes while suspended are missed. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// jobTemplate is the Job created for each run. Its labels and annotations are copied onto the Job.
	// +required
	JobTemplate batchv1.JobTemplateSpec `json:"jobTemplate"`

	// successfulJobsHistoryLimit is how many successful finished Jobs are kept; older ones are deleted with
	// their Pods. Defaults to 3. 0 keeps none.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=3
	// +optional
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`

	// failedJobsHistoryLimit is how many failed finished Jobs are kept; older ones are deleted with their
	// Pods. Defaults to 1. 0 keeps none.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`
}

// CronJobStatus is the observed state of a CronJob.
type CronJobStatus struct {
	// active lists the Jobs of this CronJob that have not finished.
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
}

// ObservedSchedule is a schedule as the controller observed it, and since when.
type ObservedSchedule struct {
	// schedule is spec.schedule as observed.
	// +required
	Schedule string `json:"schedule"`

	// timeZone is spec.timeZone as observed; empty means UTC.
	// +optional
	TimeZone string `json:"timeZone,omitempty"`

	// suspended is spec.suspend as observed.
	// +optional
	Suspended bool `json:"suspended,omitempty"`

	// since is when the controller first observed this schedule, time zone and suspend state. The first
	// time the controller sees a CronJob it is status.lastScheduleTime, or the creation time if it never ran.
	// +required
	Since metav1.Time `json:"since"`
}

// Condition types and reasons of CronJobStatus.Conditions.
const (
	// ConditionReady is True while the controller can schedule runs of the CronJob.
	ConditionReady = "Ready"
	// ReasonScheduled is the reason of a True Ready condition of an active CronJob.
	ReasonScheduled = "Scheduled"
	// ReasonSuspended is the reason of a True Ready condition of a suspended CronJob.
	ReasonSuspended = "Suspended"
	// ReasonUnparseableSchedule: spec.schedule cannot be parsed.
	ReasonUnparseableSchedule = "UnparseableSchedule"
	// ReasonUnknownTimeZone: spec.timeZone is not a known IANA time zone.
	ReasonUnknownTimeZone = "UnknownTimeZone"
	// ReasonScheduleNeverFires: the schedule has no time in the next five years, such as "0 0 31 2 *".
	ReasonScheduleNeverFires = "ScheduleNeverFires"
	// ReasonFailedCreate: the Job of the due run could not be created, or a Job of its name belongs to
	// someone else.
	ReasonFailedCreate = "FailedCreate"
)

// CronJob runs a Job on a cron schedule, like batch/v1 CronJob.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=cjo,categories=all
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="TimeZone",type=string,JSONPath=`.spec.timeZone`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Active",type=string,JSONPath=`.status.active[*].name`,description="Names of the active Jobs"
// +kubebuilder:printcolumn:name="Last Schedule",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
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
