package builders

import (
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// DefaultSchedule is the schedule of a CronJob built by MakeCronJob: every five minutes.
const DefaultSchedule = "*/5 * * * *"

// CronJobWrapper builds a CronJob.
type CronJobWrapper struct {
	cronjobv1.CronJob
}

// MakeCronJob returns a builder of a valid CronJob: schedule DefaultSchedule and a Job template that runs
// busybox once (restartPolicy Never). All other fields are unset, so the API server applies its defaults.
func MakeCronJob(name, ns string) *CronJobWrapper {
	return &CronJobWrapper{cronjobv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: cronjobv1.GroupVersion.String(), Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: cronjobv1.CronJobSpec{
			Schedule: DefaultSchedule,
			JobTemplate: batchv1.JobTemplateSpec{
				Spec: batchv1.JobSpec{Template: podTemplate()},
			},
		},
	}}
}

// podTemplate is the Pod template of built Jobs and CronJobs: one busybox container that prints the date.
func podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name:    "main",
				Image:   "busybox",
				Command: []string{"sh", "-c", "date"},
			}},
		},
	}
}

// Obj returns a copy of the built CronJob.
func (w *CronJobWrapper) Obj() *cronjobv1.CronJob {
	return w.CronJob.DeepCopy()
}

// Image sets the image of the Job's container, pulled only if not present (e2e clusters load their
// images with kind and reach no registry).
func (w *CronJobWrapper) Image(image string) *CronJobWrapper {
	c := &w.Spec.JobTemplate.Spec.Template.Spec.Containers[0]
	c.Image = image
	c.ImagePullPolicy = corev1.PullIfNotPresent
	return w
}

// Command sets the command of the Job's container, such as "sh", "-c", "sleep 90".
func (w *CronJobWrapper) Command(command ...string) *CronJobWrapper {
	w.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Command = command
	return w
}

// BackoffLimit sets the Job template's backoffLimit: how many failed Pods the Job controller retries.
func (w *CronJobWrapper) BackoffLimit(n int32) *CronJobWrapper {
	w.Spec.JobTemplate.Spec.BackoffLimit = &n
	return w
}

// Schedule sets spec.schedule.
func (w *CronJobWrapper) Schedule(schedule string) *CronJobWrapper {
	w.Spec.Schedule = schedule
	return w
}

// TimeZone sets spec.timeZone.
func (w *CronJobWrapper) TimeZone(tz string) *CronJobWrapper {
	w.Spec.TimeZone = ptr.To(tz)
	return w
}

// ConcurrencyPolicy sets spec.concurrencyPolicy.
func (w *CronJobWrapper) ConcurrencyPolicy(p cronjobv1.ConcurrencyPolicy) *CronJobWrapper {
	w.Spec.ConcurrencyPolicy = p
	return w
}

// Forbid sets spec.concurrencyPolicy to Forbid.
func (w *CronJobWrapper) Forbid() *CronJobWrapper {
	return w.ConcurrencyPolicy(cronjobv1.ForbidConcurrent)
}

// Replace sets spec.concurrencyPolicy to Replace.
func (w *CronJobWrapper) Replace() *CronJobWrapper {
	return w.ConcurrencyPolicy(cronjobv1.ReplaceConcurrent)
}

// Enqueue sets spec.concurrencyPolicy to Enqueue.
func (w *CronJobWrapper) Enqueue() *CronJobWrapper {
	return w.ConcurrencyPolicy(cronjobv1.EnqueueConcurrent)
}

// MaxActiveJobs sets spec.maxActiveJobs.
func (w *CronJobWrapper) MaxActiveJobs(n int32) *CronJobWrapper {
	w.Spec.MaxActiveJobs = ptr.To(n)
	return w
}

// MaxQueuedRuns sets spec.maxQueuedRuns.
func (w *CronJobWrapper) MaxQueuedRuns(n int32) *CronJobWrapper {
	w.Spec.MaxQueuedRuns = ptr.To(n)
	return w
}

