package cronjob

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// TestMatrixSuspendAndDelete pins a suspended CronJob (nothing created, whatever is due; no requeue; Jobs
// still tracked and history still pruned) and a CronJob being deleted (the same, and its schedule is not
// even looked at, so a bad one gives no warning).
func TestMatrixSuspendAndDelete(t *testing.T) {
	const pad = schedule.RequeuePadding
	suspended, scheduled := cronjobv1.ReasonSuspended, cronjobv1.ReasonScheduled

	runMatrix(t, map[string]scenario{
		"never ran, is time, suspended": {
			cronJob: Hourly().Suspend(), now: IsTime,
			want: outcome{Ready: suspended},
		},
		"never ran, not time yet, suspended: no requeue": {
			cronJob: Hourly().Suspend(), now: BeforeHour,
			want: outcome{Ready: suspended},
		},
		"prev ran but done, is time, suspended: the completion is tracked": {
			cronJob: Hourly().Suspend().LastScheduleTime(PriorHour).Active(DoneJob(PriorHour)), jobs: jobsOf(DoneJob(PriorHour)), now: IsTime,
			want: outcome{LastSchedule: TimePtr(PriorHour), LastSuccessful: TimePtr(HM(9, 1)), Events: []string{evSawCompleted},
				StatusWrites: 1, Ready: suspended},
		},
		"still active, is time, suspended, Replace: the active Job is left alone": {
			cronJob: Hourly().Suspend().Replace().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)), jobs: jobsOf(RunningJob(PriorHour)), now: IsTime,
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Ready: suspended},
		},
		"still active, is time, suspended, Forbid: no JobAlreadyActive": {
			cronJob: Hourly().Suspend().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)),
			jobs:    jobsOf(RunningJob(PriorHour)), now: IsTime,
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Ready: suspended},
		},
		"a week late, suspended: no TooManyMissedTimes": {
			cronJob: Hourly().Suspend().LastScheduleTime(PriorHour), now: WeekLate,
			want: outcome{LastSchedule: TimePtr(PriorHour), Ready: suspended},
		},
		"a minute late, past a 10 s deadline, suspended: no MissSchedule": {
			cronJob: Hourly().Suspend().StartingDeadlineSeconds(shortDeadline).LastScheduleTime(PriorHour), now: MinLate,
			want: outcome{LastSchedule: TimePtr(PriorHour), Ready: suspended},
		},
		"suspended: history still pruned": {
			cronJob: Hourly().Suspend().HistoryLimits(0, 0).LastScheduleTime(PriorHour), jobs: jobsOf(DoneJob(HM(8, 0)), FailedJob(PriorHour)), now: IsTime,
			want: outcome{Deleted: []string{JobName(HM(8, 0)), JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour),
				LastSuccessful: TimePtr(HM(8, 1)), LastFailure: TimePtr(HM(9, 1)), Events: []string{evDeleted, evDeleted},
				StatusWrites: 1, Ready: suspended},
		},
		"just suspended, is time: nothing created, status records the suspension": {
			cronJob: Hourly().Suspend().LastScheduleTime(PriorHour).ObservedSchedule(observed("0 * * * *", false, PriorHour)).Condition(readyTrue(scheduled, "")), now: IsTime,
			want: outcome{LastSchedule: TimePtr(PriorHour), StatusWrites: 1, Ready: suspended},
		},
		"just resumed after being suspended over the hour: the missed run does not start": {
			cronJob: Hourly().LastScheduleTime(PriorHour).ObservedSchedule(observed("0 * * * *", true, PriorHour)).Condition(readyTrue(suspended, suspendedMessage)),
			now:     HM(10, 30),
			want:    outcome{LastSchedule: TimePtr(PriorHour), StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"suspended with an unparseable schedule: the schedule error is still reported": {
			cronJob: Hourly().Suspend().Schedule("61 * * * *"), now: IsTime,
			want: outcome{Events: []string{evUnparseable}, StatusWrites: 1, Ready: cronjobv1.ReasonUnparseableSchedule},
		},

		"never ran, is time, being deleted: nothing created, no requeue": {
			cronJob: Hourly().Finalizers("example.com/hold").DeletionTimestamp(TopOfTheHour), now: IsTime,
			want: outcome{Ready: scheduled},
		},
		"prev ran but done, is time, being deleted: the completion is tracked": {
			cronJob: Hourly().Finalizers("example.com/hold").DeletionTimestamp(TopOfTheHour).LastScheduleTime(PriorHour).Active(DoneJob(PriorHour)), jobs: jobsOf(DoneJob(PriorHour)), now: IsTime,
			want: outcome{LastSchedule: TimePtr(PriorHour), LastSuccessful: TimePtr(HM(9, 1)), Events: []string{evSawCompleted},
				StatusWrites: 1, Ready: scheduled},
		},
		"still active, is time, being deleted, Replace: the active Job is left to the garbage collector": {
			cronJob: Hourly().Finalizers("example.com/hold").DeletionTimestamp(TopOfTheHour).Replace().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)), jobs: jobsOf(RunningJob(PriorHour)), now: IsTime,
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Ready: scheduled},
		},
		"a week late, being deleted: no TooManyMissedTimes": {
			cronJob: Hourly().Finalizers("example.com/hold").DeletionTimestamp(TopOfTheHour).LastScheduleTime(PriorHour), now: WeekLate,
			want: outcome{LastSchedule: TimePtr(PriorHour), Ready: scheduled},
		},
		"being deleted: history still pruned": {
			cronJob: Hourly().Finalizers("example.com/hold").DeletionTimestamp(TopOfTheHour).HistoryLimits(0, 0).LastScheduleTime(PriorHour), jobs: jobsOf(DoneJob(HM(8, 0))), now: IsTime,
			want: outcome{Deleted: []string{JobName(HM(8, 0))}, LastSchedule: TimePtr(PriorHour), LastSuccessful: TimePtr(HM(8, 1)),
				Events: []string{evDeleted}, StatusWrites: 1, Ready: scheduled},
		},
		"being deleted with an unparseable schedule: no warning": {
			cronJob: Hourly().Finalizers("example.com/hold").DeletionTimestamp(TopOfTheHour).Schedule("61 * * * *"), now: IsTime,
			want: outcome{Ready: scheduled},
		},
		"being deleted and suspended, is time: nothing created": {
			cronJob: Hourly().Finalizers("example.com/hold").DeletionTimestamp(TopOfTheHour).Suspend(), now: IsTime,
			want: outcome{Ready: suspended},
		},
	})
}

