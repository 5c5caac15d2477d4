package controllers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// TestMatrixSuspendAndDelete pins a suspended CronJob (nothing created, whatever is due; no requeue; Jobs
// still tracked and history still pruned) and a CronJob being deleted (the same, and its schedule is not
// even looked at, so a bad one gives no warning).
func TestMatrixSuspendAndDelete(t *testing.T) {
	const pad = requeuePadding
	suspended, scheduled := cronjobv1.ReasonSuspended, cronjobv1.ReasonScheduled
	replace := policy(cronjobv1.ReplaceConcurrent)

	runMatrix(t, map[string]scenario{
		"never ran, is time, suspended": {
			cronJob: fns(suspend), now: isTime,
			want: outcome{Ready: suspended},
		},
		"never ran, not time yet, suspended: no requeue": {
			cronJob: fns(suspend), now: beforeHour,
			want: outcome{Ready: suspended},
		},
		"prev ran but done, is time, suspended: the completion is tracked": {
			cronJob: fns(suspend, lastRun(priorHour), listed(doneJob(priorHour))), jobs: jobsOf(doneJob(priorHour)), now: isTime,
			want: outcome{LastSchedule: timePtr(priorHour), LastSuccessful: timePtr(hm(9, 1)), Events: []string{evSawCompleted},
				StatusWrites: 1, Ready: suspended},
		},
		"still active, is time, suspended, Replace: the active Job is left alone": {
			cronJob: fns(suspend, replace, lastRun(priorHour), listed(runningJob(priorHour))), jobs: jobsOf(runningJob(priorHour)), now: isTime,
			want: outcome{Active: []string{name(priorHour)}, LastSchedule: timePtr(priorHour), Ready: suspended},
		},
		"still active, is time, suspended, Forbid: no JobAlreadyActive": {
			cronJob: fns(suspend, policy(cronjobv1.ForbidConcurrent), lastRun(priorHour), listed(runningJob(priorHour))),
			jobs:    jobsOf(runningJob(priorHour)), now: isTime,
			want: outcome{Active: []string{name(priorHour)}, LastSchedule: timePtr(priorHour), Ready: suspended},
		},
		"a week late, suspended: no TooManyMissedTimes": {
			cronJob: fns(suspend, lastRun(priorHour)), now: weekLate,
			want: outcome{LastSchedule: timePtr(priorHour), Ready: suspended},
		},
		"a minute late, past a 10 s deadline, suspended: no MissSchedule": {
			cronJob: fns(suspend, deadline(shortDeadline), lastRun(priorHour)), now: minLate,
			want: outcome{LastSchedule: timePtr(priorHour), Ready: suspended},
		},
		"suspended: history still pruned": {
			cronJob: fns(suspend, historyLimits(0, 0), lastRun(priorHour)), jobs: jobsOf(doneJob(hm(8, 0)), failedJob(priorHour)), now: isTime,
			want: outcome{Deleted: []string{name(hm(8, 0)), name(priorHour)}, LastSchedule: timePtr(priorHour),
				LastSuccessful: timePtr(hm(8, 1)), LastFailure: timePtr(hm(9, 1)), Events: []string{evDeleted, evDeleted},
				StatusWrites: 1, Ready: suspended},
		},
		"just suspended, is time: nothing created, status records the suspension": {
			cronJob: fns(suspend, lastRun(priorHour), observed("0 * * * *", false, priorHour), readyTrue(scheduled, "")), now: isTime,
			want: outcome{LastSchedule: timePtr(priorHour), StatusWrites: 1, Ready: suspended},
		},
		"just resumed after being suspended over the hour: the missed run does not start": {
			cronJob: fns(lastRun(priorHour), observed("0 * * * *", true, priorHour), readyTrue(suspended, suspendedMessage)),
			now:     hm(10, 30),
			want:    outcome{LastSchedule: timePtr(priorHour), StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"suspended with an unparseable schedule: the schedule error is still reported": {
			cronJob: fns(suspend, schedule("61 * * * *")), now: isTime,
			want: outcome{Events: []string{evUnparseable}, StatusWrites: 1, Ready: cronjobv1.ReasonUnparseableSchedule},
		},

		"never ran, is time, being deleted: nothing created, no requeue": {
			cronJob: fns(beingDeleted), now: isTime,
			want: outcome{Ready: scheduled},
		},
		"prev ran but done, is time, being deleted: the completion is tracked": {
			cronJob: fns(beingDeleted, lastRun(priorHour), listed(doneJob(priorHour))), jobs: jobsOf(doneJob(priorHour)), now: isTime,
			want: outcome{LastSchedule: timePtr(priorHour), LastSuccessful: timePtr(hm(9, 1)), Events: []string{evSawCompleted},
				StatusWrites: 1, Ready: scheduled},
		},
		"still active, is time, being deleted, Replace: the active Job is left to the garbage collector": {
			cronJob: fns(beingDeleted, replace, lastRun(priorHour), listed(runningJob(priorHour))), jobs: jobsOf(runningJob(priorHour)), now: isTime,
			want: outcome{Active: []string{name(priorHour)}, LastSchedule: timePtr(priorHour), Ready: scheduled},
		},
		"a week late, being deleted: no TooManyMissedTimes": {
			cronJob: fns(beingDeleted, lastRun(priorHour)), now: weekLate,
			want: outcome{LastSchedule: timePtr(priorHour), Ready: scheduled},
		},
		"being deleted: history still pruned": {
			cronJob: fns(beingDeleted, historyLimits(0, 0), lastRun(priorHour)), jobs: jobsOf(doneJob(hm(8, 0))), now: isTime,
			want: outcome{Deleted: []string{name(hm(8, 0))}, LastSchedule: timePtr(priorHour), LastSuccessful: timePtr(hm(8, 1)),
				Events: []string{evDeleted}, StatusWrites: 1, Ready: scheduled},
		},
		"being deleted with an unparseable schedule: no warning": {
			cronJob: fns(beingDeleted, schedule("61 * * * *")), now: isTime,
			want: outcome{Ready: scheduled},
		},
		"being deleted and suspended, is time: nothing created": {
			cronJob: fns(beingDeleted, suspend), now: isTime,
			want: outcome{Ready: suspended},
		},
	})
}

// TestMatrixClockBackwards pins a clock that went backwards (NTP step, restored VM): now before
// lastScheduleTime, before a Job's creation, or before the CronJob's creation. No Job is created, nothing
// is reported missed, and the requeue is the first scheduled time after lastScheduleTime: never negative.
func TestMatrixClockBackwards(t *testing.T) {
	const pad = requeuePadding
	scheduled := cronjobv1.ReasonScheduled
	jobFromTheFuture := runningJob(topOfTheHour)
	jobFromTheFuture.CreationTimestamp = metav1.NewTime(topOfTheHour.Add(30 * time.Second))
	jobFromTheFuture.Status.StartTime = &jobFromTheFuture.CreationTimestamp
	yearBack := topOfTheHour.AddDate(-1, 0, 0)

	runMatrix(t, map[string]scenario{
		"prev ran but done, clock before lastScheduleTime, Forbid (batch/v1: time drifted back)": {
			cronJob: fns(policy(cronjobv1.ForbidConcurrent), lastRun(topOfTheHour), listed(doneJob(topOfTheHour))),
			jobs:    jobsOf(doneJob(topOfTheHour)), now: beforeHour,
			want: outcome{LastSchedule: timePtr(topOfTheHour), LastSuccessful: timePtr(minLate), Events: []string{evSawCompleted},
				StatusWrites: 1, Ready: scheduled, Requeue: 61*time.Minute + pad},
		},
		"still active, clock before lastScheduleTime, Allow": {
			cronJob: fns(lastRun(topOfTheHour), listed(runningJob(topOfTheHour))), jobs: jobsOf(runningJob(topOfTheHour)), now: beforeHour,
			want: outcome{Active: []string{name(topOfTheHour)}, LastSchedule: timePtr(topOfTheHour), Ready: scheduled,
				Requeue: 61*time.Minute + pad},
		},
		"still active, clock before the Job's creation, Replace: the Job is not replaced": {
			cronJob: fns(policy(cronjobv1.ReplaceConcurrent), lastRun(topOfTheHour), listed(jobFromTheFuture)),
			jobs:    jobsOf(jobFromTheFuture), now: topOfTheHour.Add(10 * time.Second),
			want: outcome{Active: []string{name(topOfTheHour)}, LastSchedule: timePtr(topOfTheHour), Ready: scheduled,
				Requeue: time.Hour - 10*time.Second + pad},
		},
		"never ran, clock before the CronJob's creation": {
			cronJob: fns(createdAt(hm(10, 30))), now: isTime,
			want: outcome{Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"ran, clock a year back: the requeue is a year and an hour, not negative": {
			cronJob: fns(lastRun(topOfTheHour)), now: yearBack,
			want: outcome{LastSchedule: timePtr(topOfTheHour), Ready: scheduled, Requeue: hm(11, 0).Sub(yearBack) + pad},
		},
		"ran, clock before lastScheduleTime, 10 s deadline: no MissSchedule": {
			cronJob: fns(deadline(shortDeadline), lastRun(topOfTheHour)), now: beforeHour,
			want: outcome{LastSchedule: timePtr(topOfTheHour), Ready: scheduled, Requeue: 61*time.Minute + pad},
		},
		"@every, clock an hour before lastScheduleTime": {
			cronJob: fns(schedule("@every 1h"), lastRun(topOfTheHour)), now: priorHour,
			want: outcome{LastSchedule: timePtr(topOfTheHour), Ready: scheduled, Requeue: 2*time.Hour + pad},
		},
		"irregular schedule, clock back a day before Friday's last run: requeued for Monday": {
			cronJob: fns(schedule("30 10,11,12 * * 1-5"), lastRun(mustTime("2026-03-06T12:30:00Z"))), now: mustTime("2026-03-05T10:00:00Z"),
			want: outcome{LastSchedule: timePtr(mustTime("2026-03-06T12:30:00Z")), Ready: scheduled,
				Requeue: 4*24*time.Hour + 30*time.Minute + pad},
		},
		"daily in Europe/Berlin, clock before lastScheduleTime": {
			cronJob: fns(schedule("0 9 * * *"), timeZone("Europe/Berlin"), lastRun(hm(8, 0))), now: hm(7, 0),
			want: outcome{LastSchedule: timePtr(hm(8, 0)), Ready: scheduled, Requeue: 25*time.Hour + pad},
		},
	})
}

// TestMatrixScheduleChanges pins "no surprise runs": a change of schedule, time zone or suspend is recorded
// in status.observedSchedule with the time it was seen, and no run due before that time starts.
func TestMatrixScheduleChanges(t *testing.T) {
	const pad = requeuePadding
	scheduled := cronjobv1.ReasonScheduled
	unparseable := func(cj *cronjobv1.CronJob) {
		cj.Status.Conditions = []metav1.Condition{{Type: cronjobv1.ConditionReady, Status: metav1.ConditionFalse,
			Reason: cronjobv1.ReasonUnparseableSchedule, LastTransitionTime: metav1.NewTime(priorHour)}}
	}
	runMatrix(t, map[string]scenario{
		"schedule edited: the new schedule's run due before the edit was seen does not start": {
			cronJob: fns(lastRun(priorHour), observed("30 * * * *", false, priorHour), readyTrue(scheduled, "")), now: isTime,
			want: outcome{LastSchedule: timePtr(priorHour), StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"time zone edited: the run due before the edit was seen does not start": {
			// Asia/Kolkata is +05:30: its hour mark is at :30 UTC, so 10:30 UTC passed before the edit was seen.
			cronJob: fns(lastRun(priorHour), observed("0 * * * *", false, priorHour), timeZone("Asia/Kolkata"), readyTrue(scheduled, "")),
			now:     hm(10, 31),
			want:    outcome{LastSchedule: timePtr(priorHour), StatusWrites: 1, Ready: scheduled, Requeue: 59*time.Minute + pad},
		},
		"resumed at 09:30: the first run after the resume starts": {
			cronJob: fns(lastRun(priorHour), observed("0 * * * *", false, hm(9, 30)), readyTrue(scheduled, "")), now: isTime,
			want: outcome{Created: []createdJob{newRun(topOfTheHour)}, Active: []string{name(topOfTheHour)},
				LastSchedule: timePtr(topOfTheHour), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 5*time.Second + pad},
		},
		"Ready was False for a bad schedule, the schedule is fixed: Ready recovers": {
			cronJob: fns(lastRun(priorHour), unparseable), now: beforeHour,
			want: outcome{LastSchedule: timePtr(priorHour), StatusWrites: 1, Ready: scheduled, Requeue: time.Minute + pad},
		},
	})
}
