package cronjob

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/robfig/cron/v3"
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
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// syncer holds the state of one reconcile of one CronJob. Its methods change cj.Status in memory; the
// reconciler writes it once at the end.
type syncer struct {
	r    *Reconciler
	cj   *cronjobv1.CronJob
	jobs []*batchv1.Job // Jobs controlled by cj, from the cache
	now  time.Time
	out  Outcome // what this reconcile did so far
	// created is the Job this reconcile created for the run that was due, if it did.
	created *batchv1.Job
	// createdJobs are the names of the Jobs this reconcile created while other reconciles waited, whose
	// SuccessfulCreate events are emitted when their runs are recorded (announceCreated).
	createdJobs []string
}

// announceCreated emits a SuccessfulCreate event about cj for each of jobs. Under Jobs first (deferred.go)
// that is when the run is recorded, so a burst's Events go to the API server after its Jobs.
func (r *Reconciler) announceCreated(cj *cronjobv1.CronJob, jobs []string) {
	if r.Recorder == nil {
		return
	}
	for _, name := range jobs {
		r.Recorder.Eventf(cj, nil, corev1.EventTypeNormal, cronjobv1.ReasonSuccessfulCreate, "Create", "Created job %s", name)
	}
}

// sync tracks the Jobs, prunes the history, and starts the run that is due, if any. It returns the requeue
// for the next scheduled time.
func (s *syncer) sync(ctx context.Context) (ctrl.Result, error) {
	if err := s.trackJobs(ctx); err != nil {
		return ctrl.Result{}, err
	}
	// A failed history delete must not block the due run: it is returned after the run is started.
	pruneErr := s.pruneHistory(ctx)
	res, err := s.scheduleRun(ctx)
	if err = errors.Join(err, pruneErr); err != nil {
		return ctrl.Result{}, err
	}
	return res, nil
}

