package controllers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// TestMatrixHistoryLimits pins the history limits (history.go): the finished Jobs beyond
// successfulJobsHistoryLimit (default 3) and failedJobsHistoryLimit (default 1) are deleted, successful
// ones first, oldest first. Age is status.startTime, else creationTimestamp (batch/v1 treats a Job that
// never started as the newest and never prunes it); ties go by name. Active Jobs and Jobs of other owners
// are never deleted. Pruning writes no status by itself. Unless a case says otherwise the CronJob last
// ran at 10:00 and it is 10:30: nothing is due.
func TestMatrixHistoryLimits(t *testing.T) {
	const pad = requeuePadding
	scheduled := cronjobv1.ReasonScheduled
	// pruned is the outcome of a reconcile at 10:30 that deletes these Jobs, in order, and nothing else.
	pruned := func(jobs ...string) outcome {
		o := outcome{Deleted: jobs, LastSchedule: timePtr(topOfTheHour), Ready: scheduled, Requeue: 30*time.Minute + pad}
		for range jobs {
			o.Events = append(o.Events, evDeleted)
		}
		return o
	}
	withTimes := func(o outcome, succeeded, failed time.Time) outcome {
		o.LastSuccessful, o.LastFailure = optTime(succeeded), optTime(failed)
		return o
	}
	neverStarted := hourlyJob(hm(8, 0)).Failed(hm(8, 1)).NotStarted().Obj()        // created at 08:00, failed at 08:01 before its Pod started
	startedLate := hourlyJob(hm(7, 0)).StartedAt(hm(8, 30)).Failed(hm(7, 1)).Obj() // created at 07:00, started at 08:30
	// Two Jobs started at the same time; the one with the smaller name was created later.
	tieA := hourlyJob(hm(7, 0)).CreationTimestamp(hm(8, 10)).StartedAt(hm(8, 30)).Succeeded(hm(7, 1)).Obj()
	tieB := hourlyJob(hm(8, 0)).CreationTimestamp(hm(7, 50)).StartedAt(hm(8, 30)).Succeeded(hm(8, 1)).Obj()
	unstartedA := hourlyJob(hm(7, 0)).CreationTimestamp(hm(8, 0)).Succeeded(hm(7, 1)).NotStarted().Obj()
	unstartedB := hourlyJob(hm(8, 0)).CreationTimestamp(hm(8, 0)).Succeeded(hm(8, 1)).NotStarted().Obj()
	strangers := hourlyJob(hm(8, 0)).Orphaned().Succeeded(hm(8, 1)).Obj()
	predecessors := hourlyJob(hm(7, 0)).Orphaned().OwnedBy(hourly().UID("old-cj-uid").Obj()).Succeeded(hm(7, 1)).Obj()

	runMatrix(t, map[string]scenario{
		"default limits, 5 succeeded and 3 failed: the 2 oldest of each go, succeeded first": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).LastSuccessfulTime(hm(9, 1)).LastFailureTime(hm(4, 1)), now: hm(10, 30),
			jobs: jobsOf(doneJob(hm(5, 0)), doneJob(hm(6, 0)), doneJob(hm(7, 0)), doneJob(hm(8, 0)), doneJob(hm(9, 0)),
				failedJob(hm(2, 0)), failedJob(hm(3, 0)), failedJob(hm(4, 0))),
			want: withTimes(pruned(name(hm(5, 0)), name(hm(6, 0)), name(hm(2, 0)), name(hm(3, 0))), hm(9, 1), hm(4, 1)),
		},
		"limits of 0: every finished Job goes, the active one stays": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).HistoryLimits(0, 0).Active(runningJob(topOfTheHour)).LastSuccessfulTime(hm(8, 1)).LastFailureTime(hm(9, 1)), now: hm(10, 30),
			jobs: jobsOf(doneJob(hm(8, 0)), failedJob(priorHour), runningJob(topOfTheHour)),
			want: func() outcome {
				o := withTimes(pruned(name(hm(8, 0)), name(priorHour)), hm(8, 1), hm(9, 1))
				o.Active = []string{name(topOfTheHour)}
				return o
			}(),
		},
		"limits of 10: nothing goes": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).HistoryLimits(10, 10).LastSuccessfulTime(hm(9, 1)).LastFailureTime(hm(4, 1)), now: hm(10, 30),
			jobs: jobsOf(doneJob(hm(5, 0)), doneJob(hm(6, 0)), doneJob(hm(7, 0)), doneJob(hm(8, 0)), doneJob(hm(9, 0)), failedJob(hm(3, 0)), failedJob(hm(4, 0))),
			want: withTimes(pruned(), hm(9, 1), hm(4, 1)),
		},
		"successful limit 0, the active Job just completed: lastSuccessfulTime is set, then it goes": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).HistoryLimits(0, 1).Active(doneJob(topOfTheHour)), jobs: jobsOf(doneJob(topOfTheHour)), now: hm(10, 30),
			want: outcome{Deleted: []string{name(topOfTheHour)}, LastSchedule: timePtr(topOfTheHour), LastSuccessful: timePtr(minLate),
				Events: []string{evSawCompleted, evDeleted}, StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"failed limit 0, the active Job just failed: lastFailureTime is set, then it goes": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).HistoryLimits(3, 0).Active(failedJob(topOfTheHour)), jobs: jobsOf(failedJob(topOfTheHour)), now: hm(10, 30),
			want: outcome{Deleted: []string{name(topOfTheHour)}, LastSchedule: timePtr(topOfTheHour), LastFailure: timePtr(minLate),
				Events: []string{evSawCompleted, evDeleted}, StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"a failed Job that never started is as old as its creation: it goes before one that started later": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).LastFailureTime(hm(8, 1)), jobs: jobsOf(neverStarted, startedLate), now: hm(10, 30),
			want: withTimes(pruned(name(hm(8, 0))), time.Time{}, hm(8, 1)),
		},
		"two Jobs started at the same time: the smaller name goes first, whatever their creation": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).HistoryLimits(1, 1).LastSuccessfulTime(hm(8, 1)), jobs: jobsOf(tieB, tieA), now: hm(10, 30),
			want: withTimes(pruned(name(hm(7, 0))), hm(8, 1), time.Time{}),
		},
		"two Jobs that never started, created at the same time: the smaller name goes first": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).HistoryLimits(1, 1).LastSuccessfulTime(hm(8, 1)), jobs: jobsOf(unstartedB, unstartedA), now: hm(10, 30),
			want: withTimes(pruned(name(hm(7, 0))), hm(8, 1), time.Time{}),
		},
		"limits of 0: finished Jobs of strangers and of an earlier CronJob of the same name stay": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).HistoryLimits(0, 0), jobs: jobsOf(strangers, predecessors), now: hm(10, 30),
			want: pruned(),
		},
		"lastSuccessfulTime never moves back to an older completion": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).LastSuccessfulTime(hm(9, 30)), jobs: jobsOf(doneJob(hm(8, 0)), doneJob(hm(9, 0))), now: hm(10, 30),
			want: withTimes(pruned(), hm(9, 30), time.Time{}),
		},
		"lastSuccessfulTime and lastFailureTime follow the newest finished Jobs": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).HistoryLimits(5, 5).LastSuccessfulTime(hm(6, 1)).LastFailureTime(hm(5, 1)), now: hm(10, 30),
			jobs: jobsOf(doneJob(hm(7, 0)), doneJob(hm(8, 0)), failedJob(priorHour), failedJob(hm(6, 0))),
			want: func() outcome {
				o := withTimes(pruned(), hm(8, 1), hm(9, 1))
				o.StatusWrites = 1
				return o
			}(),
		},
		"is time, but the create fails (Job quota): the history is pruned all the same": {
			cronJob: hourly().LastScheduleTime(priorHour).HistoryLimits(1, 1).LastSuccessfulTime(hm(9, 1)), now: isTime,
			jobs:  jobsOf(doneJob(hm(8, 0)), doneJob(priorHour)),
			funcs: createFails(errInternal),
			want: outcome{Deleted: []string{name(hm(8, 0))}, LastSchedule: timePtr(priorHour), LastSuccessful: timePtr(hm(9, 1)),
				Events: []string{evDeleted, evFailedCreate}, StatusWrites: 1, Ready: cronjobv1.ReasonFailedCreate, Err: true},
		},
		"is time, but deleting an old Job fails: FailedDelete, the run still starts, the error is returned": {
			cronJob: hourly().LastScheduleTime(priorHour).HistoryLimits(0, 0).LastSuccessfulTime(hm(8, 1)), now: isTime,
			jobs: jobsOf(doneJob(hm(8, 0))), funcs: jobFaults("delete", errInternal),
			want: outcome{Created: []createdJob{newRun(topOfTheHour)}, Active: []string{name(topOfTheHour)},
				LastSchedule: timePtr(topOfTheHour), LastSuccessful: timePtr(hm(8, 1)),
				Events: []string{evFailedDelete, evCreated}, StatusWrites: 1, Ready: scheduled, Err: true},
		},
		"deleting an old Job finds it already gone: fine": {
			cronJob: hourly().LastScheduleTime(topOfTheHour).HistoryLimits(0, 0).LastSuccessfulTime(hm(8, 1)), now: hm(10, 30),
			jobs: jobsOf(doneJob(hm(8, 0))), funcs: jobFaults("delete", errNotFound),
			want: withTimes(outcome{LastSchedule: timePtr(topOfTheHour), Ready: scheduled, Requeue: 30*time.Minute + pad}, hm(8, 1), time.Time{}),
		},
	})
}

func optTime(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return timePtr(t)
}
