package cronjobrun

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/concurrency"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/controllers/parameters"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// start starts a run that has no Job yet: it loads the CronJob, works out the Job's name and scheduled
// time (target), adopts a Job of that name that exists already, checks the run's parameter values against
// the CronJob's parameters (parameters.Check), applies the CronJob's concurrency policy
// unless the run says Ignore (admit), and creates the Job. A run that cannot start for a reason the user
// must fix is Rejected, and made a dependent of its CronJob when that exists (ownCronJob), so it goes with
// the CronJob; one that waits for the concurrency policy stays Pending.
func (s *runSyncer) start(ctx context.Context) (ctrl.Result, error) {
	cj, err := s.pass.cronJob(ctx, s.r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	if cj == nil {
		s.reject(cronjobv1.ReasonCronJobNotFound, "CronJob %s does not exist in namespace %s: create it (or correct spec.cronJobName), then create another CronJobRun",
			s.run.Spec.CronJobName, s.run.Namespace)
		return s.pruneAfterTTL(ctx)
	}
	result, err := s.startOf(ctx, cj)
	if err == nil && s.run.Status.Phase == cronjobv1.RunRejected && !s.deleted {
		err = s.ownCronJob(ctx, cj)
	}
	return result, err
}

// startOf is start once the CronJob cj is loaded.
func (s *runSyncer) startOf(ctx context.Context, cj *cronjobv1.CronJob) (ctrl.Result, error) {
	if cj.DeletionTimestamp != nil {
		s.reject(cronjobv1.ReasonCronJobDeleting, "CronJob %s is being deleted: no run of it starts", cj.Name)
		return s.pruneAfterTTL(ctx)
	}
	scheduled, name, loc, ok := s.target(cj)
	if !ok {
		return s.pruneAfterTTL(ctx)
	}
	existing := &batchv1.Job{}
	err := s.r.Client.Get(ctx, client.ObjectKey{Namespace: s.run.Namespace, Name: name}, existing)
	if err == nil {
		// Adopted before the concurrency policy applies, so that a run's own Job (its create succeeded, the
		// status write was lost) does not count against it.
		return s.adopt(ctx, cj, existing, scheduled)
	}
	if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("getting job %s: %w", name, err)
	}
	if errs := parameters.Check(cj, s.run.Spec.Parameters); len(errs) > 0 {
		// Admission refuses such a run; this one came while the CronJob could not be checked, or its
		// parameters changed since. Checked before the concurrency policy, which may delete Jobs (Replace).
		s.reject(cronjobv1.ReasonInvalidParameters, "%s: create another CronJobRun with values that fit", errs.ToAggregate())
		return s.pruneAfterTTL(ctx)
	}
	if s.run.Spec.ConcurrencyPolicy != cronjobv1.RunIgnoreConcurrency {
		if admitted, err := s.admit(ctx, cj, name); err != nil || !admitted {
			if err == nil && s.run.Status.Phase == cronjobv1.RunRejected {
				return s.pruneAfterTTL(ctx)
			}
			return ctrl.Result{}, err
		}
	}
	return s.create(ctx, cj, name, scheduled, loc)
}

// target returns the scheduled time of the run's Job, its name and the CronJob's time zone: for a run now,
// now and jobs.RunName; for spec.scheduledTime, that time and jobs.Name, the name of the scheduled run of that
// time, after checking that it is a scheduled time of the schedule (in its time zone) and not in the
// future. ok is false when the run was rejected.
func (s *runSyncer) target(cj *cronjobv1.CronJob) (scheduled time.Time, name string, loc *time.Location, ok bool) {
	sched, loc, err := schedule.ForCronJob(withoutCalendars(cj), nil)
	if s.run.Spec.ScheduledTime == nil {
		if err != nil {
			loc = time.UTC // a run now does not need the schedule; its annotation is then in UTC
		}
		return s.now, jobs.RunName(cj.Name, s.run.UID), loc, true
	}
	t := s.run.Spec.ScheduledTime.Time
	if err != nil {
		var se *schedule.Error
		if !errors.As(err, &se) {
			se = &schedule.Error{Reason: cronjobv1.ReasonUnparseableSchedule, Message: err.Error()}
		}
		s.reject(se.Reason, "the CronJob's scheduled times cannot be computed: %s; then create another CronJobRun", se.Message)
		return time.Time{}, "", nil, false
	}
	if t.After(s.now) {
		s.reject(cronjobv1.ReasonScheduledTimeInFuture, "spec.scheduledTime %s is in the future (now is %s): a backfill runs a past scheduled time; to run now, create a CronJobRun without spec.scheduledTime",
			t.In(loc).Format(time.RFC3339), s.now.In(loc).Format(time.RFC3339))
		return time.Time{}, "", nil, false
	}
	anchor := schedule.EarliestTime(cj)
	if !schedule.IsScheduledTime(sched, anchor, t) {
		next := "none in the five years after it"
		if n := schedule.Next(sched, anchor, t); !n.IsZero() {
			next = n.In(loc).Format(time.RFC3339)
		}
		s.reject(cronjobv1.ReasonNotAScheduledTime, "spec.scheduledTime %s is not a scheduled time of schedule %q in time zone %s (the next one after it is %s): create another CronJobRun for a scheduled time",
			t.In(loc).Format(time.RFC3339), cj.Spec.Schedule, loc, next)
		return time.Time{}, "", nil, false
	}
	return t, jobs.Name(cj.Name, t), loc, true
}