// TestMatrixClockBackwards pins a clock that went backwards (NTP step, restored VM): now before
// lastScheduleTime, before a Job's creation, or before the CronJob's creation. No Job is created, nothing
// is reported missed, and the requeue is the first scheduled time after lastScheduleTime: never negative.
func TestMatrixClockBackwards(t *testing.T) {
	const pad = schedule.RequeuePadding
	scheduled := cronjobv1.ReasonScheduled
	jobFromTheFuture := HourlyJob(TopOfTheHour).CreationTimestamp(TopOfTheHour.Add(30 * time.Second)).
		StartedAt(TopOfTheHour.Add(30 * time.Second)).Obj()
	yearBack := TopOfTheHour.AddDate(-1, 0, 0)

	runMatrix(t, map[string]scenario{
		"prev ran but done, clock before lastScheduleTime, Forbid (batch/v1: time drifted back)": {
			cronJob: Hourly().Forbid().LastScheduleTime(TopOfTheHour).Active(DoneJob(TopOfTheHour)),
			jobs:    jobsOf(DoneJob(TopOfTheHour)), now: BeforeHour,
			want: outcome{LastSchedule: TimePtr(TopOfTheHour), LastSuccessful: TimePtr(MinLate), Events: []string{evSawCompleted},
				StatusWrites: 1, Ready: scheduled, Requeue: 61*time.Minute + pad},
		},
		"still active, clock before lastScheduleTime, Allow": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).Active(RunningJob(TopOfTheHour)), jobs: jobsOf(RunningJob(TopOfTheHour)), now: BeforeHour,
			want: outcome{Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), Ready: scheduled,
				Requeue: 61*time.Minute + pad},
		},
		"still active, clock before the Job's creation, Replace: the Job is not replaced": {
			cronJob: Hourly().Replace().LastScheduleTime(TopOfTheHour).Active(jobFromTheFuture),
			jobs:    jobsOf(jobFromTheFuture), now: TopOfTheHour.Add(10 * time.Second),
			want: outcome{Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), Ready: scheduled,
				Requeue: time.Hour - 10*time.Second + pad},
		},
		"never ran, clock before the CronJob's creation": {
			cronJob: Hourly().CreationTimestamp(HM(10, 30)), now: IsTime,
			want: outcome{Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"ran, clock a year back: the requeue is a year and an hour, not negative": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour), now: yearBack,
			want: outcome{LastSchedule: TimePtr(TopOfTheHour), Ready: scheduled, Requeue: HM(11, 0).Sub(yearBack) + pad},
		},
		"ran, clock before lastScheduleTime, 10 s deadline: no MissSchedule": {
			cronJob: Hourly().StartingDeadlineSeconds(shortDeadline).LastScheduleTime(TopOfTheHour), now: BeforeHour,
			want: outcome{LastSchedule: TimePtr(TopOfTheHour), Ready: scheduled, Requeue: 61*time.Minute + pad},
		},
		"@every, clock an hour before lastScheduleTime": {
			cronJob: Hourly().Schedule("@every 1h").LastScheduleTime(TopOfTheHour), now: PriorHour,
			want: outcome{LastSchedule: TimePtr(TopOfTheHour), Ready: scheduled, Requeue: 2*time.Hour + pad},
		},
		"irregular schedule, clock back a day before Friday's last run: requeued for Monday": {
			cronJob: Hourly().Schedule("30 10,11,12 * * 1-5").LastScheduleTime(MustTime("2026-03-06T12:30:00Z")), now: MustTime("2026-03-05T10:00:00Z"),
			want: outcome{LastSchedule: TimePtr(MustTime("2026-03-06T12:30:00Z")), Ready: scheduled,
				Requeue: 4*24*time.Hour + 30*time.Minute + pad},
		},
		"daily in Europe/Berlin, clock before lastScheduleTime": {
			cronJob: Hourly().Schedule("0 9 * * *").TimeZone("Europe/Berlin").LastScheduleTime(HM(8, 0)), now: HM(7, 0),
			want: outcome{LastSchedule: TimePtr(HM(8, 0)), Ready: scheduled, Requeue: 25*time.Hour + pad},
		},
	})
}

