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

	runMatrix(t, map[string]scenario{
		"never ran, is time, suspended": {
			cronJob: hourly().Suspend(), now: isTime,
			want: outcome{Ready: suspended},
		},
		"never ran, not time yet, suspended: no requeue": {
			cronJob: hourly().Suspend(), now: beforeHour,
			want: outcome{Ready: suspended},
		},
		"prev ran but done, is time, suspended: the completion is tracked": {
			cronJob: hourly().Suspend().LastScheduleTime(priorHour).Active(doneJob(priorHour)), jobs: jobsOf(doneJob(priorHour)), now: isTime,
			want: outcome{LastSchedule: timePtr(priorHour), LastSuccessful: timePtr(hm(9, 1)), Events: []string{evSawCompleted},
				StatusWrites: 1, Ready: suspended},
		},
		"still active, is time, suspended, Replace: the active Job is left alone": {
			cronJob: hourly().Suspend().Replace().LastScheduleTime(priorHour).Active(runningJob(priorHour)), jobs: jobsOf(runningJob(priorHour)), now: isTime,
			want: outcome{Active: []string{name(priorHour)}, LastSchedule: timePtr(priorHour), Ready: suspended},
		},
		"still active, is time, suspended, Forbid: no JobAlreadyActive": {
			cronJob: hourly().Suspend().Forbid().LastScheduleTime(priorHour).Active(runningJob(priorHour)),
			jobs:    jobsOf(runningJob(priorHour)), now: isTime,
			want: outcome{Active: []string{name(priorHour)}, LastSchedule: timePtr(priorHour), Ready: suspended},
		},
		"a week late, suspended: no TooManyMissedTimes": {
			cronJob: hourly().Suspend().LastScheduleTime(priorHour), now: weekLate,
			want: outcome{LastSchedule: timePtr(priorHour), Ready: suspended},
		},
		"a minute late, past a 10 s deadline, suspended: no MissSchedule": {
			cronJob: hourly().Suspend().StartingDeadlineSeconds(shortDeadline).LastScheduleTime(priorHour), now: minLate,
			want: outcome{LastSchedule: timePtr(priorHour), Ready: suspended},
		},
		"suspended: history still pruned": {
			cronJob: hourly().Suspend().HistoryLimits(0, 0).LastScheduleTime(priorHour), jobs: jobsOf(doneJob(hm(8, 0)), failedJob(priorHour)), now: isTime,
			want: outcome{Deleted: []string{name(hm(8, 0)), name(priorHour)}, LastSchedule: timePtr(priorHour),
				LastSuccessful: timePtr(hm(8, 1)), LastFailure: timePtr(hm(9, 1)), Events: []string{evDeleted, evDeleted},
				StatusWrites: 1, Ready: suspended},
		},
		"just suspended, is time: nothing created, status records the suspension": {
			cronJob: hourly().Suspend().LastScheduleTime(priorHour).ObservedSchedule(observed("0 * * * *", false, priorHour)).Condition(readyTrue(scheduled, "")), now: isTime,
			want: outcome{LastSchedule: timePtr(priorHour), StatusWrites: 1, Ready: suspended},
		},
		"just resumed after being suspended over the hour: the missed run does not start": {
			cronJob: hourly().LastScheduleTime(priorHour).ObservedSchedule(observed("0 * * * *", true, priorHour)).Condition(readyTrue(suspended, suspendedMessage)),
			now:     hm(10, 30),
			want:    outcome{LastSchedule: timePtr(priorHour), StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"suspended with an unparseable schedule: the schedule error is still reported": {
			cronJob: hourly().Suspend().Schedule("61 * * * *"), now: isTime,
			want: outcome{Events: []string{evUnparseable}, StatusWrites: 1, Ready: cronjobv1.ReasonUnparseableSchedule},
		},

		"never ran, is time, being deleted: nothing created, no requeue": {
			cronJob: hourly().Finalizers("example.com/hold").DeletionTimestamp(topOfTheHour), now: isTime,
			want: outcome{Ready: scheduled},
		},
		"prev ran but done, is time, being deleted: the completion is tracked": {
			cronJob: hourly().Finalizers("example.com/hold").DeletionTimestamp(topOfTheHour).LastScheduleTime(priorHour).Active(doneJob(priorHour)), jobs: jobsOf(doneJob(priorHour)), now: isTime,
			want: outcome{LastSchedule: timePtr(priorHour), LastSuccessful: timePtr(hm(9, 1)), Events: []string{evSawCompleted},
				StatusWrites: 1, Ready: scheduled},
		},
		"still active, is time, being deleted, Replace: the active Job is left to the garbage collector": {
			cronJob: hourly().Finalizers("example.com/hold").DeletionTimestamp(topOfTheHour).Replace().LastScheduleTime(priorHour).Active(runningJob(priorHour)), jobs: jobsOf(runningJob(priorHour)), now: isTime,
			want: outcome{Active: []string{name(priorHour)}, LastSchedule: timePtr(priorHour), Ready: scheduled},
		},
		"a week late, being deleted: no TooManyMissedTimes": {
			cronJob: hourly().Finalizers("example.com/hold").DeletionTimestamp(topOfTheHour).LastScheduleTime(priorHour), now: weekLate,
			want: outcome{LastSchedule: timePtr(priorHour), Ready: scheduled},
		},
		"being deleted: history still pruned": {
			cronJob: hourly().Finalizers("example.com/hold").DeletionTimestamp(topOfTheHour).HistoryLimits(0, 0).LastScheduleTime(priorHour), jobs: jobsOf(doneJob(hm(8, 0))), now: isTime,
			want: outcome{Deleted: []string{name(hm(8, 0))}, LastSchedule: timePtr(priorHour), LastSuccessful: timePtr(hm(8, 1)),
				Events: []string{evDeleted}, StatusWrites: 1, Ready: scheduled},
		},
		"being deleted with an unparseable schedule: no warning": {
			cronJob: hourly().Finalizers("example.com/hold").DeletionTimestamp(topOfTheHour).Schedule("61 * * * *"), now: isTime,
			want: outcome{Ready: scheduled},
		},
		"being deleted and suspended, is time: nothing created": {
			cronJob: hourly().Finalizers("example.com/hold").DeletionTimestamp(topOfTheHour).Suspend(), now: isTime,
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
	jobFromTheFuture := hourlyJob(topOfTheHour).CreationTimestamp(topOfTheHour.Add(30 * time.Second)).
		StartedAt(topOfTheHour.Add(30 * time.Second)).Obj()
	yearBack := topOfTheHour.AddDate(-1, 0, 0)

	runMatrix(t, map[string]scenario{
		"prev ran but done, clock before lastScheduleTime, Forbid (batch/v1: time drifted back)": {
			cronJob: hourly().Forbid().LastScheduleTime(topOfTheHour).Active(doneJob(topOfTheHour)),
			jobs:    jobsOf(doneJob(topOfTheHour)), now: beforeHour,
			want: outcome{LastSchedule: timePtr(topOfTheHour), LastSuccessful: timePtr(minLate), Events: []string{evSawCompleted},
				StatusWrites: 1, Ready: scheduled, Requeue: 61*time.Minute + pad},
		},
		"still active, clock before lastScheduleTime, Allow": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).Active(runningJob(topOfTheHour)), jobs: jobsOf(runningJob(topOfTheHour)), now: beforeHour,
			want: outcome{Active: []string{name(topOfTheHour)}, LastSchedule: timePtr(topOfTheHour), Ready: scheduled,
				Requeue: 61*time.Minute + pad},
		},
		"still active, clock before the Job's creation, Replace: the Job is not replaced": {
			cronJob: hourly().Replace().LastScheduleTime(topOfTheHour).Active(jobFromTheFuture),
			jobs:    jobsOf(jobFromTheFuture), now: topOfTheHour.Add(10 * time.Second),
			want: outcome{Active: []string{name(topOfTheHour)}, LastSchedule: timePtr(topOfTheHour), Ready: scheduled,
				Requeue: time.Hour - 10*time.Second + pad},
		},
		"never ran, clock before the CronJob's creation": {
			cronJob: hourly().CreationTimestamp(hm(10, 30)), now: isTime,
			want: outcome{Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"ran, clock a year back: the requeue is a year and an hour, not negative": {
			cronJob: hourly().LastScheduleTime(topOfTheHour), now: yearBack,
			want: outcome{LastSchedule: timePtr(topOfTheHour), Ready: scheduled, Requeue: hm(11, 0).Sub(yearBack) + pad},
		},
		"ran, clock before lastScheduleTime, 10 s deadline: no MissSchedule": {
			cronJob: hourly().StartingDeadlineSeconds(shortDeadline).LastScheduleTime(topOfTheHour), now: beforeHour,
			want: outcome{LastSchedule: timePtr(topOfTheHour), Ready: scheduled, Requeue: 61*time.Minute + pad},
		},
		"@every, clock an hour before lastScheduleTime": {
			cronJob: hourly().Schedule("@every 1h").LastScheduleTime(topOfTheHour), now: priorHour,
			want: outcome{LastSchedule: timePtr(topOfTheHour), Ready: scheduled, Requeue: 2*time.Hour + pad},
		},
		"irregular schedule, clock back a day before Friday's last run: requeued for Monday": {
			cronJob: hourly().Schedule("30 10,11,12 * * 1-5").LastScheduleTime(mustTime("2026-03-06T12:30:00Z")), now: mustTime("2026-03-05T10:00:00Z"),
			want: outcome{LastSchedule: timePtr(mustTime("2026-03-06T12:30:00Z")), Ready: scheduled,
				Requeue: 4*24*time.Hour + 30*time.Minute + pad},
		},
		"daily in Europe/Berlin, clock before lastScheduleTime": {
			cronJob: hourly().Schedule("0 9 * * *").TimeZone("Europe/Berlin").LastScheduleTime(hm(8, 0)), now: hm(7, 0),
			want: outcome{LastSchedule: timePtr(hm(8, 0)), Ready: scheduled, Requeue: 25*time.Hour + pad},
		},
	})
}

// TestMatrixScheduleChanges pins "no surprise runs": a change of schedule, time zone or suspend is recorded
// in status.observedSchedule with the time it was seen, and no run due before that time starts.
func TestMatrixScheduleChanges(t *testing.T) {
	const pad = requeuePadding
	scheduled := cronjobv1.ReasonScheduled
	unparseable := metav1.Condition{Type: cronjobv1.ConditionReady, Status: metav1.ConditionFalse,
		Reason: cronjobv1.ReasonUnparseableSchedule, LastTransitionTime: metav1.NewTime(priorHour)}
	runMatrix(t, map[string]scenario{
		"schedule edited: the new schedule's run due before the edit was seen does not start": {
			cronJob: hourly().LastScheduleTime(priorHour).ObservedSchedule(observed("30 * * * *", false, priorHour)).Condition(readyTrue(scheduled, "")), now: isTime,
			want: outcome{LastSchedule: timePtr(priorHour), StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"time zone edited: the run due before the edit was seen does not start": {
			// Asia/Kolkata is +05:30: its hour mark is at :30 UTC, so 10:30 UTC passed before the edit was seen.
			cronJob: hourly().LastScheduleTime(priorHour).ObservedSchedule(observed("0 * * * *", false, priorHour)).TimeZone("Asia/Kolkata").Condition(readyTrue(scheduled, "")),
			now:     hm(10, 31),
			want:    outcome{LastSchedule: timePtr(priorHour), StatusWrites: 1, Ready: scheduled, Requeue: 59*time.Minute + pad},
		},
		"resumed at 09:30: the first run after the resume starts": {
			cronJob: hourly().LastScheduleTime(priorHour).ObservedSchedule(observed("0 * * * *", false, hm(9, 30))).Condition(readyTrue(scheduled, "")), now: isTime,
			want: outcome{Created: []createdJob{newRun(topOfTheHour)}, Active: []string{name(topOfTheHour)},
				LastSchedule: timePtr(topOfTheHour), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 5*time.Second + pad},
		},
		"Ready was False for a bad schedule, the schedule is fixed: Ready recovers": {
			cronJob: hourly().LastScheduleTime(priorHour).Condition(unparseable), now: beforeHour,
			want: outcome{LastSchedule: timePtr(priorHour), StatusWrites: 1, Ready: scheduled, Requeue: time.Minute + pad},
		},
	})
}
