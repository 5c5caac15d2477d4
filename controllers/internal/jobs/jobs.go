package jobs

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/parameters"
)

// Name is the name of the Job for a scheduled time: "<cronjob>-<scheduled time in Unix minutes>", as in
// batch/v1. It is deterministic, so a second create for the same run meets AlreadyExists instead of making
// a duplicate. With names of at most cronjobv1.MaxNameLength characters it fits 63 characters.
func Name(cronJobName string, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cronJobName, scheduled.Unix()/60)
}

// RunName is the name of the Job of a run without spec.scheduledTime (run now):
// "<cronjob>-m<9 hex digits>", the digits 36 bits of a hash of the CronJobRun's UID. It is deterministic,
// so a create retried after a lost status write meets AlreadyExists and adopts the Job instead of making a
// second one; the "m" keeps it apart from the names of scheduled runs, "<cronjob>-<Unix minutes>" (digits
// only); with a CronJob name of cronjobv1.MaxNameLength (52) characters it has 63, the limit of the
// job-name label. Should two runs of one CronJob hash alike (a chance of 2^-36 per pair), the Job's
// CronJobRunAnnotation names the first, and the second is Rejected (JobNameTaken).
func RunName(cronJobName string, runUID types.UID) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(runUID))
	return fmt.Sprintf("%s-m%09x", cronJobName, h.Sum64()&(1<<36-1))
}

// New builds the Job for the run scheduled at `scheduled`, at `created` by the controller's clock: the
// template's labels, annotations and spec, the scheduled-at annotation and batch/v1's
// cronjob-scheduled-timestamp (both RFC 3339 in loc, the CronJob's time zone), the created-at annotation
// (RFC 3339 with nanoseconds, UTC: the run's start, see StartTime), the trigger label "schedule"
// (cronjobv1.TriggerLabel; a CronJobRun's Job says "manual") and a controller owner reference
// to the CronJob, so the garbage collector deletes the Job with its CronJob. Template labels and
// annotations with the prefix cronjobv1.ReservedPrefix are dropped, not copied: the schema refuses them,
// and a CronJob admitted before that rule still cannot forge the keys the operator reads (a cronjobrun
// annotation would tie every scheduled Job to a run of the author's choosing). The pod template is copied
// as it is (nothing reads our keys on Pods), with the defaults of the CronJob's parameters, if it declares
// any, in its containers' env and in the parameters annotation (see NewWithParameters).
func New(cj *cronjobv1.CronJob, scheduled time.Time, loc *time.Location, created time.Time) *batchv1.Job {
	return NewWithParameters(cj, scheduled, loc, created, nil)
}

// NewWithParameters is New for a run that gives values to the CronJob's parameters (a CronJobRun's
// spec.parameters, checked with parameters.Check): each declared parameter gets the value given, else its
// default, as an environment variable of every container and init container (parameters.Apply) and in
// cronjobv1.ParametersAnnotation. A CronJob without parameters gets the Job of New, byte for byte: no
// annotation, no env entry.
func NewWithParameters(cj *cronjobv1.CronJob, scheduled time.Time, loc *time.Location, created time.Time, given []cronjobv1.ParameterValue) *batchv1.Job {
	tmpl := cj.Spec.JobTemplate
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:        Name(cj.Name, scheduled),
			Namespace:   cj.Namespace,
			Labels:      withoutReserved(tmpl.Labels),
			Annotations: withoutReserved(tmpl.Annotations),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj,
				cronjobv1.GroupVersion.WithKind("CronJob"))},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	if job.Annotations == nil {
		job.Annotations = map[string]string{}
	}
	job.Annotations[cronjobv1.ScheduledAtAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	job.Annotations[cronjobv1.UpstreamScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	job.Annotations[cronjobv1.CreatedAtAnnotation] = created.UTC().Format(time.RFC3339Nano)
	if job.Labels == nil {
		job.Labels = map[string]string{}
	}
	job.Labels[cronjobv1.TriggerLabel] = cronjobv1.TriggerSchedule
	if values := parameters.Resolve(cj.Spec.Parameters, given); len(values) > 0 {
		parameters.Apply(&job.Spec.Template.Spec, values)
		job.Annotations[cronjobv1.ParametersAnnotation] = parameters.Annotation(values)
	}
	return job
}

// withoutReserved returns a copy of m without the keys of cronjobv1.ReservedPrefix (nil for a nil m).
func withoutReserved(m map[string]string) map[string]string {
	out := maps.Clone(m)
	maps.DeleteFunc(out, func(k, _ string) bool { return strings.HasPrefix(k, cronjobv1.ReservedPrefix) })
	return out
}

// StartTime is when the run of the Job started: its created-at annotation (the controller's clock when it
// built the Job), else, for a Job created before that annotation or whose value does not parse, its
// creationTimestamp (the API server's clock). runTimeoutSeconds and startTimeoutSeconds count from it.
func StartTime(job *batchv1.Job) time.Time {
	if at, err := time.Parse(time.RFC3339Nano, job.Annotations[cronjobv1.CreatedAtAnnotation]); err == nil {
		return at
	}
	return job.CreationTimestamp.Time
}

// PodsStarted reports whether a Pod of the Job has started, as its status tells (no Pods are read): a
// ready Pod, or a Pod that succeeded or failed. A Job whose Pods are unschedulable, cannot pull their
// image, wait for a quota, or that is held suspended has none.
func PodsStarted(job *batchv1.Job) bool {
	return ptr.Deref(job.Status.Ready, 0) > 0 || job.Status.Succeeded > 0 || job.Status.Failed > 0
}

// Finished reports whether a Job has finished, and how: batchv1.JobComplete or batchv1.JobFailed.
// A Job is finished when either condition is True, as in batch/v1 CronJob.
func Finished(job *batchv1.Job) (bool, batchv1.JobConditionType) {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true, c.Type
		}
	}
	return false, ""
}

