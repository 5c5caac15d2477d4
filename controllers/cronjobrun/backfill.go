package cronjobrun

import (
	"context"
	"errors"
	"fmt"
	"time"

	cron "github.com/netresearch/go-cron"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/calendar"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/concurrency"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	"github.com/cronjob-operator/cronjob-operator/controllers/parameters"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// heldRequeue is how soon a range backfill whose slots cannot be computed (a calendar missing or invalid)
// looks again: calendars do not wake the runs' controller, the Jobs it follows may not end for a while.
const heldRequeue = time.Minute

// backfillSyncer is one reconcile of a range backfill (spec.range): the run's CronJob, its schedule with
// calendars, and the progress in the run's status, changed in memory.
type backfillSyncer struct {
	*runSyncer
	cj     *cronjobv1.CronJob
	sched  cron.Schedule
	loc    *time.Location
	anchor time.Time
	b      *cronjobv1.BackfillStatus
}

// backfill syncs a range backfill. The status is the record of what ran: every slot before
// status.backfill.next has been accounted for (succeeded, failed, skipped, or running in active), and the
// slots from next on have not, except Jobs this run created just before a status write that was lost,
// which the slot's deterministic name finds again (adopted, counted once). One reconcile
//  1. rejects a run that cannot start (its CronJob missing or being deleted, parameters that do not fit,
//     range.to in the future, no slot or more than MaxBackfillSlots in the range), once, before any Job;
//  2. follows the running slots' Jobs: a Job that completed or failed moves its slot to succeeded or
//     failed; a Job that is gone counts by the CronJob's status.recentRuns when it lists it, else as failed
//     (JobDeleted);
//  3. starts slots from next, oldest first, while fewer than spec.parallelism run (and, under Honor, the
//     CronJob's policy admits one more Job): a slot whose Job exists already is skipped (JobExisted; the
//     schedule or another run ran it) or failed (JobNameTaken, a Job not the CronJob's), one whose Job
//     the CronJob's status.recentRuns lists is skipped too (it ran, and its history limits deleted it);
//  4. counts the slots left from next to range.to by the current schedule and calendars (total), and
//     ends the run, Succeeded or Failed, once every slot has ended.
func (s *runSyncer) backfill(ctx context.Context) (ctrl.Result, error) {
	if finished(s.run) {
		return s.pruneAfterTTL(ctx)
	}
	cj, err := s.pass.cronJob(ctx, s.r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	switch {
	case cj == nil:
		s.reject(cronjobv1.ReasonCronJobNotFound, "CronJob %s does not exist in namespace %s: create it (or correct spec.cronJobName), then create another CronJobRun",
			s.run.Spec.CronJobName, s.run.Namespace)
		return s.pruneAfterTTL(ctx)
	case cj.DeletionTimestamp != nil:
		s.reject(cronjobv1.ReasonCronJobDeleting, "CronJob %s is being deleted: no run of it starts", cj.Name)
		return s.pruneAfterTTL(ctx)
	}
	// Owned by its CronJob from the start, so that it goes with the CronJob whatever its phase.
	if err := s.ownCronJob(ctx, cj); err != nil {
		return ctrl.Result{}, err
	}
	bs := &backfillSyncer{runSyncer: s, cj: cj, anchor: schedule.EarliestTime(cj), b: s.run.Status.Backfill}
	// The running slots are followed first: that needs no schedule, so Jobs that end while the slots
	// cannot be computed are counted as they end.
	if bs.b != nil {
		if err := bs.follow(ctx); err != nil {
			return ctrl.Result{}, err
		}
	}
	cals, _, calErr := calendar.Load(ctx, s.r.Client, cj)
	if calErr == nil {
		bs.sched, bs.loc, err = schedule.ForCronJob(cj, cals)
	} else {
		err = calErr
	}
	if err != nil {
		return bs.held(ctx, err)
	}
	if bs.b == nil {
		if !bs.begin() {
			return s.pruneAfterTTL(ctx)
		}
		bs.b = s.run.Status.Backfill
	}
	if err := bs.startSlots(ctx); err != nil {
		bs.count()
		return ctrl.Result{}, err
	}
	bs.count()
	if bs.b.Next == nil && len(bs.b.Active) == 0 {
		bs.end()
		return s.pruneAfterTTL(ctx)
	}
	return ctrl.Result{}, nil
}

// held keeps a backfill whose slots cannot be computed (err: a calendar missing or invalid, or the
// schedule edited into one that does not parse): one that has not begun is rejected, as a run of one
// scheduledTime would be; one that has keeps its Jobs running and starts no slot until the CronJob or
// its calendars are fixed, with Ready=False naming the cause.
func (bs *backfillSyncer) held(ctx context.Context, err error) (ctrl.Result, error) {
	var se *schedule.Error
	if !errors.As(err, &se) {
		se = &schedule.Error{Reason: cronjobv1.ReasonUnparseableSchedule, Message: err.Error()}
	}
	if bs.run.Status.Backfill == nil {
		bs.reject(se.Reason, "the CronJob's scheduled times cannot be computed: %s; then create another CronJobRun", se.Message)
		return bs.pruneAfterTTL(ctx)
	}
	bs.b.Running = int32(len(bs.b.Active))
	bs.setReady(metav1.ConditionFalse, se.Reason, fmt.Sprintf("no slot of the backfill starts until the CronJob's scheduled times can be computed again: %s", se.Message))
	return ctrl.Result{RequeueAfter: heldRequeue}, nil
}

// begin checks a backfill that has not started (its parameters, range.to not in the future, between one
// and MaxBackfillSlots slots in the range) and sets status.backfill with next at the first slot. It
// returns false when the run was rejected.
func (bs *backfillSyncer) begin() bool {
	r := bs.run.Spec.Range
	if errs := parameters.Check(bs.cj, bs.run.Spec.Parameters); len(errs) > 0 {
		bs.reject(cronjobv1.ReasonInvalidParameters, "%s: create another CronJobRun with values that fit", errs.ToAggregate())
		return false
	}
	if r.To.After(bs.now) {
		bs.reject(cronjobv1.ReasonScheduledTimeInFuture, "spec.range.to %s is in the future (now is %s): a backfill runs past scheduled times; set spec.range.to to now or earlier",
			bs.format(r.To.Time), bs.format(bs.now))
		return false
	}
	slots := schedule.Slots(bs.sched, bs.anchor, r.From.Time, r.To.Time, cronjobv1.MaxBackfillSlots+1)
	switch {
	case len(slots) == 0:
		next := "none in the five years after it"
		if n := schedule.Next(bs.sched, bs.anchor, r.To.Time); !n.IsZero() {
			next = bs.format(n)
		}
		bs.reject(cronjobv1.ReasonNoScheduledTimeInRange, "spec.range %s to %s holds no scheduled time of CronJob %s (after its calendars and active window; the next one after the range is %s): create another CronJobRun with a range that holds one",
			bs.format(r.From.Time), bs.format(r.To.Time), bs.cj.Name, next)
		return false
	case len(slots) > cronjobv1.MaxBackfillSlots:
		bs.reject(cronjobv1.ReasonTooManySlots, "spec.range %s to %s holds more than %d scheduled times of CronJob %s: split it into CronJobRuns of at most %d, the first from %s to %s",
			bs.format(r.From.Time), bs.format(r.To.Time), cronjobv1.MaxBackfillSlots, bs.cj.Name, cronjobv1.MaxBackfillSlots,
			bs.format(r.From.Time), bs.format(slots[cronjobv1.MaxBackfillSlots-1]))
		return false
	}
	bs.run.Status.Backfill = &cronjobv1.BackfillStatus{Next: ptr.To(metav1.NewTime(slots[0]))}
	bs.run.Status.Phase = cronjobv1.RunPending
	return true
}

// follow moves the running slots whose Job ended, or is gone, to succeeded or failed.
func (bs *backfillSyncer) follow(ctx context.Context) error {
	keep := make([]cronjobv1.BackfillSlot, 0, len(bs.b.Active))
	for i, slot := range bs.b.Active {
		job, err := bs.slotJob(ctx, slot.JobName)
		if err != nil {
			// The slots not looked at yet stay as they were; those counted are out.
			bs.b.Active = append(keep, bs.b.Active[i:]...)
			return err
		}
		if job == nil {
			if !bs.gone(slot) {
				keep = append(keep, slot)
			}
			continue
		}
		if !bs.ended(slot, job) {
			keep = append(keep, slot)
		}
	}
	bs.b.Active = keep
	return nil
}

// slotJob returns the Job of that name when it is this run's (controlled by the CronJob and naming the
// run in its CronJobRunAnnotation), or nil when it does not exist (in the cache nor on the API server) or
// is another's.
func (bs *backfillSyncer) slotJob(ctx context.Context, name string) (*batchv1.Job, error) {
	key := client.ObjectKey{Namespace: bs.run.Namespace, Name: name}
	job := &batchv1.Job{}
	err := bs.r.Client.Get(ctx, key, job)
	if apierrors.IsNotFound(err) {
		err = bs.r.APIReader.Get(ctx, key, job)
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting job %s: %w", name, err)
	}
	if !bs.ours(job) {
		return nil, nil
	}
	return job, nil
}

// ours reports whether the Job is one this run created: the CronJob's, naming the run, and not older than
// the run (a run deleted and created again under the same name does not claim its predecessor's Jobs).
func (bs *backfillSyncer) ours(job *batchv1.Job) bool {
	return jobs.IsOwnedBy(job, bs.cj) && job.Annotations[cronjobv1.CronJobRunAnnotation] == bs.run.Name &&
		!job.CreationTimestamp.Before(&bs.run.CreationTimestamp)
}

// ended counts the slot when its Job has finished, and reports whether it had.
func (bs *backfillSyncer) ended(slot cronjobv1.BackfillSlot, job *batchv1.Job) bool {
	switch _, how := jobs.Finished(job); how {
	case batchv1.JobComplete:
		bs.b.Succeeded++
		return true
	case batchv1.JobFailed:
		slot.Reason = cronjobv1.ReasonJobFailed
		if c := jobs.FailedCondition(job); c != nil && c.Reason != "" {
			slot.Reason = c.Reason
		}
		bs.fail(slot)
		return true
	}
	return false
}

// gone counts a running slot whose Job is gone, and reports whether it did:
//   - by the CronJob's status.recentRuns when it lists the Job as ended (the CronJob controller saw it end,
//     then its history limits or the Job's TTL deleted it);
//   - not yet while the CronJob has not recorded the Job's end (its status.active still lists the Job, or
//     its record says Running): the run waits for that record, which wakes it;
//   - else as failed (JobDeleted): the CronJob controller saw the Job go and its record is gone too.
func (bs *backfillSyncer) gone(slot cronjobv1.BackfillSlot) bool {
	rec := recentRun(bs.cj, slot.JobName)
	if rec == nil || rec.Result == cronjobv1.RunResultRunning {
		for _, ref := range bs.cj.Status.Active {
			if ref.Name == slot.JobName {
				return false
			}
		}
		if rec != nil {
			return false
		}
		slot.Reason = cronjobv1.ReasonJobDeleted
		bs.fail(slot)
		bs.event(corev1.EventTypeWarning, cronjobv1.ReasonJobDeleted, "Backfill", "Job %s of slot %s was deleted before the run saw it end, and the CronJob keeps no record of it: the slot counts as failed",
			slot.JobName, bs.format(slot.ScheduledTime.Time))
		return true
	}
	bs.recorded(slot, rec)
	return true
}

// recorded counts a slot by the CronJob's record of its Job's end.
func (bs *backfillSyncer) recorded(slot cronjobv1.BackfillSlot, rec *cronjobv1.RunRecord) {
	if rec.Result == cronjobv1.RunResultSucceeded {
		bs.b.Succeeded++
		return
	}
	slot.Reason = string(rec.Result)
	if rec.Reason != "" {
		slot.Reason = rec.Reason
	}
	bs.fail(slot)
}

// ownRecord reports whether a recentRuns entry is of a Job this run created: a manual or backfill run's,
// started no earlier than the run was created (another run of the same slot would have found this
// run's Job, and created none).
func (bs *backfillSyncer) ownRecord(rec *cronjobv1.RunRecord) bool {
	return (rec.Trigger == cronjobv1.TriggeredByBackfill || rec.Trigger == cronjobv1.TriggeredByManual) &&
		!rec.StartTime.Before(&bs.run.CreationTimestamp)
}

// fail counts a failed slot and lists it while failedSlots has room.
func (bs *backfillSyncer) fail(slot cronjobv1.BackfillSlot) {
	bs.b.Failed++
	if len(bs.b.FailedSlots) < cronjobv1.MaxBackfillSlotsListed {
		bs.b.FailedSlots = append(bs.b.FailedSlots, slot)
	}
}

// skip counts a skipped slot, lists it while skippedSlots has room, and says so in an event.
func (bs *backfillSyncer) skip(slot cronjobv1.BackfillSlot) {
	bs.b.Skipped++
	if len(bs.b.SkippedSlots) < cronjobv1.MaxBackfillSlotsListed {
		bs.b.SkippedSlots = append(bs.b.SkippedSlots, slot)
	}
	bs.event(corev1.EventTypeNormal, cronjobv1.ReasonJobExisted, "Backfill", "Slot %s ran already (Job %s): not run again",
		bs.format(slot.ScheduledTime.Time), slot.JobName)
}

// recentRun returns the CronJob's status.recentRuns entry of the Job, or nil.
func recentRun(cj *cronjobv1.CronJob, jobName string) *cronjobv1.RunRecord {
	for i := range cj.Status.RecentRuns {
		if cj.Status.RecentRuns[i].JobName == jobName {
			return &cj.Status.RecentRuns[i]
		}
	}
	return nil
}

// parallelism is spec.parallelism, default 1.
func (bs *backfillSyncer) parallelism() int {
	return int(ptr.Deref(bs.run.Spec.Parallelism, 1))
}

// startSlots starts slots from next, oldest first, while fewer than parallelism run and the CronJob's
// policy admits (admitSlot); each slot is accounted for before next moves past it.
func (bs *backfillSyncer) startSlots(ctx context.Context) error {
	for bs.b.Next != nil && len(bs.b.Active) < bs.parallelism() {
		slot, ok := bs.slotAtOrAfter(bs.b.Next.Time)
		if !ok {
			bs.b.Next = nil
			return nil
		}
		if bs.b.Succeeded+bs.b.Failed+bs.b.Skipped+int32(len(bs.b.Active)) >= cronjobv1.MaxBackfillSlots {
			// The schedule was edited into a denser one mid-range: the run stops at the bound.
			bs.event(corev1.EventTypeWarning, cronjobv1.ReasonTooManySlots, "Backfill", "The range holds more than %d slots since the CronJob's schedule changed: slots from %s on do not run; backfill them with another CronJobRun",
				cronjobv1.MaxBackfillSlots, bs.format(slot))
			bs.b.Next = nil
			return nil
		}
		started, err := bs.startSlot(ctx, slot)
		if err != nil || !started {
			return err
		}
		bs.b.Next = nil
		if n, ok := bs.slotAtOrAfter(slot.Add(time.Nanosecond)); ok {
			bs.b.Next = ptr.To(metav1.NewTime(n))
		}
	}
	return nil
}

// slotAtOrAfter is the first slot at or after t within the range, by the current schedule and calendars
// (an edit since next was written may have moved or removed the slot it named).
func (bs *backfillSyncer) slotAtOrAfter(t time.Time) (time.Time, bool) {
	n := schedule.Slots(bs.sched, bs.anchor, t, bs.run.Spec.Range.To.Time, 1)
	if len(n) == 0 {
		return time.Time{}, false
	}
	return n[0], true
}

// startSlot accounts for the slot at t: a Job of its name that is this run's is followed again (created
// before a lost status write), another Job of the CronJob or a recentRuns entry skips it, a Job not the
// CronJob's fails it (JobNameTaken); else, when the policy admits, its Job is created. It reports false
// when the slot must wait for the policy.
func (bs *backfillSyncer) startSlot(ctx context.Context, t time.Time) (bool, error) {
	slot := cronjobv1.BackfillSlot{ScheduledTime: metav1.NewTime(t), JobName: jobs.Name(bs.cj.Name, t)}
	existing := &batchv1.Job{}
	err := bs.r.Client.Get(ctx, client.ObjectKey{Namespace: bs.run.Namespace, Name: slot.JobName}, existing)
	switch {
	case err == nil:
		bs.existed(slot, existing)
		return true, nil
	case !apierrors.IsNotFound(err):
		return false, fmt.Errorf("getting job %s: %w", slot.JobName, err)
	}
	if rec := recentRun(bs.cj, slot.JobName); rec != nil {
		switch {
		case !bs.ownRecord(rec):
			slot.Reason = cronjobv1.ReasonJobExisted
			bs.skip(slot)
		case rec.Result == cronjobv1.RunResultRunning:
			// This run's Job, created before a lost status write and gone since: wait for its record.
			bs.b.Active = append(bs.b.Active, slot)
		default:
			bs.recorded(slot, rec)
		}
		return true, nil
	}
	if admitted, err := bs.admitSlot(ctx); err != nil || !admitted {
		return false, err
	}
	job := bs.manualJob(bs.cj, t, bs.loc)
	job.Name = slot.JobName
	result, existing, err := jobs.Create(ctx, bs.r.Client, bs.r.APIReader, bs.cj, job)
	switch result {
	case jobs.Unread:
		return false, err
	case jobs.Exists, jobs.Taken:
		bs.existed(slot, existing)
		return true, nil
	case jobs.NamespaceTerminating:
		return false, nil
	case jobs.Failed:
		bs.r.Metrics.JobCreateFailed()
		bs.event(corev1.EventTypeWarning, cronjobv1.ReasonFailedCreate, "Create", "Error creating job: %v", errors.Unwrap(err))
		return false, err
	}
	ctrl.LoggerFrom(ctx).Info("Created Job", "job", klog.KObj(job), "cronJob", klog.KObj(bs.cj), "scheduledTime", bs.format(t))
	bs.r.Metrics.ManualRunStarted()
	bs.event(corev1.EventTypeNormal, cronjobv1.ReasonSuccessfulCreate, "Create", "Created job %s for slot %s", job.Name, bs.format(t))
	bs.b.Active = append(bs.b.Active, slot)
	bs.pass.started(job)
	return true, nil
}

// existed accounts for a slot whose Job exists: this run's is running again (or counted when it ended),
// another of the CronJob's is skipped (JobExisted), one not the CronJob's fails the slot (JobNameTaken).
func (bs *backfillSyncer) existed(slot cronjobv1.BackfillSlot, job *batchv1.Job) {
	switch {
	case bs.ours(job):
		if !bs.ended(slot, job) {
			bs.b.Active = append(bs.b.Active, slot)
			bs.pass.started(job)
		}
	case jobs.IsOwnedBy(job, bs.cj):
		slot.Reason = cronjobv1.ReasonJobExisted
		bs.skip(slot)
	default:
		slot.Reason = cronjobv1.ReasonJobNameTaken
		bs.fail(slot)
		bs.event(corev1.EventTypeWarning, cronjobv1.ReasonJobNameTaken, "Backfill", "Slot %s cannot run: Job %s exists and is not controlled by CronJob %s",
			bs.format(slot.ScheduledTime.Time), job.Name, bs.cj.Name)
	}
}

// admitSlot applies the CronJob's policy to one more slot under concurrencyPolicy Honor: under Forbid and
// Replace, no Job of the CronJob may be active (a backfill never deletes one); under a limit
// (concurrency.Limit), the active Jobs and the older runs waiting ahead must leave a place. A backfill that
// has started nothing yet waits as a Pending run does (wait), and takes its turn before younger runs.
func (bs *backfillSyncer) admitSlot(ctx context.Context) (bool, error) {
	if bs.run.Spec.ConcurrencyPolicy == cronjobv1.RunIgnoreConcurrency {
		return true, nil
	}
	active, err := bs.activeJobs(ctx, bs.cj, "")
	if err != nil {
		return false, err
	}
	spec := bs.cj.Spec
	if spec.ConcurrencyPolicy == cronjobv1.ReplaceConcurrent {
		spec.ConcurrencyPolicy = cronjobv1.ForbidConcurrent
	}
	limit, bounded := concurrency.Limit(&spec)
	ahead := 0
	if bounded {
		ahead = bs.pass.waitingAhead
	}
	if concurrency.Admit(&spec, len(active), ahead) == concurrency.Start {
		return true, nil
	}
	if bs.b.Succeeded+bs.b.Failed+bs.b.Skipped == 0 && len(bs.b.Active) == 0 {
		bs.pass.waitingAhead++
		reason := cronjobv1.ReasonMaxActiveJobs
		if spec.ConcurrencyPolicy == cronjobv1.ForbidConcurrent {
			reason = cronjobv1.ReasonJobAlreadyActive
		}
		bs.wait(reason, "%d Job(s) of CronJob %s active, the limit of its concurrencyPolicy for a backfill is %d: the first slot starts when a Job finishes (concurrencyPolicy Ignore on the CronJobRun bounds the backfill by spec.parallelism alone)",
			len(active), bs.cj.Name, max(limit, 1))
	}
	return false, nil
}

// count sets total, running and the phase (Running once a slot is accounted for, Pending before), and
// the Ready condition's progress message.
func (bs *backfillSyncer) count() {
	b := bs.b
	b.Running = int32(len(b.Active))
	left := 0
	if b.Next != nil {
		left = len(schedule.Slots(bs.sched, bs.anchor, b.Next.Time, bs.run.Spec.Range.To.Time, cronjobv1.MaxBackfillSlots))
	}
	b.Total = b.Succeeded + b.Failed + b.Skipped + b.Running + int32(left)
	if b.Succeeded+b.Failed+b.Skipped+b.Running == 0 {
		return // waiting for the first slot: wait set the condition, or nothing started in this pass
	}
	bs.run.Status.Phase = cronjobv1.RunRunning
	next := "every slot has started"
	if b.Next != nil {
		next = "next slot " + bs.format(b.Next.Time)
	}
	bs.setReady(metav1.ConditionTrue, cronjobv1.ReasonBackfillRunning, fmt.Sprintf("%d of %d slots ended (%d succeeded, %d failed, %d skipped), %d running; %s",
		b.Succeeded+b.Failed+b.Skipped, b.Total, b.Succeeded, b.Failed, b.Skipped, b.Running, next))
}

// end finishes a backfill whose every slot ended: Succeeded without a failed slot, else Failed, with an
// event that sums it up.
func (bs *backfillSyncer) end() {
	b := bs.b
	st := &bs.run.Status
	st.CompletionTime = ptr.To(metav1.NewTime(bs.now))
	msg := fmt.Sprintf("%d slots from %s to %s: %d succeeded, %d failed, %d skipped", b.Total,
		bs.format(bs.run.Spec.Range.From.Time), bs.format(bs.run.Spec.Range.To.Time), b.Succeeded, b.Failed, b.Skipped)
	if b.Failed == 0 {
		st.Phase = cronjobv1.RunSucceeded
		bs.setReady(metav1.ConditionTrue, cronjobv1.ReasonBackfillComplete, msg)
		bs.event(corev1.EventTypeNormal, cronjobv1.ReasonBackfillComplete, "Backfill", "%s", msg)
		return
	}
	st.Phase = cronjobv1.RunFailed
	msg += " (status.backfill.failedSlots lists them)"
	bs.setReady(metav1.ConditionFalse, cronjobv1.ReasonBackfillFailed, msg)
	bs.event(corev1.EventTypeWarning, cronjobv1.ReasonBackfillFailed, "Backfill", "%s", msg)
}

// format writes t in the CronJob's time zone, RFC 3339.
func (bs *backfillSyncer) format(t time.Time) string {
	loc := bs.loc
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format(time.RFC3339)
}
