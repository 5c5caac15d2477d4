package builders

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// JobWrapper builds a batch/v1 Job.
type JobWrapper struct {
	batchv1.Job
}

// MakeJob returns a builder of a valid Job that runs busybox once (restartPolicy Never), with no status:
// to the CronJob controller, a running Job.
func MakeJob(name, ns string) *JobWrapper {
	return &JobWrapper{batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       batchv1.JobSpec{Template: podTemplate()},
	}}
}

// FromJob returns a builder that starts from a copy of job, such as a Job the controller created, to
// change its status.
func FromJob(job *batchv1.Job) *JobWrapper {
	return &JobWrapper{*job.DeepCopy()}
}

// Obj returns a copy of the built Job.
func (w *JobWrapper) Obj() *batchv1.Job {
	return w.Job.DeepCopy()
}

// OwnedBy makes the CronJob the Job's controller owner, as the CronJob controller does. The CronJob must
// have its UID (it must have been created).
func (w *JobWrapper) OwnedBy(cj *cronjobv1.CronJob) *JobWrapper {
	w.OwnerReferences = append(w.OwnerReferences,
		*metav1.NewControllerRef(cj, cronjobv1.GroupVersion.WithKind("CronJob")))
	return w
}

// ScheduledAt sets the annotation cronjobv1.ScheduledAtAnnotation to t in RFC 3339, as the controller does
// for the run scheduled at t.
func (w *JobWrapper) ScheduledAt(t time.Time) *JobWrapper {
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	w.Annotations[cronjobv1.ScheduledAtAnnotation] = t.Format(time.RFC3339)
	return w
}

// Label sets a label.
func (w *JobWrapper) Label(key, value string) *JobWrapper {
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels[key] = value
	return w
}

// UID sets metadata.uid, for tests without an API server.
func (w *JobWrapper) UID(uid types.UID) *JobWrapper {
	w.ObjectMeta.UID = uid
	return w
}

// CreationTimestamp sets metadata.creationTimestamp, for tests without an API server.
func (w *JobWrapper) CreationTimestamp(t time.Time) *JobWrapper {
	w.ObjectMeta.CreationTimestamp = metav1.NewTime(t)
	return w
}

// StartedAt sets status.startTime.
func (w *JobWrapper) StartedAt(t time.Time) *JobWrapper {
	w.Status.StartTime = ptr.To(metav1.NewTime(t))
	return w
}

// NotStarted clears status.startTime, as for a Job whose Pod never started. The API server refuses a
// finished Job without startTime, so a finished one that never started exists only in tests without an
// API server.
func (w *JobWrapper) NotStarted() *JobWrapper {
	w.Status.StartTime = nil
	return w
}

// Orphaned removes the owner references, as the garbage collector does when its owner is deleted with
// orphan propagation: a Job that no CronJob controls.
func (w *JobWrapper) Orphaned() *JobWrapper {
	w.OwnerReferences = nil
	return w
}

// Succeeded marks the Job as succeeded at `at` the way the Job controller does, so that the API server's
// Job status validation accepts it through the status subresource: status.startTime (unless StartedAt set
// it: `at`), completionTime `at`, succeeded 1 (the default completions) and the conditions
// SuccessCriteriaMet=True then Complete=True. kube-apiserver 1.37 rejects a finished Job without
// startTime, a Complete one without completionTime or without SuccessCriteriaMet=True, and a completionTime
// before startTime.
func (w *JobWrapper) Succeeded(at time.Time) *JobWrapper {
	w.finish(at)
	w.Status.CompletionTime = ptr.To(metav1.NewTime(at))
	w.Status.Succeeded = 1
	w.Status.Conditions = append(w.Status.Conditions,
		jobCondition(batchv1.JobSuccessCriteriaMet, "CompletionsReached", "Reached expected number of succeeded pods", at),
		jobCondition(batchv1.JobComplete, "CompletionsReached", "Reached expected number of succeeded pods", at))
	return w
}

// Failed marks the Job as failed at `at` the way the Job controller does when its backoff limit is
// exceeded, so that the API server's Job status validation accepts it: status.startTime (unless StartedAt
// set it: `at`), failed 1, no completionTime, and the conditions FailureTarget=True then Failed=True.
// kube-apiserver 1.37 rejects a Failed Job without FailureTarget=True or with a completionTime.
func (w *JobWrapper) Failed(at time.Time) *JobWrapper {
	w.finish(at)
	w.Status.Failed = 1
	w.Status.Conditions = append(w.Status.Conditions,
		jobCondition(batchv1.JobFailureTarget, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", at),
		jobCondition(batchv1.JobFailed, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", at))
	return w
}

// finish sets the start time if unset (Job status validation requires it of a finished Job) and clears the
// active Pods (a finished Job has none).
func (w *JobWrapper) finish(at time.Time) {
	if w.Status.StartTime == nil {
		w.Status.StartTime = ptr.To(metav1.NewTime(at))
	}
	w.Status.Active = 0
}

func jobCondition(t batchv1.JobConditionType, reason, message string, at time.Time) batchv1.JobCondition {
	return batchv1.JobCondition{
		Type:               t,
		Status:             corev1.ConditionTrue,
		LastProbeTime:      metav1.NewTime(at),
		LastTransitionTime: metav1.NewTime(at),
		Reason:             reason,
		Message:            message,
	}
}