// FailedTime returns the time a failed Job was marked failed (its Failed condition), or nil.
func FailedTime(job *batchv1.Job) *metav1.Time {
	if c := FailedCondition(job); c != nil {
		t := c.LastTransitionTime
		return &t
	}
	return nil
}

// FailedCondition returns the Job's Failed condition when it is True (its reason says why the Job
// failed: BackoffLimitExceeded, DeadlineExceeded, ...), or nil.
func FailedCondition(job *batchv1.Job) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		if c := &job.Status.Conditions[i]; c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// IsOwnedBy reports whether the CronJob is the Job's controller owner (matched by UID, so a CronJob
// recreated under the same name does not adopt the Jobs of its predecessor).
func IsOwnedBy(job *batchv1.Job, cj *cronjobv1.CronJob) bool {
	ref := metav1.GetControllerOf(job)
	return ref != nil && ref.UID == cj.UID
}

// jobRef is the status.active entry for a Job.
func jobRef(job *batchv1.Job) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion:      batchv1.SchemeGroupVersion.String(),
		Kind:            "Job",
		Namespace:       job.Namespace,
		Name:            job.Name,
		UID:             job.UID,
		ResourceVersion: job.ResourceVersion,
	}
}

// InActive reports whether status.active lists the Job with this UID.
func InActive(status *cronjobv1.CronJobStatus, uid types.UID) bool {
	for _, ref := range status.Active {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

// AddActive adds the Job to status.active unless it is listed already.
func AddActive(status *cronjobv1.CronJobStatus, job *batchv1.Job) {
	if !InActive(status, job.UID) {
		status.Active = append(status.Active, jobRef(job))
	}
}

// BoundActive keeps the first cronjobv1.MaxActiveListed entries of status.active, the schema's maxItems,
// and drops the rest. The controller calls it once, before it compares and writes the status: during a
// sync status.active holds every active Job (trackJobs adds each running Job of the cache it lacks), so
// the concurrency decisions count them all. As AddActive appends, the entries kept are the ones listed
// longest; a Job beyond them is listed as soon as one of them leaves, and until then does not rewrite the
// status.
func BoundActive(status *cronjobv1.CronJobStatus) {
	if len(status.Active) > cronjobv1.MaxActiveListed {
		status.Active = slices.Clip(status.Active[:cronjobv1.MaxActiveListed])
	}
}

// RemoveActive drops the Job with this UID from status.active.
func RemoveActive(status *cronjobv1.CronJobStatus, uid types.UID) {
	kept := status.Active[:0]
	for _, ref := range status.Active {
		if ref.UID != uid {
			kept = append(kept, ref)
		}
	}
	if len(kept) == 0 {
		kept = nil
	}
	status.Active = kept
}
