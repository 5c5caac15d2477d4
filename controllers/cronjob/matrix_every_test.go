package cronjob

import (
	"testing"
	"time"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// TestMatrixEvery pins "@every" schedules: the scheduled times are the last scheduled time (or the creation
// time) plus whole intervals, so they never drift, and a deadline only decides whether the most recent one
// starts. The cases follow the @every cases of the batch/v1 suite, with its anchors: 08:59, 09:59, 10:00,
// 10:01, 10:59. Unlike batch/v1, a run within a deadline is never lost (batch/v1 re-anchors the interval at
// now - deadline; its own suite keeps that case commented out as failing).
func TestMatrixEvery(t *testing.T) {
	const pad = schedule.RequeuePadding
	every := "@every 1h"
	weekAfter := TopOfTheHour.Add(7 * 24 * time.Hour)
	scheduled := cronjobv1.ReasonScheduled

	runMatrix(t, map[string]scenario{
		"never ran, not time": {
			cronJob: Hourly().Schedule(every).CreationTimestamp(HM(9, 59)), now: TopOfTheHour,
			want: outcome{Ready: scheduled, Requeue: 59*time.Minute + pad},
		},
		"never ran, is time": {
			cronJob: Hourly().Schedule(every).CreationTimestamp(HM(8, 59)), now: HM(9, 59),
			want: outcome{Created: []createdJob{newRun(HM(9, 59))}, Active: []string{JobName(HM(9, 59))},
				LastSchedule: TimePtr(HM(9, 59)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour + pad},
		},
		"never ran, is time, past a 10 s deadline": {
			cronJob: Hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(HM(8, 59)), now: HM(9, 59).Add(11 * time.Second),
			want: outcome{StatusWrites: 1, Events: []string{evMissed}, Ready: scheduled, Requeue: time.Hour - 11*time.Second + pad},
		},
		"never ran, is time, within a 10 s deadline": {
			cronJob: Hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(HM(8, 59)), now: HM(9, 59).Add(9 * time.Second),
			want: outcome{Created: []createdJob{newRun(HM(9, 59))}, Active: []string{JobName(HM(9, 59))},
				LastSchedule: TimePtr(HM(9, 59)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 9*time.Second + pad},
		},
		"never ran, is time, within an 11 days deadline": {
			cronJob: Hourly().Schedule(every).StartingDeadlineSeconds(longDeadline).CreationTimestamp(HM(8, 59)), now: HM(9, 59).Add(9 * time.Second),
			want: outcome{Created: []createdJob{newRun(HM(9, 59))}, Active: []string{JobName(HM(9, 59))},
				LastSchedule: TimePtr(HM(9, 59)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 9*time.Second + pad},
		},
		"prev ran but done, not time": {
			cronJob: Hourly().Schedule(every).CreationTimestamp(HM(8, 59)).LastScheduleTime(HM(9, 59)).Active(DoneJob(HM(9, 59))),
			jobs:    jobsOf(DoneJob(HM(9, 59))), now: TopOfTheHour,
			want: outcome{LastSchedule: TimePtr(HM(9, 59)), LastSuccessful: TimePtr(TopOfTheHour),
				Events: []string{evSawCompleted}, StatusWrites: 1, Ready: scheduled, Requeue: 59*time.Minute + pad},
		},
		"prev ran but done, is time": {
			cronJob: Hourly().Schedule(every).CreationTimestamp(HM(8, 59)).LastScheduleTime(HM(9, 59)).Active(DoneJob(HM(9, 59))),
			jobs:    jobsOf(DoneJob(HM(9, 59))), now: HM(11, 0),
			want: outcome{Created: []createdJob{newRun(HM(10, 59))}, Active: []string{JobName(HM(10, 59))},
				LastSchedule: TimePtr(HM(10, 59)), LastSuccessful: TimePtr(TopOfTheHour),
				Events: []string{evSawCompleted, evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: 59*time.Minute + pad},
		},
		"prev ran but done, is time, past a 10 s deadline": {
			cronJob: Hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(HM(8, 59)).LastScheduleTime(HM(9, 59)).Active(DoneJob(HM(9, 59))),
			jobs:    jobsOf(DoneJob(HM(9, 59))), now: HM(10, 59).Add(11 * time.Second),
			want: outcome{LastSchedule: TimePtr(HM(9, 59)), LastSuccessful: TimePtr(TopOfTheHour),
				Events: []string{evSawCompleted, evMissed}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 11*time.Second + pad},
		},
		"prev ran but done, is time, within a 10 s deadline: not lost, unlike batch/v1": {
			cronJob: Hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(HM(8, 59)).LastScheduleTime(HM(9, 59)).Active(DoneJob(HM(9, 59))),
			jobs:    jobsOf(DoneJob(HM(9, 59))), now: HM(10, 59).Add(9 * time.Second),
			want: outcome{Created: []createdJob{newRun(HM(10, 59))}, Active: []string{JobName(HM(10, 59))},
				LastSchedule: TimePtr(HM(10, 59)), LastSuccessful: TimePtr(TopOfTheHour),
				Events: []string{evSawCompleted, evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 9*time.Second + pad},
		},
		"still active, not time": {
			cronJob: Hourly().Schedule(every).CreationTimestamp(HM(8, 59)).LastScheduleTime(HM(9, 59)).Active(RunningJob(HM(9, 59))),
			jobs:    jobsOf(RunningJob(HM(9, 59))), now: TopOfTheHour,
			want: outcome{Active: []string{JobName(HM(9, 59))}, LastSchedule: TimePtr(HM(9, 59)), Ready: scheduled,
				Requeue: 59*time.Minute + pad},
		},
		"still active, is time, Allow": {
			cronJob: Hourly().Schedule(every).CreationTimestamp(HM(8, 59)).LastScheduleTime(HM(8, 59)).Active(RunningJob(HM(8, 59))),
			jobs:    jobsOf(RunningJob(HM(8, 59))), now: MinLate,
			want: outcome{Created: []createdJob{newRun(HM(9, 59))}, Active: []string{JobName(HM(8, 59)), JobName(HM(9, 59))},
				LastSchedule: TimePtr(HM(9, 59)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: 58*time.Minute + pad},
		},
		"still active, is time, Forbid": {
			cronJob: Hourly().Schedule(every).Forbid().CreationTimestamp(HM(8, 59)).LastScheduleTime(HM(8, 59)).Active(RunningJob(HM(8, 59))),
			jobs:    jobsOf(RunningJob(HM(8, 59))), now: MinLate,
			want: outcome{StatusWrites: 1, Active: []string{JobName(HM(8, 59))}, LastSchedule: TimePtr(HM(8, 59)),
				Events: []string{evAlreadyActive}, Ready: scheduled, Requeue: 58*time.Minute + pad},
		},
		"still active, is time, Replace": {
			cronJob: Hourly().Schedule(every).Replace().CreationTimestamp(HM(8, 59)).LastScheduleTime(HM(8, 59)).Active(RunningJob(HM(8, 59))),
			jobs:    jobsOf(RunningJob(HM(8, 59))), now: MinLate,
			want: outcome{Created: []createdJob{newRun(HM(9, 59))}, Deleted: []string{JobName(HM(8, 59))},
				Active: []string{JobName(HM(9, 59))}, LastSchedule: TimePtr(HM(9, 59)), Events: []string{evDeleted, evCreated},
				StatusWrites: 1, Ready: scheduled, Requeue: 58*time.Minute + pad},
		},
		"still active, is time, past a 10 s deadline": {
			cronJob: Hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(HM(8, 59)).LastScheduleTime(HM(9, 59)).Active(RunningJob(HM(9, 59))),
			jobs:    jobsOf(RunningJob(HM(9, 59))), now: HM(10, 59).Add(11 * time.Second),
			want: outcome{StatusWrites: 1, Active: []string{JobName(HM(9, 59))}, LastSchedule: TimePtr(HM(9, 59)), Events: []string{evMissed},
				Ready: scheduled, Requeue: time.Hour - 11*time.Second + pad},
		},
		"still active, is time, within an 11 days deadline": {
			cronJob: Hourly().Schedule(every).StartingDeadlineSeconds(longDeadline).CreationTimestamp(HM(8, 59)).LastScheduleTime(HM(9, 59)).Active(RunningJob(HM(9, 59))),
			jobs:    jobsOf(RunningJob(HM(9, 59))), now: HM(10, 59).Add(9 * time.Second),
			want: outcome{Created: []createdJob{newRun(HM(10, 59))}, Active: []string{JobName(HM(9, 59)), JobName(HM(10, 59))},
				LastSchedule: TimePtr(HM(10, 59)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 9*time.Second + pad},
		},
		// lastScheduleTime 10:01, a week later at 10:00: the runs are 11:01, 12:01, ..., and the most recent is
		// 09:01 a week later, 167 intervals on.
		"prev ran but done, long overdue, no deadline: TooManyMissedTimes, the most recent run starts": {
			cronJob: Hourly().Schedule(every).CreationTimestamp(HM(9, 1)).LastScheduleTime(HM(10, 1)).Active(DoneJob(HM(10, 1))),
			jobs:    jobsOf(DoneJob(HM(10, 1))), now: weekAfter,
			want: outcome{Created: []createdJob{newRun(weekAfter.Add(-59 * time.Minute))},
				Active: []string{JobName(weekAfter.Add(-59 * time.Minute))}, LastSchedule: TimePtr(weekAfter.Add(-59 * time.Minute)),
				LastSuccessful: TimePtr(HM(10, 2)), Events: []string{evSawCompleted, evTooMany, evCreated}, StatusWrites: 1,
				Ready: scheduled, Requeue: time.Minute + pad},
		},
		"prev ran but done, long overdue, within a 2 h deadline: two runs in the deadline are not too many": {
			cronJob: Hourly().Schedule(every).StartingDeadlineSeconds(mediumDeadline).CreationTimestamp(HM(9, 1)).LastScheduleTime(HM(10, 1)).Active(DoneJob(HM(10, 1))),
			jobs:    jobsOf(DoneJob(HM(10, 1))), now: weekAfter,
			want: outcome{Created: []createdJob{newRun(weekAfter.Add(-59 * time.Minute))},
				Active: []string{JobName(weekAfter.Add(-59 * time.Minute))}, LastSchedule: TimePtr(weekAfter.Add(-59 * time.Minute)),
				LastSuccessful: TimePtr(HM(10, 2)), Events: []string{evSawCompleted, evCreated}, StatusWrites: 1,
				Ready: scheduled, Requeue: time.Minute + pad},
		},
		"prev ran but done, long overdue, past a 10 s deadline": {
			cronJob: Hourly().Schedule(every).StartingDeadlineSeconds(shortDeadline).CreationTimestamp(HM(9, 1)).LastScheduleTime(HM(10, 1)).Active(DoneJob(HM(10, 1))),
			jobs:    jobsOf(DoneJob(HM(10, 1))), now: weekAfter.Add(time.Minute + 11*time.Second),
			want: outcome{LastSchedule: TimePtr(HM(10, 1)), LastSuccessful: TimePtr(HM(10, 2)),
				Events: []string{evSawCompleted, evMissed}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 11*time.Second + pad},
		},
		"@every 90m, never ran, two runs due: the latest starts, counted from the creation": {
			cronJob: Hourly().Schedule("@every 90m").CreationTimestamp(HM(9, 0)), now: HM(12, 0).Add(5 * time.Second),
			want: outcome{Created: []createdJob{newRun(HM(12, 0))}, Active: []string{JobName(HM(12, 0))},
				LastSchedule: TimePtr(HM(12, 0)), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: 90*time.Minute - 5*time.Second + pad},
		},
	})
}