// scheduleRun evaluates the schedule and starts the run that is due, if any. It returns the requeue for the
// next scheduled time, and sets the Ready condition once, from the outcome.
func (s *syncer) scheduleRun(ctx context.Context) (ctrl.Result, error) {
	if s.cj.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	editedAt, err := s.scheduleEditTime(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	observeSchedule(s.cj, s.now, editedAt)
	generation := strconv.FormatInt(s.cj.Generation, 10)
	sched, loc, err := schedule.Parse(s.cj.Spec.Schedule, s.cj.Spec.TimeZone)
	if err != nil {
		var se *schedule.Error
		if !errors.As(err, &se) {
			return ctrl.Result{}, err
		}
		s.warnOnce(se.Reason, generation, "Schedule", "%s", se.Message)
		setReady(s.cj, metav1.ConditionFalse, se.Reason, se.Message, s.now)
		s.cj.Status.NextScheduleTime = nil
		return ctrl.Result{}, nil // a user error: no requeue until the spec changes
	}
	if ptr.Deref(s.cj.Spec.Suspend, false) {
		s.cj.Status.NextScheduleTime = nil
		s.dropQueue(loc, "spec.suspend is true")
		setReady(s.cj, metav1.ConditionTrue, cronjobv1.ReasonSuspended, "spec.suspend is true: no new runs start", s.now)
		return ctrl.Result{}, nil
	}

	earliest := schedule.EarliestTime(s.cj)
	plan := schedule.PlanRun(sched, earliest, s.now, s.cj.Spec.StartingDeadlineSeconds, s.delays(sched))
	s.cj.Status.NextScheduleTime = nil
	if !plan.NextStart.IsZero() {
		s.cj.Status.NextScheduleTime = ptr.To(metav1.NewTime(plan.NextStart))
	}
	result := ctrl.Result{}
	if d, ok := schedule.RequeueAfter(plan.NextStart, s.now); ok {
		result.RequeueAfter = d
	} else if plan.Scheduled.IsZero() && len(s.cj.Status.Queued) == 0 {
		msg := fmt.Sprintf("spec.schedule %q has no scheduled time in the next five years (a date that does not exist, such as 31 February?): fix spec.schedule", s.cj.Spec.Schedule)
		s.warnOnce(cronjobv1.ReasonScheduleNeverFires, generation, "Schedule", "%s", msg)
		setReady(s.cj, metav1.ConditionFalse, cronjobv1.ReasonScheduleNeverFires, msg, s.now)
		return result, nil
	}

	// The queue first: its runs are older than the one due now, and start first.
	failure, err := s.serveQueue(ctx, loc)
	if err != nil {
		return ctrl.Result{}, err
	}
	if plan.Scheduled.IsZero() {
		if !plan.Missed.IsZero() {
			s.out.Run, s.out.Scheduled = RunMissed, plan.Missed
			if s.warnOnce(cronjobv1.ReasonMissSchedule, slotCause(plan.Missed), "Schedule",
				"Missed scheduled time to start a job: %s (past startingDeadlineSeconds %d)",
				plan.Missed.In(loc).Format(time.RFC3339), ptr.Deref(s.cj.Spec.StartingDeadlineSeconds, 0)) {
				s.r.Metrics.RunsMissed(metrics.MissedPastDeadline, 1)
			}
		}
		s.wakeForQueue(&result)
		s.setReadyAfterRun(failure)
		return result, nil
	}

	scheduled, catchUp := plan.Scheduled, s.cj.Spec.MissedRunPolicy == cronjobv1.MissedRunAll
	if catchUp && plan.Unmet > 1 {
		limit := int(ptr.Deref(s.cj.Spec.MaxCatchUpRuns, cronjobv1.DefaultMaxCatchUpRuns))
		var dropped int
		scheduled, dropped = schedule.OldestCatchUp(sched, earliest, plan.Since, plan.Scheduled, limit)
		if dropped > 0 && s.warnOnce(cronjobv1.ReasonMissedRunsDropped, slotCause(scheduled), "Schedule",
			"%s older missed runs are beyond spec.maxCatchUpRuns %d and do not start; catching up from %s, oldest first",
			droppedCount(dropped), limit, scheduled.In(loc).Format(time.RFC3339)) {
			s.r.Metrics.RunsMissed(metrics.MissedTooMany, min(dropped, schedule.MaxMissedTimes))
		}
	} else if plan.Unmet > schedule.MaxMissedTimes {
		s.warnOnce(cronjobv1.ReasonTooManyMissedTimes, slotCause(plan.Scheduled), "Schedule",
			"More than %d scheduled times were missed (clock skew or downtime?); starting only the most recent, %s. Set startingDeadlineSeconds to bound how late a run may start, or missedRunPolicy All to start them",
			schedule.MaxMissedTimes, plan.Scheduled.In(loc).Format(time.RFC3339))
	}
	s.out.Scheduled = scheduled
	runFailure, err := s.startRun(ctx, scheduled, loc)
	if s.out.Run == RunCreated {
		s.countStarted(scheduled, plan.Unmet, catchUp, s.delay(sched, scheduled))
	}
	if catchUp && plan.Unmet > 1 && (s.out.Run == RunCreated || s.out.Run == RunAdopted || s.out.Run == RunQueued) {
		// The next missed run starts in the next reconcile, one Job per reconcile. A run the policy skipped
		// waits for the Job events instead.
		result.RequeueAfter = schedule.RequeuePadding
	}
	if runFailure != "" {
		failure = runFailure
	}
	s.wakeForQueue(&result)
	s.setReadyAfterRun(failure)
	if err != nil {
		return ctrl.Result{}, err
	}
	return result, nil
}

// wakeForQueue has the reconcile requeued when the oldest queued run expires (queueExpiry), if that comes
// before the requeue it asks for already, so the run leaves status.queued (QueuedRunExpired) then and not
// at the next scheduled time.
func (s *syncer) wakeForQueue(result *ctrl.Result) {
	exp, ok := queueExpiry(s.cj.Status.Queued, s.cj.Spec.StartingDeadlineSeconds)
	if !ok {
		return
	}
	if d, _ := schedule.RequeueAfter(exp, s.now); result.RequeueAfter == 0 || d < result.RequeueAfter {
		result.RequeueAfter = d
	}
}

// setReadyAfterRun sets the Ready condition after the runs of a reconcile: False with cronjobv1.ReasonFailedCreate
// and the failure when a run could not start, else True (Scheduled).
func (s *syncer) setReadyAfterRun(failure string) {
	if failure != "" {
		setReady(s.cj, metav1.ConditionFalse, cronjobv1.ReasonFailedCreate, failure, s.now)
		return
	}
	setReady(s.cj, metav1.ConditionTrue, cronjobv1.ReasonScheduled, "", s.now)
}

// droppedCount says how many runs were dropped; the count is exact up to schedule.MaxMissedTimes.
func droppedCount(n int) string {
	if n > schedule.MaxMissedTimes {
		return fmt.Sprintf("More than %d", schedule.MaxMissedTimes)
	}
	return strconv.Itoa(n)
}

// delays is the jitter of this CronJob's runs (spec.jitterSeconds), nil when it has none.
func (s *syncer) delays(sched cron.Schedule) schedule.DelayFunc {
	if ptr.Deref(s.cj.Spec.JitterSeconds, 0) <= 0 {
		return nil
	}
	return func(scheduled time.Time) time.Duration { return s.delay(sched, scheduled) }
}

// delay is the jitter of the run scheduled at `scheduled` (schedule.RunDelay); 0 without spec.jitterSeconds.
func (s *syncer) delay(sched cron.Schedule, scheduled time.Time) time.Duration {
	return schedule.RunDelay(s.cj, sched, schedule.EarliestTime(s.cj), scheduled)
}

// startRun applies the concurrency policy and creates the Job for the scheduled time. On success
// lastScheduleTime becomes the scheduled time and the Job joins status.active.
//
// A Job of ours already named for the scheduled time is that run: its create succeeded but the status write
// was lost, or the CronJob came from a cache that has not seen the write yet. It is adopted before the
// concurrency policy is applied, so that Forbid does not count the run as skipped and Replace does not
// replace the run by itself.
//
// failure, when not empty, says why the run could not start (for the Ready condition); err is an API error
// to retry.
func (s *syncer) startRun(ctx context.Context, scheduled time.Time, loc *time.Location) (failure string, err error) {
	if done, failure := s.adoptOrBlocked(ctx, scheduled, loc); done {
		return failure, nil
	}
	active := int32(len(s.cj.Status.Active))
	switch s.cj.Spec.ConcurrencyPolicy {
	case cronjobv1.ForbidConcurrent:
		if active > 0 {
			s.skip(scheduled, metrics.MissedForbid, "Not starting job because prior execution is running and concurrency policy is Forbid")
			return "", nil
		}
	case cronjobv1.EnqueueConcurrent:
		if len(s.cj.Status.Queued) > 0 || !s.out.Dequeued.IsZero() || active >= maxActive(s.cj) {
			s.enqueue(scheduled, loc)
			return "", nil
		}
	case cronjobv1.ReplaceConcurrent:
		for _, ref := range append([]corev1.ObjectReference(nil), s.cj.Status.Active...) {
			job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name, UID: ref.UID}}
			if err := s.deleteJob(ctx, job, metrics.DeletedReplace); err != nil {
				s.out.Run = RunFailed
				return fmt.Sprintf("deleting active job %s for concurrencyPolicy Replace: %v", ref.Name, err), err
			}
			jobs.RemoveActive(&s.cj.Status, ref.UID)
		}
	default: // Allow
		if active >= maxActive(s.cj) {
			s.skip(scheduled, metrics.MissedMaxActive, "Not starting job because %d jobs are active, spec.maxActiveJobs", active)
			return "", nil
		}
	}
	return s.createRun(ctx, scheduled, loc)
}

