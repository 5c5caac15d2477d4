package cronjob

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// TestMatrixHistoryLimits pins the history limits (history.go): the finished Jobs beyond
// successfulJobsHistoryLimit (default 3) and failedJobsHistoryLimit (default 1) are deleted, successful
// ones first, oldest first. Age is status.startTime, else creationTimestamp (batch/v1 treats a Job that
// never started as the newest and never prunes it); ties go by name. Active Jobs and Jobs of other owners
// are never deleted. Pruning writes no status by itself. Unless a case says otherwise the CronJob last
// ran at 10:00 and it is 10:30: nothing is due.
func TestMatrixHistoryLimits(t *testing.T) {
	const pad = schedule.RequeuePadding
	scheduled := cronjobv1.ReasonScheduled
	// pruned is the outcome of a reconcile at 10:30 that deletes these Jobs, in order, and nothing else.
	pruned := func(jobs ...string) outcome {
		o := outcome{Deleted: jobs, LastSchedule: TimePtr(TopOfTheHour), Ready: scheduled, Requeue: 30*time.Minute + pad}
		for range jobs {
			o.Events = append(o.Events, evDeleted)
		}
		return o
	}
	withTimes := func(o outcome, succeeded, failed time.Time) outcome {
		o.LastSuccessful, o.LastFailure = optTime(succeeded), optTime(failed)
		return o
	}
	neverStarted := HourlyJob(HM(8, 0)).Failed(HM(8, 1)).NotStarted().Obj()        // created at 08:00, failed at 08:01 before its Pod started
	startedLate := HourlyJob(HM(7, 0)).StartedAt(HM(8, 30)).Failed(HM(7, 1)).Obj() // created at 07:00, started at 08:30
	// Two Jobs started at the same time; the one with the smaller name was created later.
	tieA := HourlyJob(HM(7, 0)).CreationTimestamp(HM(8, 10)).StartedAt(HM(8, 30)).Succeeded(HM(7, 1)).Obj()
	tieB := HourlyJob(HM(8, 0)).CreationTimestamp(HM(7, 50)).StartedAt(HM(8, 30)).Succeeded(HM(8, 1)).Obj()
	unstartedA := HourlyJob(HM(7, 0)).CreationTimestamp(HM(8, 0)).Succeeded(HM(7, 1)).NotStarted().Obj()
	unstartedB := HourlyJob(HM(8, 0)).CreationTimestamp(HM(8, 0)).Succeeded(HM(8, 1)).NotStarted().Obj()
	strangers := HourlyJob(HM(8, 0)).Orphaned().Succeeded(HM(8, 1)).Obj()
	predecessors := HourlyJob(HM(7, 0)).Orphaned().OwnedBy(Hourly().UID("old-cj-uid").Obj()).Succeeded(HM(7, 1)).Obj()

	runMatrix(t, map[string]scenario{
		"default limits, 5 succeeded and 3 failed: the 2 oldest of each go, succeeded first": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).LastSuccessfulTime(HM(9, 1)).LastFailureTime(HM(4, 1)), now: HM(10, 30),
			jobs: jobsOf(DoneJob(HM(5, 0)), DoneJob(HM(6, 0)), DoneJob(HM(7, 0)), DoneJob(HM(8, 0)), DoneJob(HM(9, 0)),
				FailedJob(HM(2, 0)), FailedJob(HM(3, 0)), FailedJob(HM(4, 0))),
			want: withTimes(pruned(JobName(HM(5, 0)), JobName(HM(6, 0)), JobName(HM(2, 0)), JobName(HM(3, 0))), HM(9, 1), HM(4, 1)),
		},
		"limits of 0: every finished Job goes, the active one stays": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).HistoryLimits(0, 0).Active(RunningJob(TopOfTheHour)).LastSuccessfulTime(HM(8, 1)).LastFailureTime(HM(9, 1)), now: HM(10, 30),
			jobs: jobsOf(DoneJob(HM(8, 0)), FailedJob(PriorHour), RunningJob(TopOfTheHour)),
			want: func() outcome {
				o := withTimes(pruned(JobName(HM(8, 0)), JobName(PriorHour)), HM(8, 1), HM(9, 1))
				o.Active = []string{JobName(TopOfTheHour)}
				return o
			}(),
		},
		"limits of 10: nothing goes": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).HistoryLimits(10, 10).LastSuccessfulTime(HM(9, 1)).LastFailureTime(HM(4, 1)), now: HM(10, 30),
			jobs: jobsOf(DoneJob(HM(5, 0)), DoneJob(HM(6, 0)), DoneJob(HM(7, 0)), DoneJob(HM(8, 0)), DoneJob(HM(9, 0)), FailedJob(HM(3, 0)), FailedJob(HM(4, 0))),
			want: withTimes(pruned(), HM(9, 1), HM(4, 1)),
		},
		"successful limit 0, the active Job just completed: lastSuccessfulTime is set, then it goes": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).HistoryLimits(0, 1).Active(DoneJob(TopOfTheHour)), jobs: jobsOf(DoneJob(TopOfTheHour)), now: HM(10, 30),
			want: outcome{Deleted: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), LastSuccessful: TimePtr(MinLate),
				Events: []string{evSawCompleted, evDeleted}, StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"failed limit 0, the active Job just failed: lastFailureTime is set, then it goes": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).HistoryLimits(3, 0).Active(FailedJob(TopOfTheHour)), jobs: jobsOf(FailedJob(TopOfTheHour)), now: HM(10, 30),
			want: outcome{Deleted: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), LastFailure: TimePtr(MinLate),
				Events: []string{evSawCompleted, evDeleted}, StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"a failed Job that never started is as old as its creation: it goes before one that started later": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).LastFailureTime(HM(8, 1)), jobs: jobsOf(neverStarted, startedLate), now: HM(10, 30),
			want: withTimes(pruned(JobName(HM(8, 0))), time.Time{}, HM(8, 1)),
		},
		"two Jobs started at the same time: the smaller name goes first, whatever their creation": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).HistoryLimits(1, 1).LastSuccessfulTime(HM(8, 1)), jobs: jobsOf(tieB, tieA), now: HM(10, 30),
			want: withTimes(pruned(JobName(HM(7, 0))), HM(8, 1), time.Time{}),
		},
		"two Jobs that never started, created at the same time: the smaller name goes first": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).HistoryLimits(1, 1).LastSuccessfulTime(HM(8, 1)), jobs: jobsOf(unstartedB, unstartedA), now: HM(10, 30),
			want: withTimes(pruned(JobName(HM(7, 0))), HM(8, 1), time.Time{}),
		},
		"limits of 0: finished Jobs of strangers and of an earlier CronJob of the same name stay": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).HistoryLimits(0, 0), jobs: jobsOf(strangers, predecessors), now: HM(10, 30),
			want: pruned(),
		},
		"lastSuccessfulTime never moves back to an older completion": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).LastSuccessfulTime(HM(9, 30)), jobs: jobsOf(DoneJob(HM(8, 0)), DoneJob(HM(9, 0))), now: HM(10, 30),
			want: withTimes(pruned(), HM(9, 30), time.Time{}),
		},
		"lastSuccessfulTime and lastFailureTime follow the newest finished Jobs": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).HistoryLimits(5, 5).LastSuccessfulTime(HM(6, 1)).LastFailureTime(HM(5, 1)), now: HM(10, 30),
			jobs: jobsOf(DoneJob(HM(7, 0)), DoneJob(HM(8, 0)), FailedJob(PriorHour), FailedJob(HM(6, 0))),
			want: func() outcome {
				o := withTimes(pruned(), HM(8, 1), HM(9, 1))
				o.StatusWrites = 1
				return o
			}(),
		},
		"is time, but the create fails (Job quota): the history is pruned all the same": {
			cronJob: Hourly().LastScheduleTime(PriorHour).HistoryLimits(1, 1).LastSuccessfulTime(HM(9, 1)), now: IsTime,
			jobs:  jobsOf(DoneJob(HM(8, 0)), DoneJob(PriorHour)),
			funcs: createFails(errInternal),
			want: outcome{Deleted: []string{JobName(HM(8, 0))}, LastSchedule: TimePtr(PriorHour), LastSuccessful: TimePtr(HM(9, 1)),
				Events: []string{evDeleted, evFailedCreate}, StatusWrites: 1, Ready: cronjobv1.ReasonFailedCreate, Err: true},
		},
		"is time, but deleting an old Job fails: FailedDelete, the run still starts, the error is returned": {
			cronJob: Hourly().LastScheduleTime(PriorHour).HistoryLimits(0, 0).LastSuccessfulTime(HM(8, 1)), now: IsTime,
			jobs: jobsOf(DoneJob(HM(8, 0))), funcs: jobFaults("delete", errInternal),
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)},
				LastSchedule: TimePtr(TopOfTheHour), LastSuccessful: TimePtr(HM(8, 1)),
				Events: []string{evFailedDelete, evCreated}, StatusWrites: 1, Ready: scheduled, Err: true},
		},
		"deleting an old Job finds it already gone: fine": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).HistoryLimits(0, 0).LastSuccessfulTime(HM(8, 1)), now: HM(10, 30),
			jobs: jobsOf(DoneJob(HM(8, 0))), funcs: jobFaults("delete", errNotFound),
			want: withTimes(outcome{LastSchedule: TimePtr(TopOfTheHour), Ready: scheduled, Requeue: 30*time.Minute + pad}, HM(8, 1), time.Time{}),
		},
	})
}

func optTime(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return TimePtr(t)
}
