package controllers

import (
	"testing"
	"time"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// TestMatrixEvery pins "@every" schedules: the scheduled times are the last scheduled time (or the creation
// time) plus whole intervals, so they never drift, and a deadline only decides whether the most recent one
// starts. The cases follow the @every cases of the batch/v1 suite, with its anchors: 08:59, 09:59, 10:00,
// 10:01, 10:59. Unlike batch/v1, a run within a deadline is never lost (batch/v1 re-anchors the interval at
// now - deadline; its own suite keeps that case commented out as failing).
func TestMatrixEvery(t *testing.T) {
	const pad = requeuePadding
	every := "@every 1h"
	weekAfter := topOfTheHour.Add(7 * 24 * time.Hour)
	scheduled := cronjobv1.ReasonScheduled

	runMatrix(t, map[string]scenario{
		"never ran, not time": {
			cronJob: hourly().Schedule(every).CreationTimestamp(hm(9, 59)), now: topOfTheHour,
			want: outcome{Ready: scheduled, Requeue: 59*time.Minute + pad},
		},
		"never ran, is time": {
			cronJob: hourly().Schedule(every).CreationTimestamp(hm(8, 59)), now: hm(9, 59),
			want: outcome{Created: []createdJob{newRun(hm(9, 59))}, Active: []string{name(hm(9, 59))},
				LastSchedule: timePtr(hm(9, 59)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour + pad},
		},
		"never ran, is time, past a 10 s deadline": {
			cronJob: hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(hm(8, 59)), now: hm(9, 59).Add(11 * time.Second),
			want: outcome{StatusWrites: 1, Events: []string{evMissed}, Ready: scheduled, Requeue: time.Hour - 11*time.Second + pad},
		},
		"never ran, is time, within a 10 s deadline": {
			cronJob: hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(hm(8, 59)), now: hm(9, 59).Add(9 * time.Second),
			want: outcome{Created: []createdJob{newRun(hm(9, 59))}, Active: []string{name(hm(9, 59))},
				LastSchedule: timePtr(hm(9, 59)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 9*time.Second + pad},
		},
		"never ran, is time, within an 11 days deadline": {
			cronJob: hourly().Schedule(every).StartingDeadlineSeconds(longDeadline).CreationTimestamp(hm(8, 59)), now: hm(9, 59).Add(9 * time.Second),
			want: outcome{Created: []createdJob{newRun(hm(9, 59))}, Active: []string{name(hm(9, 59))},
				LastSchedule: timePtr(hm(9, 59)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 9*time.Second + pad},
		},
		"prev ran but done, not time": {
			cronJob: hourly().Schedule(every).CreationTimestamp(hm(8, 59)).LastScheduleTime(hm(9, 59)).Active(doneJob(hm(9, 59))),
			jobs:    jobsOf(doneJob(hm(9, 59))), now: topOfTheHour,
			want: outcome{LastSchedule: timePtr(hm(9, 59)), LastSuccessful: timePtr(topOfTheHour),
				Events: []string{evSawCompleted}, StatusWrites: 1, Ready: scheduled, Requeue: 59*time.Minute + pad},
		},
		"prev ran but done, is time": {
			cronJob: hourly().Schedule(every).CreationTimestamp(hm(8, 59)).LastScheduleTime(hm(9, 59)).Active(doneJob(hm(9, 59))),
			jobs:    jobsOf(doneJob(hm(9, 59))), now: hm(11, 0),
			want: outcome{Created: []createdJob{newRun(hm(10, 59))}, Active: []string{name(hm(10, 59))},
				LastSchedule: timePtr(hm(10, 59)), LastSuccessful: timePtr(topOfTheHour),
				Events: []string{evSawCompleted, evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: 59*time.Minute + pad},
		},
		"prev ran but done, is time, past a 10 s deadline": {
			cronJob: hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(hm(8, 59)).LastScheduleTime(hm(9, 59)).Active(doneJob(hm(9, 59))),
			jobs:    jobsOf(doneJob(hm(9, 59))), now: hm(10, 59).Add(11 * time.Second),
			want: outcome{LastSchedule: timePtr(hm(9, 59)), LastSuccessful: timePtr(topOfTheHour),
				Events: []string{evSawCompleted, evMissed}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 11*time.Second + pad},
		},
		"prev ran but done, is time, within a 10 s deadline: not lost, unlike batch/v1": {
			cronJob: hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(hm(8, 59)).LastScheduleTime(hm(9, 59)).Active(doneJob(hm(9, 59))),
			jobs:    jobsOf(doneJob(hm(9, 59))), now: hm(10, 59).Add(9 * time.Second),
			want: outcome{Created: []createdJob{newRun(hm(10, 59))}, Active: []string{name(hm(10, 59))},
				LastSchedule: timePtr(hm(10, 59)), LastSuccessful: timePtr(topOfTheHour),
				Events: []string{evSawCompleted, evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 9*time.Second + pad},
		},
		"still active, not time": {
			cronJob: hourly().Schedule(every).CreationTimestamp(hm(8, 59)).LastScheduleTime(hm(9, 59)).Active(runningJob(hm(9, 59))),
			jobs:    jobsOf(runningJob(hm(9, 59))), now: topOfTheHour,
			want: outcome{Active: []string{name(hm(9, 59))}, LastSchedule: timePtr(hm(9, 59)), Ready: scheduled,
				Requeue: 59*time.Minute + pad},
		},
		"still active, is time, Allow": {
			cronJob: hourly().Schedule(every).CreationTimestamp(hm(8, 59)).LastScheduleTime(hm(8, 59)).Active(runningJob(hm(8, 59))),
			jobs:    jobsOf(runningJob(hm(8, 59))), now: minLate,
			want: outcome{Created: []createdJob{newRun(hm(9, 59))}, Active: []string{name(hm(8, 59)), name(hm(9, 59))},
				LastSchedule: timePtr(hm(9, 59)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: 58*time.Minute + pad},
		},
		"still active, is time, Forbid": {
			cronJob: hourly().Schedule(every).Forbid().CreationTimestamp(hm(8, 59)).LastScheduleTime(hm(8, 59)).Active(runningJob(hm(8, 59))),
			jobs:    jobsOf(runningJob(hm(8, 59))), now: minLate,
			want: outcome{StatusWrites: 1, Active: []string{name(hm(8, 59))}, LastSchedule: timePtr(hm(8, 59)),
				Events: []string{evAlreadyActive}, Ready: scheduled, Requeue: 58*time.Minute + pad},
		},
		"still active, is time, Replace": {
			cronJob: hourly().Schedule(every).Replace().CreationTimestamp(hm(8, 59)).LastScheduleTime(hm(8, 59)).Active(runningJob(hm(8, 59))),
			jobs:    jobsOf(runningJob(hm(8, 59))), now: minLate,
			want: outcome{Created: []createdJob{newRun(hm(9, 59))}, Deleted: []string{name(hm(8, 59))},
				Active: []string{name(hm(9, 59))}, LastSchedule: timePtr(hm(9, 59)), Events: []string{evDeleted, evCreated},
				StatusWrites: 1, Ready: scheduled, Requeue: 58*time.Minute + pad},
		},
		"still active, is time, past a 10 s deadline": {
			cronJob: hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(hm(8, 59)).LastScheduleTime(hm(9, 59)).Active(runningJob(hm(9, 59))),
			jobs:    jobsOf(runningJob(hm(9, 59))), now: hm(10, 59).Add(11 * time.Second),
			want: outcome{StatusWrites: 1, Active: []string{name(hm(9, 59))}, LastSchedule: timePtr(hm(9, 59)), Events: []string{evMissed},
				Ready: scheduled, Requeue: time.Hour - 11*time.Second + pad},
		},
		"still active, is time, within an 11 days deadline": {
			cronJob: hourly().Schedule(every).StartingDeadlineSeconds(longDeadline).CreationTimestamp(hm(8, 59)).LastScheduleTime(hm(9, 59)).Active(runningJob(hm(9, 59))),
			jobs:    jobsOf(runningJob(hm(9, 59))), now: hm(10, 59).Add(9 * time.Second),
			want: outcome{Created: []createdJob{newRun(hm(10, 59))}, Active: []string{name(hm(9, 59)), name(hm(10, 59))},
				LastSchedule: timePtr(hm(10, 59)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 9*time.Second + pad},
		},
		// lastScheduleTime 10:01, a week later at 10:00: the runs are 11:01, 12:01, ..., and the most recent is
		// 09:01 a week later, 167 intervals on.
		"prev ran but done, long overdue, no deadline: TooManyMissedTimes, the most recent run starts": {
			cronJob: hourly().Schedule(every).CreationTimestamp(hm(9, 1)).LastScheduleTime(hm(10, 1)).Active(doneJob(hm(10, 1))),
			jobs:    jobsOf(doneJob(hm(10, 1))), now: weekAfter,
			want: outcome{Created: []createdJob{newRun(weekAfter.Add(-59 * time.Minute))},
				Active: []string{name(weekAfter.Add(-59 * time.Minute))}, LastSchedule: timePtr(weekAfter.Add(-59 * time.Minute)),
				LastSuccessful: timePtr(hm(10, 2)), Events: []string{evSawCompleted, evTooMany, evCreated}, StatusWrites: 1,
				Ready: scheduled, Requeue: time.Minute + pad},
		},
		"prev ran but done, long overdue, within a 2 h deadline: two runs in the deadline are not too many": {
			cronJob: hourly().Schedule(every).StartingDeadlineSeconds(mediumDeadline).CreationTimestamp(hm(9, 1)).LastScheduleTime(hm(10, 1)).Active(doneJob(hm(10, 1))),
			jobs:    jobsOf(doneJob(hm(10, 1))), now: weekAfter,
			want: outcome{Created: []createdJob{newRun(weekAfter.Add(-59 * time.Minute))},
				Active: []string{name(weekAfter.Add(-59 * time.Minute))}, LastSchedule: timePtr(weekAfter.Add(-59 * time.Minute)),
				LastSuccessful: timePtr(hm(10, 2)), Events: []string{evSawCompleted, evCreated}, StatusWrites: 1,
				Ready: scheduled, Requeue: time.Minute + pad},
		},
		"prev ran but done, long overdue, past a 10 s deadline": {
			cronJob: hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(hm(9, 1)).LastScheduleTime(hm(10, 1)).Active(doneJob(hm(10, 1))),
			jobs:    jobsOf(doneJob(hm(10, 1))), now: weekAfter.Add(time.Minute + 11*time.Second),
			want: outcome{LastSchedule: timePtr(hm(10, 1)), LastSuccessful: timePtr(hm(10, 2)),
				Events: []string{evSawCompleted, evMissed}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 11*time.Second + pad},
		},
		"@every 90m, never ran, two runs due: the latest starts, counted from the creation": {
			cronJob: hourly().Schedule("@every 90m").CreationTimestamp(hm(9, 0)), now: hm(12, 0).Add(5 * time.Second),
			want: outcome{Created: []createdJob{newRun(hm(12, 0))}, Active: []string{name(hm(12, 0))},
				LastSchedule: timePtr(hm(12, 0)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: 90*time.Minute - 5*time.Second + pad},
		},
	})
}
