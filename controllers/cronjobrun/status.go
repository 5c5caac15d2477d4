package cronjobrun

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
)

// jobKind is the kind of the owner reference from a run to its Job.
const jobKind = "Job"

// cronJobKind is the kind of the owner reference from a Rejected run to its CronJob.
const cronJobKind = "CronJob"

// finished reports whether the run has reached a final phase: Succeeded, Failed or Rejected.
func finished(run *cronjobv1.CronJobRun) bool {
	switch run.Status.Phase {
	case cronjobv1.RunSucceeded, cronjobv1.RunFailed, cronjobv1.RunRejected:
		return true
	}
	return false
}

// runExpiry is when a finished run is deleted: completionTime (now when unset) plus
// spec.ttlSecondsAfterFinished, or cronjobv1.DefaultRunTTLSecondsAfterFinished when unset, at most
// cronjobv1.MaxRunTTLSecondsAfterFinished (the schema's maximum, for runs stored before it).
func runExpiry(run *cronjobv1.CronJobRun, now time.Time) time.Time {
	done := now
	if run.Status.CompletionTime != nil {
		done = run.Status.CompletionTime.Time
	}
	ttl := min(ptr.Deref(run.Spec.TTLSecondsAfterFinished, cronjobv1.DefaultRunTTLSecondsAfterFinished), cronjobv1.MaxRunTTLSecondsAfterFinished)
	return done.Add(time.Duration(ttl) * time.Second)
}

// followJob sets the run's phase from its Job: Running until the Job's Complete or Failed condition is
// True (jobs.Finished), then Succeeded or Failed with the Job's completion (or failure) time.
func (s *runSyncer) followJob(job *batchv1.Job) {
	st := &s.run.Status
	switch _, how := jobs.Finished(job); how {
	case batchv1.JobComplete:
		st.Phase = cronjobv1.RunSucceeded
		st.CompletionTime = timeOr(job.Status.CompletionTime, s.now)
		s.setReady(metav1.ConditionTrue, cronjobv1.ReasonJobComplete, fmt.Sprintf("Job %s completed", job.Name))
	case batchv1.JobFailed:
		st.Phase = cronjobv1.RunFailed
		st.CompletionTime = timeOr(jobs.FailedTime(job), s.now)
		s.setReady(metav1.ConditionFalse, cronjobv1.ReasonJobFailed, fmt.Sprintf("Job %s failed", job.Name))
	default:
		st.Phase = cronjobv1.RunRunning
		if c := meta.FindStatusCondition(st.Conditions, cronjobv1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
			s.setReady(metav1.ConditionTrue, cronjobv1.ReasonJobCreated, fmt.Sprintf("Job %s runs", job.Name))
		}
	}
}

// timeOr returns a copy of t, or now when t is nil.
func timeOr(t *metav1.Time, now time.Time) *metav1.Time {
	if t == nil {
		return ptr.To(metav1.NewTime(now))
	}
	return t.DeepCopy()
}

// bindJob records that the run's Job is job: created by this run (created) or one that existed already.
// It gives the run an owner reference to the Job first (see ownJob), then sets status.jobName, the
// scheduled and start times, and the phase.
func (s *runSyncer) bindJob(ctx context.Context, job *batchv1.Job, scheduled time.Time, created bool) error {
	if err := s.ownJob(ctx, job); err != nil {
		return err
	}
	st := &s.run.Status
	st.JobName = job.Name
	st.ScheduledTime = ptr.To(metav1.NewTime(scheduled))
	st.StartTime = ptr.To(metav1.NewTime(s.now))
	if !created && !job.CreationTimestamp.IsZero() {
		st.StartTime = job.CreationTimestamp.DeepCopy()
	}
	reason, msg := cronjobv1.ReasonJobCreated, fmt.Sprintf("Job %s runs", job.Name)
	if !created && job.Annotations[cronjobv1.CronJobRunAnnotation] != s.run.Name {
		reason, msg = cronjobv1.ReasonJobExisted, fmt.Sprintf("Job %s of the scheduled time existed already; this run created nothing and reports it", job.Name)
		s.event(corev1.EventTypeNormal, cronjobv1.ReasonJobExisted, "Create", "%s", msg)
	}
	s.setReady(metav1.ConditionTrue, reason, msg)
	s.followJob(job)
	s.pass.started(job)
	return nil
}