// CatchUp sets spec.missedRunPolicy to All with spec.maxCatchUpRuns n (0 leaves maxCatchUpRuns unset).
func (w *CronJobWrapper) CatchUp(n int32) *CronJobWrapper {
	w.Spec.MissedRunPolicy = cronjobv1.MissedRunAll
	if n > 0 {
		w.Spec.MaxCatchUpRuns = ptr.To(n)
	}
	return w
}

// JitterSeconds sets spec.jitterSeconds.
func (w *CronJobWrapper) JitterSeconds(seconds int32) *CronJobWrapper {
	w.Spec.JitterSeconds = ptr.To(seconds)
	return w
}

// Suspend sets spec.suspend to true.
func (w *CronJobWrapper) Suspend() *CronJobWrapper {
	w.Spec.Suspend = ptr.To(true)
	return w
}

// StartingDeadlineSeconds sets spec.startingDeadlineSeconds.
func (w *CronJobWrapper) StartingDeadlineSeconds(seconds int64) *CronJobWrapper {
	w.Spec.StartingDeadlineSeconds = ptr.To(seconds)
	return w
}

// HistoryLimits sets spec.successfulJobsHistoryLimit and spec.failedJobsHistoryLimit.
func (w *CronJobWrapper) HistoryLimits(succeeded, failed int32) *CronJobWrapper {
	w.Spec.SuccessfulJobsHistoryLimit = ptr.To(succeeded)
	w.Spec.FailedJobsHistoryLimit = ptr.To(failed)
	return w
}

// JobLabel sets a label of the Job template (spec.jobTemplate.metadata.labels), which the controller copies
// onto each Job.
func (w *CronJobWrapper) JobLabel(key, value string) *CronJobWrapper {
	if w.Spec.JobTemplate.Labels == nil {
		w.Spec.JobTemplate.Labels = map[string]string{}
	}
	w.Spec.JobTemplate.Labels[key] = value
	return w
}

// JobAnnotation sets an annotation of the Job template, which the controller copies onto each Job.
func (w *CronJobWrapper) JobAnnotation(key, value string) *CronJobWrapper {
	if w.Spec.JobTemplate.Annotations == nil {
		w.Spec.JobTemplate.Annotations = map[string]string{}
	}
	w.Spec.JobTemplate.Annotations[key] = value
	return w
}

// PodAnnotation sets an annotation of the Job template's Pod template, which each Job's Pods carry (the
// simulated node of test/cluster reads cluster.RunForAnnotation and cluster.OutcomeAnnotation there).
func (w *CronJobWrapper) PodAnnotation(key, value string) *CronJobWrapper {
	t := &w.Spec.JobTemplate.Spec.Template
	if t.Annotations == nil {
		t.Annotations = map[string]string{}
	}
	t.Annotations[key] = value
	return w
}

// JobTTLSecondsAfterFinished sets the Job template's ttlSecondsAfterFinished: the TTL-after-finished
// controller deletes each Job that long after it finished.
func (w *CronJobWrapper) JobTTLSecondsAfterFinished(seconds int32) *CronJobWrapper {
	w.Spec.JobTemplate.Spec.TTLSecondsAfterFinished = &seconds
	return w
}

// UID sets metadata.uid, for tests without an API server.
func (w *CronJobWrapper) UID(uid types.UID) *CronJobWrapper {
	w.ObjectMeta.UID = uid
	return w
}

// ResourceVersion sets metadata.resourceVersion, for tests without an API server.
func (w *CronJobWrapper) ResourceVersion(rv string) *CronJobWrapper {
	w.ObjectMeta.ResourceVersion = rv
	return w
}

// CreationTimestamp sets metadata.creationTimestamp, for tests without an API server (the API server sets
// it on create with its own clock).
func (w *CronJobWrapper) CreationTimestamp(t time.Time) *CronJobWrapper {
	w.ObjectMeta.CreationTimestamp = metav1.NewTime(t)
	return w
}