// adopt makes an existing Job of the run's name the run's Job, if it may be: it must be controlled by the
// CronJob and, for a run now, name this run in its CronJobRunAnnotation. For spec.scheduledTime any Job
// of the CronJob for that time counts (the scheduled run, or another backfill of it): the run reports it
// and creates nothing, so a scheduled time never has two Jobs. Any other Job rejects the run.
func (s *runSyncer) adopt(ctx context.Context, cj *cronjobv1.CronJob, job *batchv1.Job, scheduled time.Time) (ctrl.Result, error) {
	if !jobs.IsOwnedBy(job, cj) {
		s.reject(cronjobv1.ReasonJobNameTaken, "Job %s exists and is not controlled by CronJob %s: delete or rename that Job, then create another CronJobRun",
			job.Name, cj.Name)
		return s.pruneAfterTTL(ctx)
	}
	if owner := job.Annotations[cronjobv1.CronJobRunAnnotation]; s.run.Spec.ScheduledTime == nil && owner != s.run.Name {
		s.reject(cronjobv1.ReasonJobNameTaken, "Job %s is the Job of CronJobRun %q: create another CronJobRun", job.Name, owner)
		return s.pruneAfterTTL(ctx)
	}
	if at, err := time.Parse(time.RFC3339, job.Annotations[cronjobv1.ScheduledAtAnnotation]); err == nil {
		scheduled = at
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Job of the CronJobRun exists, adopting it", "job", klog.KObj(job))
	if err := s.bindJob(ctx, job, scheduled, false); err != nil {
		return ctrl.Result{}, err
	}
	if finished(s.run) {
		return s.pruneAfterTTL(ctx)
	}
	return ctrl.Result{}, nil
}

// create creates the run's Job (manualJob: the CronJob controls it, so its status.active and history limits
// count it) under the run's name. AlreadyExists adopts (see adopt).
func (s *runSyncer) create(ctx context.Context, cj *cronjobv1.CronJob, name string, scheduled time.Time, loc *time.Location) (ctrl.Result, error) {
	job := s.manualJob(cj, scheduled, loc)
	job.Name = name
	result, existing, err := jobs.Create(ctx, s.r.Client, s.r.APIReader, cj, job)
	switch result {
	case jobs.Unread:
		return ctrl.Result{}, err
	case jobs.Exists, jobs.Taken:
		return s.adopt(ctx, cj, existing, scheduled)
	case jobs.NamespaceTerminating:
		ctrl.LoggerFrom(ctx).V(1).Info("Namespace is terminating, not creating Job", "job", klog.KObj(job))
		return ctrl.Result{}, nil
	case jobs.Failed:
		s.r.Metrics.JobCreateFailed()
		s.event(corev1.EventTypeWarning, cronjobv1.ReasonFailedCreate, "Create", "Error creating job: %v", errors.Unwrap(err))
		return ctrl.Result{}, err
	}
	ctrl.LoggerFrom(ctx).Info("Created Job", "job", klog.KObj(job), "cronJob", klog.KObj(cj),
		"scheduledTime", scheduled.In(loc).Format(time.RFC3339))
	s.r.Metrics.ManualRunStarted()
	s.event(corev1.EventTypeNormal, cronjobv1.ReasonSuccessfulCreate, "Create", "Created job %s", job.Name)
	if s.r.Recorder != nil {
		s.r.Recorder.Eventf(cj, s.run, corev1.EventTypeNormal, cronjobv1.ReasonSuccessfulCreate, "Create",
			"Created job %s for CronJobRun %s", job.Name, s.run.Name)
	}
	return ctrl.Result{}, s.bindJob(ctx, job, scheduled, true)
}

// manualJob is a Job of the run for the scheduled time, without its name: the CronJob's
// jobs.NewWithParameters (template, the run's parameter values, scheduled-at annotation, the CronJob as
// controller owner), labelled TriggerLabel=manual and annotated with the run's name.
func (s *runSyncer) manualJob(cj *cronjobv1.CronJob, scheduled time.Time, loc *time.Location) *batchv1.Job {
	job := jobs.NewWithParameters(cj, scheduled, loc, s.now, s.run.Spec.Parameters)
	if job.Labels == nil {
		job.Labels = map[string]string{}
	}
	job.Labels[cronjobv1.TriggerLabel] = cronjobv1.TriggerManual
	job.Annotations[cronjobv1.CronJobRunAnnotation] = s.run.Name
	job.Annotations[cronjobv1.UpstreamInstantiateAnnotation] = "manual"
	return job
}

// admit applies the CronJob's concurrency policy to the run and reports whether its Job may be created
// now. The Jobs counted are the CronJob's unfinished Jobs (activeJobs: the cache, and the Jobs the cache
// may not show yet), and the older runs of the CronJob still waiting take the free slots first (they were
// synced before this one in the same pass):
//   - Allow: at most spec.maxActiveJobs active (unset: no limit);
//   - Forbid: none active; Enqueue: fewer than spec.maxActiveJobs (default 1). Else the run stays Pending
//     until a Job finishes (the Job's event reconciles the CronJob's runs): a manual run is a request made
//     on purpose, so it waits rather than being dropped, and still never runs beside another Job under
//     Forbid. A run that would wait while the CronJob has MaxWaitingRuns Pending runs already is Rejected
//     (TooManyWaitingRuns) instead; the runs already Pending keep their turn;
//   - Replace: the active Jobs are deleted (background propagation: their Pods go too), then it starts.
//
// The Pending message names what the run waits for, not counts that change whenever another run starts:
// the status of a waiting run is written when what it waits for changes, not at every start before it.
func (s *runSyncer) admit(ctx context.Context, cj *cronjobv1.CronJob, name string) (bool, error) {
	active, err := s.activeJobs(ctx, cj, name)
	if err != nil {
		return false, err
	}
	older := 0
	limit, bounded := concurrency.Limit(&cj.Spec)
	if bounded {
		older = s.pass.waitingAhead
	}
	switch concurrency.Admit(&cj.Spec, len(active), older) {
	case concurrency.Replace:
		return true, s.replace(ctx, active)
	case concurrency.Start:
		return true, nil
	}
	if most := s.r.maxWaiting(); s.run.Status.Phase == "" && most >= 0 && s.pass.pending >= most {
		s.reject(cronjobv1.ReasonTooManyWaitingRuns, "CronJob %s has %d CronJobRuns waiting already, the most the controller keeps (--max-waiting-runs-per-cronjob): wait until they have started or delete some, then create another CronJobRun",
			cj.Name, s.pass.pending)
		return false, nil
	}
	s.pass.waitingAhead++
	reason := cronjobv1.ReasonMaxActiveJobs
	if cj.Spec.ConcurrencyPolicy == cronjobv1.ForbidConcurrent {
		reason = cronjobv1.ReasonJobAlreadyActive
	}
	policy := cmp.Or(cj.Spec.ConcurrencyPolicy, cronjobv1.AllowConcurrent) // unset before defaulting
	s.wait(reason, "%d Job(s) of CronJob %s active, the limit of concurrencyPolicy %s is %d: the run starts when a Job finishes and the older CronJobRuns waiting have started (concurrencyPolicy Ignore on the CronJobRun starts it at once)",
		len(active), cj.Name, policy, limit)
	return false, nil
}

// replace deletes the active Jobs for concurrencyPolicy Replace, with background propagation and guarded
// by their UIDs, and counts them in jobs_deleted_total (reason replace). A Job already gone is fine.
func (s *runSyncer) replace(ctx context.Context, active []*batchv1.Job) error {
	for _, job := range active {
		deleted, err := jobs.Delete(ctx, s.r.Client, job)
		if err != nil {
			s.event(corev1.EventTypeWarning, cronjobv1.ReasonFailedDelete, "Delete", "Error deleting job %s: %v", job.Name, errors.Unwrap(err))
			return fmt.Errorf("deleting job %s for concurrencyPolicy Replace: %w", job.Name, errors.Unwrap(err))
		}
		if !deleted {
			continue
		}
		delete(s.pass.active, job.Name)
		ctrl.LoggerFrom(ctx).Info("Deleted Job", "job", klog.KObj(job), "reason", "concurrencyPolicy Replace")
		s.r.Metrics.JobDeleted(metrics.DeletedReplace)
		s.event(corev1.EventTypeNormal, cronjobv1.ReasonSuccessfulDelete, "Delete", "Deleted job %s", job.Name)
	}
	return nil
}

// withoutCalendars is cj without spec.calendars: a backfill of one scheduledTime runs the time it names
// even when a calendar excludes it (it was asked for by name); the union of spec.schedules and
// spec.activeWindow still say which times are scheduled ones.
func withoutCalendars(cj *cronjobv1.CronJob) *cronjobv1.CronJob {
	c := *cj
	c.Spec.Calendars = nil
	return &c
}