// ownJob makes the run a dependent of its Job (an owner reference that is not a controller and does not
// block the Job's deletion), so the garbage collector deletes the run with the Job: a run lives no longer
// than its Job, which its CronJob's history limits delete. This is a write of the run's metadata, once per
// run, before the status write that records the Job; the run's status in memory is kept.
func (s *runSyncer) ownJob(ctx context.Context, job *batchv1.Job) error {
	if ownedJobUID(s.run) == job.UID {
		return nil
	}
	status := s.run.Status.DeepCopy()
	refs := make([]metav1.OwnerReference, 0, len(s.run.OwnerReferences)+1)
	for _, ref := range s.run.OwnerReferences {
		if ref.APIVersion != batchv1.SchemeGroupVersion.String() || ref.Kind != jobKind {
			refs = append(refs, ref)
		}
	}
	s.run.OwnerReferences = append(refs, metav1.OwnerReference{
		APIVersion: batchv1.SchemeGroupVersion.String(), Kind: jobKind, Name: job.Name, UID: job.UID,
	})
	// Under a timeout, its CronJob too, in the same write (see ownCronJobUnderTimeouts).
	if cj, err := s.pass.cronJob(ctx, s.r.Client); err == nil && hasTimeouts(cj) && !ownedBy(s.run, cj) {
		s.run.OwnerReferences = append(s.run.OwnerReferences, metav1.OwnerReference{
			APIVersion: cronjobv1.GroupVersion.String(), Kind: cronJobKind, Name: cj.Name, UID: cj.UID})
	}
	if err := s.r.Client.Update(ctx, s.run); err != nil {
		return fmt.Errorf("adding the owner reference to job %s: %w", job.Name, err)
	}
	s.run.Status = *status
	return nil
}

// ownCronJob makes a Rejected run a dependent of its CronJob (an owner reference that is not a controller
// and does not block the CronJob's deletion), so that the garbage collector deletes it with the CronJob
// instead of keeping it until its TTL ends. A write of the run's metadata, once; the status in memory is
// kept.
func (s *runSyncer) ownCronJob(ctx context.Context, cj *cronjobv1.CronJob) error {
	if ownedBy(s.run, cj) {
		return nil
	}
	status := s.run.Status.DeepCopy()
	s.run.OwnerReferences = append(s.run.OwnerReferences, metav1.OwnerReference{
		APIVersion: cronjobv1.GroupVersion.String(), Kind: cronJobKind, Name: cj.Name, UID: cj.UID})
	if err := s.r.Client.Update(ctx, s.run); err != nil {
		return fmt.Errorf("adding the owner reference to cronjob %s: %w", cj.Name, err)
	}
	s.run.Status = *status
	return nil
}

// ownedJobUID returns the UID of the Job the run's owner reference names, or "" if it has none.
func ownedJobUID(run *cronjobv1.CronJobRun) types.UID {
	for _, ref := range run.OwnerReferences {
		if ref.APIVersion == batchv1.SchemeGroupVersion.String() && ref.Kind == jobKind {
			return ref.UID
		}
	}
	return ""
}

// reject makes the run Rejected: final, with completionTime now (its TTL counts from it), a Ready=False
// condition with the reason and a message that says what to fix, and a Warning event.
func (s *runSyncer) reject(reason, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.run.Status.Phase = cronjobv1.RunRejected
	s.run.Status.CompletionTime = ptr.To(metav1.NewTime(s.now))
	s.setReady(metav1.ConditionFalse, reason, msg)
	s.event(corev1.EventTypeWarning, reason, "Create", "%s", msg)
}

// wait keeps the run Pending with a Ready=False condition that says what it waits for, and a Normal
// event when it starts waiting for that reason.
func (s *runSyncer) wait(reason, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.run.Status.Phase = cronjobv1.RunPending
	if c := meta.FindStatusCondition(s.run.Status.Conditions, cronjobv1.ConditionReady); c == nil || c.Reason != reason {
		s.event(corev1.EventTypeNormal, reason, "Create", "%s", msg)
	}
	s.setReady(metav1.ConditionFalse, reason, msg)
}

// setReady sets the run's Ready condition; lastTransitionTime moves only when its status changes.
func (s *runSyncer) setReady(status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&s.run.Status.Conditions, metav1.Condition{
		Type:               cronjobv1.ConditionReady,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: s.run.Generation,
		LastTransitionTime: metav1.NewTime(s.now),
	})
}

// event records an event about the run.
func (s *runSyncer) event(eventType, reason, action, note string, args ...any) {
	if s.r.Recorder != nil {
		s.r.Recorder.Eventf(s.run, nil, eventType, reason, action, note, args...)
	}
}

// ownedBy reports whether the run has an owner reference to the CronJob (by UID).
func ownedBy(run *cronjobv1.CronJobRun, cj *cronjobv1.CronJob) bool {
	gv := cronjobv1.GroupVersion.String()
	for _, ref := range run.OwnerReferences {
		if ref.APIVersion == gv && ref.Kind == cronJobKind && ref.UID == cj.UID {
			return true
		}
	}
	return false
}