// Generation sets metadata.generation, for tests without an API server (the API server counts spec
// changes in it).
func (w *CronJobWrapper) Generation(g int64) *CronJobWrapper {
	w.ObjectMeta.Generation = g
	return w
}

// Finalizers sets metadata.finalizers.
func (w *CronJobWrapper) Finalizers(finalizers ...string) *CronJobWrapper {
	w.ObjectMeta.Finalizers = finalizers
	return w
}

// DeletionTimestamp marks the CronJob as being deleted since t, for tests without an API server. A fake
// client refuses a deletionTimestamp on an object without finalizers: set Finalizers too.
func (w *CronJobWrapper) DeletionTimestamp(t time.Time) *CronJobWrapper {
	w.ObjectMeta.DeletionTimestamp = ptr.To(metav1.NewTime(t))
	return w
}

// Edited records an update in metadata.managedFields and bumps metadata.generation, as the API server does
// for a change of the spec, for tests without an API server (a fake client keeps neither).
func (w *CronJobWrapper) Edited(entry metav1.ManagedFieldsEntry) *CronJobWrapper {
	w.ObjectMeta.ManagedFields = append(w.ObjectMeta.ManagedFields, entry)
	w.ObjectMeta.Generation++
	return w
}

// LastScheduleTime sets status.lastScheduleTime. The API server ignores status on create: write it through
// the status subresource (see framework.CreateCronJob).
func (w *CronJobWrapper) LastScheduleTime(t time.Time) *CronJobWrapper {
	w.Status.LastScheduleTime = ptr.To(metav1.NewTime(t))
	return w
}

// LastSuccessfulTime sets status.lastSuccessfulTime.
func (w *CronJobWrapper) LastSuccessfulTime(t time.Time) *CronJobWrapper {
	w.Status.LastSuccessfulTime = ptr.To(metav1.NewTime(t))
	return w
}

// LastFailureTime sets status.lastFailureTime.
func (w *CronJobWrapper) LastFailureTime(t time.Time) *CronJobWrapper {
	w.Status.LastFailureTime = ptr.To(metav1.NewTime(t))
	return w
}

// Queued adds runs scheduled at these times to status.queued, each queued at its scheduled time.
func (w *CronJobWrapper) Queued(scheduled ...time.Time) *CronJobWrapper {
	for _, t := range scheduled {
		w.Status.Queued = append(w.Status.Queued, cronjobv1.QueuedRun{ScheduledTime: metav1.NewTime(t), Since: metav1.NewTime(t)})
	}
	return w
}

// NextScheduleTime sets status.nextScheduleTime.
func (w *CronJobWrapper) NextScheduleTime(t time.Time) *CronJobWrapper {
	w.Status.NextScheduleTime = ptr.To(metav1.NewTime(t))
	return w
}

// ObservedSchedule sets status.observedSchedule: what the controller last acted on, and since when.
func (w *CronJobWrapper) ObservedSchedule(o cronjobv1.ObservedSchedule) *CronJobWrapper {
	w.Status.ObservedSchedule = &o
	return w
}

// Condition sets a status condition, replacing the one of the same type; unlike meta.SetStatusCondition it
// keeps c as given (a zero lastTransitionTime stays zero), so a test without a clock stays deterministic.
func (w *CronJobWrapper) Condition(c metav1.Condition) *CronJobWrapper {
	for i := range w.Status.Conditions {
		if w.Status.Conditions[i].Type == c.Type {
			w.Status.Conditions[i] = c
			return w
		}
	}
	w.Status.Conditions = append(w.Status.Conditions, c)
	return w
}

// Active adds references to the Jobs to status.active, as the controller writes them.
func (w *CronJobWrapper) Active(jobs ...*batchv1.Job) *CronJobWrapper {
	for _, job := range jobs {
		w.Status.Active = append(w.Status.Active, corev1.ObjectReference{
			APIVersion:      batchv1.SchemeGroupVersion.String(),
			Kind:            "Job",
			Namespace:       job.Namespace,
			Name:            job.Name,
			UID:             job.UID,
			ResourceVersion: job.ResourceVersion,
		})
	}
	return w
}

