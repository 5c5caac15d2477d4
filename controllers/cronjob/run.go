package cronjob

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/faults"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
)

// Starting a run: adopt its Job, or create it; a Job of someone else that holds its name blocks it.

// adoptOrBlocked does what comes before the concurrency policy for the run scheduled at `scheduled`: a Job
// of ours for it exists already (adopted, see adopt), or a Job of someone else holds its name (blocked,
// failure says so). done is false when the run is still to start.
func (s *syncer) adoptOrBlocked(ctx context.Context, scheduled time.Time, loc *time.Location) (done bool, failure string) {
	s.out.Job = jobs.Name(s.cj.Name, scheduled)
	if knowsJob(s.cj, s.jobs, s.out.Job) {
		s.adopt(ctx, scheduled)
		return true, ""
	}
	if msg, blocked := s.stillBlocked(ctx, s.out.Job, scheduled, loc); blocked {
		s.out.Run = RunBlocked
		return true, msg
	}
	return false, ""
}

// adopt makes the Job of ours named for the run scheduled at `scheduled` that run (RunAdopted):
// lastScheduleTime becomes the scheduled time, if later, and its status.recentRuns entry gets the trigger
// of the run (s.adoptAs: CatchUp, Queue), which the Job does not tell. trackJobs has already put the Job in
// status.active if it is still running, and listed it.
func (s *syncer) adopt(ctx context.Context, scheduled time.Time) {
	ctrl.LoggerFrom(ctx).V(1).Info("Job of the due run exists, adopting it", "job", s.out.Job)
	s.out.Run = RunAdopted
	s.retrigger(s.out.Job, s.adoptAs)
	s.cj.Status.LastScheduleTime = laterTime(s.cj.Status.LastScheduleTime, ptr.To(metav1.NewTime(scheduled)))
}

// skip records that the run scheduled at `scheduled` does not start now because of the concurrency policy
// (JobAlreadyActive; counted in runs_missed_total under reason, once per run). It is retried while within
// startingDeadlineSeconds.
func (s *syncer) skip(scheduled time.Time, reason, note string, args ...any) {
	s.out.Run = RunSkipped
	s.event(corev1.EventTypeNormal, cronjobv1.ReasonJobAlreadyActive, "Schedule", note, args...)
	if s.r.warned.first(client.ObjectKeyFromObject(s.cj), cronjobv1.ReasonJobAlreadyActive, string(s.cj.UID)+"/"+slotCause(scheduled)) {
		s.r.Metrics.RunsMissed(reason, 1)
	}
}

// createRun creates the Job of the run scheduled at `scheduled` and records the run. A Job of that name
// that exists already is adopted when it is ours, and blocks the run when it is someone else's.
func (s *syncer) createRun(ctx context.Context, scheduled time.Time, loc *time.Location) (failure string, err error) {
	log := ctrl.LoggerFrom(ctx)
	job := jobs.New(s.cj, scheduled, loc, s.now)
	if s.r.Queue != nil {
		// Its create event may come before the response; the reconcile settles it (expectedCreates).
		s.r.expected.expect(client.ObjectKeyFromObject(s.cj), job.Name)
	}
	result, existing, err := jobs.Create(ctx, s.r.Client, s.r.APIReader, s.cj, job)
	switch result {
	case jobs.Unread:
		s.out.Run = RunFailed
		return "", err
	case jobs.Taken:
		s.out.Run = RunBlocked
		s.r.blocked.block(client.ObjectKeyFromObject(existing), blockedRun{
			cronJob: client.ObjectKeyFromObject(s.cj), generation: s.cj.Generation, scheduled: scheduled,
			uid: existing.UID, resourceVersion: existing.ResourceVersion,
		})
		msg := blockedMessage(job.Name, scheduled, loc)
		s.warnOnce(cronjobv1.ReasonFailedCreate, slotCause(scheduled), "Create", "%s", msg)
		return msg, nil
	case jobs.Exists:
		// Our own Job, created by an earlier reconcile whose status write was lost: adopt it.
		log.V(1).Info("Job already exists, adopting it", "job", klog.KObj(existing))
		s.out.Run = RunAdopted
		job = existing
	case jobs.NamespaceTerminating:
		log.V(1).Info("Namespace is terminating, not creating Job", "job", klog.KObj(job))
		s.out.Run = RunNamespaceTerminating
		return "", nil
	case jobs.Failed:
		s.out.Run = RunFailed
		s.r.Metrics.JobCreateFailed()
		s.warnOnce(cronjobv1.ReasonFailedCreate, slotCause(scheduled), "Create", "Error creating job: %v", errors.Unwrap(err))
		return err.Error(), err
	default: // jobs.Created
		log.Info("Created Job", "job", klog.KObj(job), "scheduledTime", scheduled.In(loc).Format(time.RFC3339))
		s.out.Run, s.created = RunCreated, job
		if s.r.busy() {
			// The record is likely to be deferred (deferred.go): so is the Event, to go out after the Jobs.
			s.createdJobs = append(s.createdJobs, job.Name)
		} else {
			s.r.announceCreated(s.cj, []string{job.Name})
		}
		faults.At(faults.AfterJobCreate)
	}
	s.r.blocked.forget(client.ObjectKeyFromObject(s.cj))
	s.recordRun(job, scheduled)
	return "", nil
}

// stillBlocked reports whether the run scheduled at `scheduled` is still blocked by the Job of someone else
// that held its name when it was last tried (see blockedRuns): the cache still has that Job unchanged and
// the CronJob's spec has not changed. Then the run is not tried again, and msg is the reason for the
// Ready condition, which stays False.
func (s *syncer) stillBlocked(ctx context.Context, name string, scheduled time.Time, loc *time.Location) (msg string, blocked bool) {
	key := types.NamespacedName{Namespace: s.cj.Namespace, Name: name}
	run, ok := s.r.blocked.lookup(key)
	if !ok || run.cronJob != client.ObjectKeyFromObject(s.cj) || run.generation != s.cj.Generation ||
		!run.scheduled.Equal(scheduled) {
		return "", false // nothing recorded for this run (the usual case: no cache read)
	}
	var cached batchv1.Job
	if err := s.r.Client.Get(ctx, key, &cached); err != nil {
		return "", false // gone, or unreadable: try the create
	}
	if cached.UID != run.uid || cached.ResourceVersion != run.resourceVersion {
		return "", false // changed since: try again
	}
	return blockedMessage(name, scheduled, loc), true
}

// blockedMessage says that a Job of someone else holds the name of the run's Job, and what to do.
func blockedMessage(name string, scheduled time.Time, loc *time.Location) string {
	return fmt.Sprintf("Job %s already exists and is not controlled by this CronJob; the run scheduled at %s is not started. Delete or rename that Job",
		name, scheduled.In(loc).Format(time.RFC3339))
}

// recordRun records that the run scheduled at `scheduled` has its Job.
func (s *syncer) recordRun(job *batchv1.Job, scheduled time.Time) {
	if finished, _ := jobs.Finished(job); !finished {
		jobs.AddActive(&s.cj.Status, job)
	}
	s.recordStart(job, s.trigger)
	if at, _, ok := runDeadline(&s.cj.Spec, job); ok {
		s.wakeBy(at) // the new run's own timeout
	}
	s.cj.Status.LastScheduleTime = laterTime(s.cj.Status.LastScheduleTime, ptr.To(metav1.NewTime(scheduled)))
}