// TestMatrixScheduleChanges pins "no surprise runs": a change of schedule, time zone or suspend is recorded
// in status.observedSchedule with the time it was seen, and no run due before that time starts.
func TestMatrixScheduleChanges(t *testing.T) {
	const pad = schedule.RequeuePadding
	scheduled := cronjobv1.ReasonScheduled
	unparseable := metav1.Condition{Type: cronjobv1.ConditionReady, Status: metav1.ConditionFalse,
		Reason: cronjobv1.ReasonUnparseableSchedule, LastTransitionTime: metav1.NewTime(PriorHour)}
	runMatrix(t, map[string]scenario{
		"schedule edited: the new schedule's run due before the edit was seen does not start": {
			cronJob: Hourly().LastScheduleTime(PriorHour).ObservedSchedule(observed("30 * * * *", false, PriorHour)).Condition(readyTrue(scheduled, "")), now: IsTime,
			want: outcome{LastSchedule: TimePtr(PriorHour), StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"time zone edited: the run due before the edit was seen does not start": {
			// Asia/Kolkata is +05:30: its hour mark is at :30 UTC, so 10:30 UTC passed before the edit was seen.
			cronJob: Hourly().LastScheduleTime(PriorHour).ObservedSchedule(observed("0 * * * *", false, PriorHour)).TimeZone("Asia/Kolkata").Condition(readyTrue(scheduled, "")),
			now:     HM(10, 31),
			want:    outcome{LastSchedule: TimePtr(PriorHour), StatusWrites: 1, Ready: scheduled, Requeue: 59*time.Minute + pad},
		},
		"resumed at 09:30: the first run after the resume starts": {
			cronJob: Hourly().LastScheduleTime(PriorHour).ObservedSchedule(observed("0 * * * *", false, HM(9, 30))).Condition(readyTrue(scheduled, "")), now: IsTime,
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)},
				LastSchedule: TimePtr(TopOfTheHour), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 5*time.Second + pad},
		},
		"Ready was False for a bad schedule, the schedule is fixed: Ready recovers": {
			cronJob: Hourly().LastScheduleTime(PriorHour).Condition(unparseable), now: BeforeHour,
			want: outcome{LastSchedule: TimePtr(PriorHour), StatusWrites: 1, Ready: scheduled, Requeue: time.Minute + pad},
		},
	})
}