// adoptOrBlocked does what comes before the concurrency policy for the run scheduled at `scheduled`: a Job
// of ours for it exists already (adopted: lastScheduleTime becomes the scheduled time, if later), or a Job
// of someone else holds its name (blocked, failure says so). done is false when the run is still to start.
func (s *syncer) adoptOrBlocked(ctx context.Context, scheduled time.Time, loc *time.Location) (done bool, failure string) {
	name := jobs.Name(s.cj.Name, scheduled)
	s.out.Job = name
	if s.knowsJob(name) {
		// trackJobs has already put it in status.active if it is still running.
		ctrl.LoggerFrom(ctx).V(1).Info("Job of the due run exists, adopting it", "job", name)
		s.out.Run = RunAdopted
		s.cj.Status.LastScheduleTime = laterTime(s.cj.Status.LastScheduleTime, ptr.To(metav1.NewTime(scheduled)))
		return true, ""
	}
	if msg, blocked := s.stillBlocked(ctx, name, scheduled, loc); blocked {
		s.out.Run = RunBlocked
		return true, msg
	}
	return false, ""
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

// maxActive is how many Jobs of the CronJob may be active at once: spec.maxActiveJobs, else unlimited
// under Allow and 1 under Enqueue.
func maxActive(cj *cronjobv1.CronJob) int32 {
	if cj.Spec.MaxActiveJobs != nil {
		return *cj.Spec.MaxActiveJobs
	}
	if cj.Spec.ConcurrencyPolicy == cronjobv1.EnqueueConcurrent {
		return 1
	}
	return math.MaxInt32
}

// createRun creates the Job of the run scheduled at `scheduled` and records the run. A Job of that name
// that exists already is adopted when it is ours, and blocks the run when it is someone else's.
func (s *syncer) createRun(ctx context.Context, scheduled time.Time, loc *time.Location) (failure string, err error) {
	log := ctrl.LoggerFrom(ctx)
	job := jobs.New(s.cj, scheduled, loc)
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
	s.cj.Status.LastScheduleTime = laterTime(s.cj.Status.LastScheduleTime, ptr.To(metav1.NewTime(scheduled)))
}

// knowsJob reports whether a Job of this CronJob with that name is in the Jobs listed for this reconcile or
// in status.active (there, trackJobs has confirmed it on the API server when the cache lacks it).
func (s *syncer) knowsJob(name string) bool {
	for _, job := range s.jobs {
		if job.Name == name {
			return true
		}
	}
	for _, ref := range s.cj.Status.Active {
		if ref.Name == name {
			return true
		}
	}
	return false
}

// event records an event about the CronJob.
func (s *syncer) event(eventType, reason, action, note string, args ...any) {
	if s.r.Recorder != nil {
		s.r.Recorder.Eventf(s.cj, nil, eventType, reason, action, note, args...)
	}
}

// warnOnce records a Warning event about the CronJob, unless the same cause of this reason was reported
// before (see reportedCauses), and reports whether it did. The CronJob's UID is part of the cause, so a
// CronJob deleted and created again under the same name is reported anew.
func (s *syncer) warnOnce(reason, cause, action, note string, args ...any) bool {
	if s.r.warned.first(client.ObjectKeyFromObject(s.cj), reason, string(s.cj.UID)+"/"+cause) {
		s.event(corev1.EventTypeWarning, reason, action, note, args...)
		return true
	}
	return false
}

// countStarted counts the run scheduled at `scheduled` whose Job this reconcile created, with its skew
// from its start time (the scheduled time plus delay, its jitter), and the runs due with it that will never
// start: under missedRunPolicy MostRecent only the most recent of the unmet ones starts, as in batch/v1;
// under All (catchUp) the others start in the next reconciles.
func (s *syncer) countStarted(scheduled time.Time, unmet int, catchUp bool, delay time.Duration) {
	m := s.r.Metrics
	trigger := metrics.TriggerSchedule
	if unmet > 1 || scheduled.Before(s.r.firstReconcile(s.now)) {
		trigger = metrics.TriggerCatchUp
	}
	m.RunStarted(trigger, s.now.Sub(scheduled)-delay)
	if catchUp {
		return // the unmet runs start in the next reconciles
	}
	if unmet > schedule.MaxMissedTimes {
		m.RunsMissed(metrics.MissedTooMany, schedule.MaxMissedTimes)
		return
	}
	m.RunsMissed(metrics.MissedSuperseded, unmet-1)
}

// slotCause is the cause of a Warning about the run scheduled at t.
func slotCause(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }
