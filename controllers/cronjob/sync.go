package cronjob

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
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
	// trigger is what starts the run whose Job createRun creates next (its status.recentRuns entry).
	trigger cronjobv1.RunTrigger
	// adoptAs is the trigger of the run whose Job adopt adopts next (retrigger): trigger, but CatchUp only
	// for runs missed (catch-up, or several unmet), not for a run due before this process started, as
	// the Job was created by another (a status write lost).
	adoptAs cronjobv1.RunTrigger
	// wakeAt is the earliest run timeout still ahead (timeout.go), zero if none: the requeue wakes then.
	wakeAt time.Time
	// cals are the CronCalendars of spec.calendars that exist, compiled, and plan the digest of what
	// decides the scheduled times besides spec.schedule, spec.timeZone and spec.suspend (plan.go).
	cals schedule.Calendars
	plan string
}

// announceCreated emits a SuccessfulCreate event about cj for each of the Jobs names. Under Jobs first (deferred.go)
// that is when the run is recorded, so a burst's Events go to the API server after its Jobs.
func (r *Reconciler) announceCreated(cj *cronjobv1.CronJob, names []string) {
	if r.Recorder == nil {
		return
	}
	for _, name := range names {
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
	// A run timeout or the dead-man's switch ahead wakes the reconcile, also when the schedule asks for
	// no wakeup (suspended).
	for _, at := range []time.Time{s.wakeAt, s.setHealthy()} {
		if after, ok := schedule.RequeueAfter(at, s.now); ok && (res.RequeueAfter == 0 || after < res.RequeueAfter) {
			res.RequeueAfter = after
		}
	}
	return res, nil
}

// scheduleRun decides (decide.go) and acts on the decision: the queue first, then the run due. It returns
// the requeue for the next scheduled time, and sets the Ready condition once, from the outcome.
func (s *syncer) scheduleRun(ctx context.Context) (ctrl.Result, error) {
	if s.cj.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	if err := s.pauseOrResume(ctx); err != nil {
		return ctrl.Result{}, err
	}
	calErr := s.loadPlan(ctx)
	editedAt, err := s.scheduleEditTime(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	observeSchedule(s.cj, s.now, editedAt, s.plan)
	d := decide(s.cj, s.jobs, s.now, s.cals)
	if calErr != nil && d.scheduleErr == nil {
		d = decision{scheduleErr: calErr}
	}
	defer s.trace(ctx, &d)
	if d.scheduleErr != nil {
		s.haltUnparseable(d.scheduleErr)
		return ctrl.Result{}, nil // a user error: no requeue until the spec changes
	}
	if d.suspended {
		s.haltSuspended(&d)
		return ctrl.Result{}, nil
	}
	result := s.setNext(&d)
	// An excluded time is reported at its time; Ready leaves SuspendedUntil when spec.suspendUntil passes.
	for _, at := range []time.Time{s.reportExcluded(&d), s.suspendedUntil()} {
		if after, ok := schedule.RequeueAfter(at, s.now); ok && (result.RequeueAfter == 0 || after < result.RequeueAfter) {
			result.RequeueAfter = after
		}
	}
	if d.neverFires {
		return result, nil
	}
	// The queue first: its runs are older than the one due now, and start first.
	failure, err := s.serveQueue(ctx, &d)
	if err != nil {
		return ctrl.Result{}, err
	}
	runFailure, err := s.actOnDue(ctx, &d)
	if d.catchUp && (s.out.Run == RunCreated || s.out.Run == RunAdopted || s.out.Run == RunQueued) {
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

// haltUnparseable reports a wrong spec.schedule or spec.timeZone once per generation (a Warning event
// and Ready=False with what to fix).
func (s *syncer) haltUnparseable(se *schedule.Error) {
	s.warnOnce(se.Reason, strconv.FormatInt(s.cj.Generation, 10), "Schedule", "%s", se.Message)
	setReady(s.cj, metav1.ConditionFalse, se.Reason, se.Message, s.now)
	s.cj.Status.NextScheduleTime = nil
}

// haltSuspended drops the queue of a suspended CronJob; nothing starts.
func (s *syncer) haltSuspended(d *decision) {
	s.cj.Status.NextScheduleTime = nil
	s.drop(d.drops, d.loc)
	s.cj.Status.Queued = nil
	if paused(s.cj) {
		setReady(s.cj, metav1.ConditionFalse, cronjobv1.ReasonPausedAfterFailures, pausedMessage(s.cj), s.now)
		return
	}
	setReady(s.cj, metav1.ConditionTrue, cronjobv1.ReasonSuspended, "spec.suspend is true: no new runs start", s.now)
}

// setNext records status.nextScheduleTime (the start of the next run, jitter included) and returns the
// requeue for it. A schedule that never fires is reported once per generation instead.
func (s *syncer) setNext(d *decision) ctrl.Result {
	s.cj.Status.NextScheduleTime = nil
	if !d.plan.NextStart.IsZero() {
		s.cj.Status.NextScheduleTime = ptr.To(metav1.NewTime(d.plan.NextStart))
	}
	if after, ok := schedule.RequeueAfter(d.plan.NextStart, s.now); ok {
		return ctrl.Result{RequeueAfter: after}
	}
	if d.neverFires && s.windowEnded() {
		setReady(s.cj, metav1.ConditionTrue, cronjobv1.ReasonActiveWindowEnded,
			fmt.Sprintf("spec.activeWindow.notAfter is %s: no scheduled time is left in the window; no run starts again until it moves", s.cj.Spec.ActiveWindow.NotAfter.UTC().Format(time.RFC3339)), s.now)
		return ctrl.Result{}
	}
	if d.neverFires {
		msg := s.neverFiresMessage()
		s.warnOnce(cronjobv1.ReasonScheduleNeverFires, strconv.FormatInt(s.cj.Generation, 10), "Schedule", "%s", msg)
		setReady(s.cj, metav1.ConditionFalse, cronjobv1.ReasonScheduleNeverFires, msg, s.now)
	}
	return ctrl.Result{}
}

// neverFiresMessage says why the CronJob has no next scheduled time: its schedule (or each of
// spec.schedules) names no date in five years, or its calendars exclude every time for longer than
// schedule.MaxExcludedInARow times in a row.
func (s *syncer) neverFiresMessage() string {
	what, field := fmt.Sprintf("spec.schedule %q", s.cj.Spec.Schedule), "spec.schedule"
	if len(s.cj.Spec.Schedules) > 0 {
		entries := make([]string, 0, len(s.cj.Spec.Schedules))
		for _, e := range s.cj.Spec.Schedules {
			entries = append(entries, strconv.Quote(e.Schedule))
		}
		what, field = "spec.schedules ("+strings.Join(entries, ", ")+")", "spec.schedules"
	}
	if len(s.cj.Spec.Calendars) > 0 && firesWithoutCalendars(s.cj, s.now) {
		return fmt.Sprintf("%s has no scheduled time that its calendars (%s) do not exclude, in the next five years or the next %d times: fix %s or the calendars",
			what, strings.Join(s.cj.Spec.Calendars, ", "), schedule.MaxExcludedInARow, field)
	}
	return fmt.Sprintf("%s has no scheduled time in the next five years (a date that does not exist, such as 31 February?): fix %s", what, field)
}

// firesWithoutCalendars reports whether cj's schedules, without its calendars, have a time after now.
func firesWithoutCalendars(cj *cronjobv1.CronJob, now time.Time) bool {
	c := *cj
	c.Spec.Calendars = nil
	sched, _, err := schedule.ForCronJob(&c, nil)
	return err == nil && !schedule.Next(sched, schedule.EarliestTime(&c), now).IsZero()
}

// actOnDue reports what catch-up and the deadline say of the run due (MissSchedule, MissedRunsDropped,
// TooManyMissedTimes, once each) and carries out its verdict, counting a run started.
func (s *syncer) actOnDue(ctx context.Context, d *decision) (failure string, err error) {
	if d.verdict == verdictNone {
		return "", nil
	}
	if d.verdict == verdictMissed {
		s.out.Run, s.out.Scheduled = RunMissed, d.due
		if s.warnOnce(cronjobv1.ReasonMissSchedule, slotCause(d.due), "Schedule",
			"Missed scheduled time to start a job: %s (past startingDeadlineSeconds %d)",
			d.due.In(d.loc).Format(time.RFC3339), ptr.Deref(s.cj.Spec.StartingDeadlineSeconds, 0)) {
			s.r.Metrics.RunsMissed(metrics.MissedPastDeadline, 1)
		}
		return "", nil
	}
	s.warnMissed(d)
	s.out.Scheduled = d.due
	s.trigger, s.adoptAs = cronjobv1.TriggeredBySchedule, cronjobv1.TriggeredBySchedule
	if d.catchUp || d.plan.Unmet > 1 {
		s.trigger, s.adoptAs = cronjobv1.TriggeredByCatchUp, cronjobv1.TriggeredByCatchUp
	}
	if d.due.Before(s.r.firstReconcile(s.now)) {
		s.trigger = cronjobv1.TriggeredByCatchUp // as countStarted counts it
	}
	failure, err = s.startRun(ctx, d)
	if s.out.Run == RunCreated {
		s.countStarted(d.due, d.plan.Unmet, d.catchUp, schedule.RunDelay(s.cj, d.sched, schedule.EarliestTime(s.cj), d.due))
	}
	return failure, err
}

// warnMissed reports, once each, the runs that catch-up leaves behind (MissedRunsDropped, beyond
// maxCatchUpRuns) or that more than 100 were missed (TooManyMissedTimes; only the most recent starts).
func (s *syncer) warnMissed(d *decision) {
	if d.dropped > 0 {
		limit := int(ptr.Deref(s.cj.Spec.MaxCatchUpRuns, cronjobv1.DefaultMaxCatchUpRuns))
		if s.warnOnce(cronjobv1.ReasonMissedRunsDropped, slotCause(d.due), "Schedule",
			"%s older missed runs are beyond spec.maxCatchUpRuns %d and do not start; catching up from %s, oldest first",
			droppedCount(d.dropped), limit, d.due.In(d.loc).Format(time.RFC3339)) {
			s.r.Metrics.RunsMissed(metrics.MissedTooMany, min(d.dropped, schedule.MaxMissedTimes))
		}
		return
	}
	if d.tooMany {
		s.warnOnce(cronjobv1.ReasonTooManyMissedTimes, slotCause(d.due), "Schedule",
			"More than %d scheduled times were missed (clock skew or downtime?); starting only the most recent, %s. Set startingDeadlineSeconds to bound how late a run may start, or missedRunPolicy All to start them",
			schedule.MaxMissedTimes, d.due.In(d.loc).Format(time.RFC3339))
	}
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

// setReadyAfterRun sets the Ready condition after the runs of a reconcile: False with ReasonFailedCreate
// and the failure when a run could not start, else True (Scheduled).
func (s *syncer) setReadyAfterRun(failure string) {
	if failure != "" {
		setReady(s.cj, metav1.ConditionFalse, cronjobv1.ReasonFailedCreate, failure, s.now)
		return
	}
	if until := s.suspendedUntil(); !until.IsZero() {
		setReady(s.cj, metav1.ConditionTrue, cronjobv1.ReasonSuspendedUntil,
			fmt.Sprintf("spec.suspendUntil is %s: no scheduled time before it starts a run", until.UTC().Format(time.RFC3339)), s.now)
		return
	}
	setReady(s.cj, metav1.ConditionTrue, cronjobv1.ReasonScheduled, "", s.now)
}

// suspendedUntil is spec.suspendUntil while it is ahead of now, zero otherwise.
func (s *syncer) suspendedUntil() time.Time {
	if until := s.cj.Spec.SuspendUntil; until != nil && s.now.Before(until.Time) {
		return until.Time
	}
	return time.Time{}
}

// windowEnded reports whether spec.activeWindow has an end (notAfter): a schedule that has no time left
// then ends with the window, not because it never fires.
func (s *syncer) windowEnded() bool {
	w := s.cj.Spec.ActiveWindow
	return w != nil && w.NotAfter != nil
}

// droppedCount says how many runs were dropped; the count is exact up to schedule.MaxMissedTimes.
func droppedCount(n int) string {
	if n > schedule.MaxMissedTimes {
		return fmt.Sprintf("More than %d", schedule.MaxMissedTimes)
	}
	return strconv.Itoa(n)
}

// startRun carries out the verdict on the run due, d.due: adopt its Job, or, unless a Job of someone else
// holds its name, skip it, queue it, or create its Job (after deleting the active Jobs under Replace). On
// success lastScheduleTime becomes its scheduled time and the Job joins status.active.
//
// failure, when not empty, says why the run could not start (for the Ready condition); err is an API error
// to retry.
func (s *syncer) startRun(ctx context.Context, d *decision) (failure string, err error) {
	// verdictAdopt is adoptOrBlocked's first case: the decision and the act read the same Jobs.
	if done, failure := s.adoptOrBlocked(ctx, d.due, d.loc); done {
		return failure, nil
	}
	switch d.verdict {
	case verdictSkip:
		note := "Not starting job because prior execution is running and concurrency policy is Forbid"
		if d.skipped == metrics.MissedMaxActive {
			note = fmt.Sprintf("Not starting job because %d jobs are active, spec.maxActiveJobs", len(s.cj.Status.Active))
		}
		s.skip(d.due, d.skipped, "%s", note)
		return "", nil
	case verdictEnqueue:
		s.enqueue(d.due, d.loc)
		return "", nil
	case verdictReplace:
		for _, ref := range append([]corev1.ObjectReference(nil), s.cj.Status.Active...) {
			job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name, UID: ref.UID}}
			if err := s.deleteJob(ctx, job, metrics.DeletedReplace); err != nil {
				s.out.Run = RunFailed
				return fmt.Sprintf("deleting active job %s for concurrencyPolicy Replace: %v", ref.Name, err), err
			}
			jobs.RemoveActive(&s.cj.Status, ref.UID)
			s.endRun(ref.Name, cronjobv1.RunResultReplaced, string(cronjobv1.RunResultReplaced), s.now)
		}
	}
	return s.createRun(ctx, d.due, d.loc)
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