// RunTimeoutSeconds sets spec.runTimeoutSeconds.
func (w *CronJobWrapper) RunTimeoutSeconds(seconds int64) *CronJobWrapper {
	w.Spec.RunTimeoutSeconds = ptr.To(seconds)
	return w
}

// StartTimeoutSeconds sets spec.startTimeoutSeconds.
func (w *CronJobWrapper) StartTimeoutSeconds(seconds int64) *CronJobWrapper {
	w.Spec.StartTimeoutSeconds = ptr.To(seconds)
	return w
}

// SuccessDeadlineSeconds sets spec.successDeadlineSeconds.
func (w *CronJobWrapper) SuccessDeadlineSeconds(seconds int64) *CronJobWrapper {
	w.Spec.SuccessDeadlineSeconds = ptr.To(seconds)
	return w
}

// PauseAfterFailures sets spec.pauseAfterFailures.
func (w *CronJobWrapper) PauseAfterFailures(n int32) *CronJobWrapper {
	w.Spec.PauseAfterFailures = ptr.To(n)
	return w
}

// RecentRunsLimit sets spec.recentRunsLimit.
func (w *CronJobWrapper) RecentRunsLimit(n int32) *CronJobWrapper {
	w.Spec.RecentRunsLimit = ptr.To(n)
	return w
}

// ConsecutiveFailures sets status.consecutiveFailures.
func (w *CronJobWrapper) ConsecutiveFailures(n int32) *CronJobWrapper {
	w.Status.ConsecutiveFailures = n
	return w
}

// Annotation sets an annotation of the CronJob.
func (w *CronJobWrapper) Annotation(key, value string) *CronJobWrapper {
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	w.Annotations[key] = value
	return w
}

// Schedules sets spec.schedules (and clears spec.schedule): each entry is a cron expression, optionally
// followed by " @ ZONE" for its own time zone ("0 9 * * * @ America/New_York").
func (w *CronJobWrapper) Schedules(entries ...string) *CronJobWrapper {
	w.Spec.Schedule = ""
	w.Spec.Schedules = nil
	for _, e := range entries {
		entry := cronjobv1.ScheduleEntry{Schedule: e}
		if cronExpr, zone, ok := strings.Cut(e, " @ "); ok {
			entry = cronjobv1.ScheduleEntry{Schedule: cronExpr, TimeZone: ptr.To(zone)}
		}
		w.Spec.Schedules = append(w.Spec.Schedules, entry)
	}
	return w
}

// Calendars sets spec.calendars.
func (w *CronJobWrapper) Calendars(names ...string) *CronJobWrapper {
	w.Spec.Calendars = names
	return w
}

// ActiveWindow sets spec.activeWindow; a zero time leaves that bound unset.
func (w *CronJobWrapper) ActiveWindow(notBefore, notAfter time.Time) *CronJobWrapper {
	win := &cronjobv1.ActiveWindow{}
	if !notBefore.IsZero() {
		win.NotBefore = ptr.To(metav1.NewTime(notBefore))
	}
	if !notAfter.IsZero() {
		win.NotAfter = ptr.To(metav1.NewTime(notAfter))
	}
	w.Spec.ActiveWindow = win
	return w
}

// SuspendUntil sets spec.suspendUntil.
func (w *CronJobWrapper) SuspendUntil(t time.Time) *CronJobWrapper {
	w.Spec.SuspendUntil = ptr.To(metav1.NewTime(t))
	return w
}

// LastExcludedTime sets status.lastExcludedTime.
func (w *CronJobWrapper) LastExcludedTime(t time.Time) *CronJobWrapper {
	w.Status.LastExcludedTime = ptr.To(metav1.NewTime(t))
	return w
}
