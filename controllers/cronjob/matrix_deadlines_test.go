package cronjob

import (
	"testing"
	"time"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// TestMatrixDeadlines pins startingDeadlineSeconds at its boundaries, for each deadline of the matrix and
// schedules slower than the deadline (so that "past the deadline" exists): a run exactly at the deadline
// starts, a run a moment past it is missed (MissSchedule, nothing created, lastScheduleTime unchanged, no
// status write). Also: long overdue with and without a deadline (TooManyMissedTimes counts only the runs
// within the deadline), and Forbid retrying a skipped run while it is within the deadline.
func TestMatrixDeadlines(t *testing.T) {
	const pad = schedule.RequeuePadding
	daily := "0 10 * * *"
	monthly := "0 10 1 * *"
	lastMonth := MustTime("2026-02-01T10:00:00Z")
	thisMonth := MustTime("2026-03-01T10:00:00Z")
	nextMonth := MustTime("2026-04-01T10:00:00Z")
	longLate := time.Duration(longDeadline) * time.Second
	yearAgo := TopOfTheHour.AddDate(-1, 0, 0)

	runs := func(slot time.Time, requeue time.Duration) outcome {
		return outcome{Created: []createdJob{newRun(slot)}, Active: []string{JobName(slot)}, LastSchedule: TimePtr(slot),
			Events: []string{evCreated}, StatusWrites: 1, Ready: cronjobv1.ReasonScheduled, Requeue: requeue}
	}
	// A missed run writes status once: schedule.Next moves to the next scheduled time.
	missed := func(last time.Time, requeue time.Duration) outcome {
		return outcome{LastSchedule: TimePtr(last), Events: []string{evMissed}, StatusWrites: 1, Ready: cronjobv1.ReasonScheduled, Requeue: requeue}
	}

	runMatrix(t, map[string]scenario{
		"ran before, 9 s late, within a 10 s deadline": {
			cronJob: Hourly().StartingDeadlineSeconds(shortDeadline).LastScheduleTime(PriorHour), now: TopOfTheHour.Add(9 * time.Second),
			want: runs(TopOfTheHour, time.Hour-9*time.Second+pad),
		},
		"ran before, exactly 10 s late, at a 10 s deadline: starts, as in batch/v1": {
			cronJob: Hourly().StartingDeadlineSeconds(shortDeadline).LastScheduleTime(PriorHour), now: TopOfTheHour.Add(10 * time.Second),
			want: runs(TopOfTheHour, time.Hour-10*time.Second+pad),
		},
		"ran before, 10 s and a nanosecond late, past a 10 s deadline": {
			cronJob: Hourly().StartingDeadlineSeconds(shortDeadline).LastScheduleTime(PriorHour), now: TopOfTheHour.Add(10*time.Second + 1),
			want: missed(PriorHour, time.Hour-10*time.Second-1+pad),
		},
		"ran before, a minute late, past a 10 s deadline, second reconcile: no second MissSchedule, no status write": {
			cronJob: Hourly().StartingDeadlineSeconds(shortDeadline).LastScheduleTime(PriorHour), now: MinLate, twice: true,
			want: outcome{LastSchedule: TimePtr(PriorHour), Ready: cronjobv1.ReasonScheduled, Requeue: 59*time.Minute + pad},
		},
		"ran before, exactly on time, 0 s deadline: starts": {
			cronJob: Hourly().StartingDeadlineSeconds(0).LastScheduleTime(PriorHour), now: TopOfTheHour,
			want: runs(TopOfTheHour, time.Hour+pad),
		},
		"ran before, a nanosecond late, past a 0 s deadline": {
			cronJob: Hourly().StartingDeadlineSeconds(0).LastScheduleTime(PriorHour), now: TopOfTheHour.Add(1),
			want: missed(PriorHour, time.Hour-1+pad),
		},
		"never ran, created half an hour before, 20 s late, past a 10 s deadline": {
			cronJob: Hourly().StartingDeadlineSeconds(shortDeadline).CreationTimestamp(HM(9, 30)), now: TopOfTheHour.Add(20 * time.Second),
			want: outcome{StatusWrites: 1, Events: []string{evMissed}, Ready: cronjobv1.ReasonScheduled, Requeue: time.Hour - 20*time.Second + pad},
		},
		"daily, ran yesterday, exactly 2 h late, at a 2 h deadline: starts": {
			cronJob: Hourly().Schedule(daily).StartingDeadlineSeconds(mediumDeadline).CreationTimestamp(lastMonth).LastScheduleTime(TopOfTheHour.Add(-24 * time.Hour)),
			now:     HM(12, 0),
			want:    runs(TopOfTheHour, 22*time.Hour+pad),
		},
		"daily, ran yesterday, 2 h and a second late, past a 2 h deadline": {
			cronJob: Hourly().Schedule(daily).StartingDeadlineSeconds(mediumDeadline).CreationTimestamp(lastMonth).LastScheduleTime(TopOfTheHour.Add(-24 * time.Hour)),
			now:     HM(12, 0).Add(time.Second),
			want:    missed(TopOfTheHour.Add(-24*time.Hour), 22*time.Hour-time.Second+pad),
		},
		"monthly, ran last month, exactly 11 days late, at an 11 days deadline: starts": {
			cronJob: Hourly().Schedule(monthly).StartingDeadlineSeconds(longDeadline).CreationTimestamp(lastMonth.AddDate(0, -1, 0)).LastScheduleTime(lastMonth),
			now:     thisMonth.Add(longLate),
			want:    runs(thisMonth, nextMonth.Sub(thisMonth.Add(longLate))+pad),
		},
		"monthly, ran last month, a second past an 11 days deadline": {
			cronJob: Hourly().Schedule(monthly).StartingDeadlineSeconds(longDeadline).CreationTimestamp(lastMonth.AddDate(0, -1, 0)).LastScheduleTime(lastMonth),
			now:     thisMonth.Add(longLate + time.Second),
			want:    missed(lastMonth, nextMonth.Sub(thisMonth.Add(longLate+time.Second))+pad),
		},
		"monthly, a year late, no deadline: the most recent run starts; 12 missed is not too many": {
			cronJob: Hourly().Schedule(monthly).CreationTimestamp(yearAgo.AddDate(0, -1, 0)).LastScheduleTime(MustTime("2025-03-01T10:00:00Z")),
			now:     TopOfTheHour,
			want:    runs(thisMonth, nextMonth.Sub(TopOfTheHour)+pad),
		},
		"hourly, a year late, no deadline: TooManyMissedTimes, and the most recent run starts": {
			cronJob: Hourly().CreationTimestamp(yearAgo).LastScheduleTime(yearAgo), now: TopOfTheHour.Add(30 * time.Minute),
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)},
				LastSchedule: TimePtr(TopOfTheHour), Events: []string{evTooMany, evCreated}, StatusWrites: 1,
				Ready: cronjobv1.ReasonScheduled, Requeue: 30*time.Minute + pad},
		},
		"hourly, a year late, within a 2 h deadline: two runs in the deadline are not too many": {
			cronJob: Hourly().StartingDeadlineSeconds(mediumDeadline).CreationTimestamp(yearAgo).LastScheduleTime(yearAgo), now: TopOfTheHour.Add(30 * time.Minute),
			want: runs(TopOfTheHour, 30*time.Minute+pad),
		},
		"hourly, a year late, half an hour past a 10 s deadline": {
			cronJob: Hourly().StartingDeadlineSeconds(shortDeadline).CreationTimestamp(yearAgo).LastScheduleTime(yearAgo), now: TopOfTheHour.Add(30 * time.Minute),
			want: missed(yearAgo, 30*time.Minute+pad),
		},
		"Forbid skipped the 10:00 run; the Job before has finished at 10:30, within a 2 h deadline: the skipped run starts": {
			cronJob: Hourly().Forbid().StartingDeadlineSeconds(mediumDeadline).LastScheduleTime(PriorHour).Active(DoneJob(PriorHour)),
			jobs:    jobsOf(DoneJob(PriorHour)), now: HM(10, 30),
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)},
				LastSchedule: TimePtr(TopOfTheHour), LastSuccessful: TimePtr(HM(9, 1)), Events: []string{evSawCompleted, evCreated},
				StatusWrites: 1, Ready: cronjobv1.ReasonScheduled, Requeue: 30*time.Minute + pad},
		},
		"Forbid skipped the 10:00 run; the Job before has finished at 10:30, past a 10 s deadline: missed": {
			cronJob: Hourly().Forbid().StartingDeadlineSeconds(shortDeadline).LastScheduleTime(PriorHour).Active(DoneJob(PriorHour)),
			jobs:    jobsOf(DoneJob(PriorHour)), now: HM(10, 30),
			want: outcome{LastSchedule: TimePtr(PriorHour), LastSuccessful: TimePtr(HM(9, 1)), Events: []string{evSawCompleted, evMissed},
				StatusWrites: 1, Ready: cronjobv1.ReasonScheduled, Requeue: 30*time.Minute + pad},
		},
		"Forbid skipped the 10:00 run; the Job before has finished at 10:30, no deadline: the skipped run starts": {
			cronJob: Hourly().Forbid().LastScheduleTime(PriorHour).Active(DoneJob(PriorHour)),
			jobs:    jobsOf(DoneJob(PriorHour)), now: HM(10, 30),
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)},
				LastSchedule: TimePtr(TopOfTheHour), LastSuccessful: TimePtr(HM(9, 1)), Events: []string{evSawCompleted, evCreated},
				StatusWrites: 1, Ready: cronjobv1.ReasonScheduled, Requeue: 30*time.Minute + pad},
		},
	})
}
