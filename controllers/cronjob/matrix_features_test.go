package cronjob

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// Events of the features batch/v1 does not have, as "Type Reason".
var (
	evQueued        = corev1.EventTypeNormal + " " + cronjobv1.ReasonQueued
	evQueueFull     = corev1.EventTypeWarning + " " + cronjobv1.ReasonQueueFull
	evQueuedExpired = corev1.EventTypeWarning + " " + cronjobv1.ReasonQueuedRunExpired
	evDropped       = corev1.EventTypeWarning + " " + cronjobv1.ReasonMissedRunsDropped
)

// TestMatrixCatchUp pins missedRunPolicy All for the hourly CronJob: after a downtime the missed runs start
// oldest first, one Job per reconcile with a 10 ms requeue, only the last maxCatchUpRuns of them (the rest
// reported once), each through the starting deadline and the concurrency policy.
func TestMatrixCatchUp(t *testing.T) {
	const pad = schedule.RequeuePadding
	scheduled := cronjobv1.ReasonScheduled
	fiveHoursDown := Hourly().CatchUp(3).LastScheduleTime(HM(5, 0))
	runMatrix(t, map[string]scenario{
		"five runs missed, cap 3: the oldest of the last three starts, two are dropped once": {
			cronJob: fiveHoursDown, now: IsTime,
			want: outcome{Created: []createdJob{newRun(HM(8, 0))}, Active: []string{JobName(HM(8, 0))}, LastSchedule: TimePtr(HM(8, 0)),
				Events: []string{evDropped, evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: pad},
		},
		"five runs missed, cap 3, second reconcile at the same time: no second Job for 08:00, no second drop": {
			cronJob: fiveHoursDown, now: IsTime, twice: true,
			want: outcome{Created: []createdJob{newRun(HM(9, 0))}, Active: []string{JobName(HM(8, 0)), JobName(HM(9, 0))}, LastSchedule: TimePtr(HM(9, 0)),
				Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: pad},
		},
		"the last missed run left: it starts, and the requeue is the next scheduled time again": {
			cronJob: Hourly().CatchUp(3).LastScheduleTime(HM(9, 0)), now: IsTime,
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour),
				Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
			wantNext: TimePtr(TopOfTheHour.Add(time.Hour)),
		},
		"default cap (10), two runs missed: the older starts first": {
			cronJob: Hourly().CatchUp(0).LastScheduleTime(HM(8, 0)), now: IsTime,
			want: outcome{Created: []createdJob{newRun(HM(9, 0))}, Active: []string{JobName(HM(9, 0))}, LastSchedule: TimePtr(HM(9, 0)),
				Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: pad},
		},
		"a 2 h deadline bounds the catch-up: 08:00 is past it and never starts": {
			cronJob: Hourly().CatchUp(10).StartingDeadlineSeconds(mediumDeadline).LastScheduleTime(HM(5, 0)), now: IsTime,
			want: outcome{Created: []createdJob{newRun(HM(9, 0))}, Active: []string{JobName(HM(9, 0))}, LastSchedule: TimePtr(HM(9, 0)),
				Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: pad},
		},
		"Forbid with a Job active: the oldest missed run is skipped and waits for the Job, no 10 ms requeue": {
			cronJob: Hourly().CatchUp(3).Forbid().LastScheduleTime(HM(8, 0)).Active(RunningJob(HM(8, 0))), jobs: jobsOf(RunningJob(HM(8, 0))), now: IsTime,
			want: outcome{Active: []string{JobName(HM(8, 0))}, LastSchedule: TimePtr(HM(8, 0)), Events: []string{evAlreadyActive},
				StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"Europe/Berlin, 02:30 daily, down over the spring-forward night: the run of the missing 02:30 starts first, at the jump": {
			cronJob: Hourly().Schedule("30 2 * * *").TimeZone("Europe/Berlin").CatchUp(10).CreationTimestamp(MustTime("2026-03-01T00:00:00Z")).
				LastScheduleTime(MustTime("2026-03-28T01:30:00Z")),
			now: MustTime("2026-03-31T01:00:00Z"),
			// 29 March has no 02:30: its run is at 03:00 CEST (01:00Z); then 30 and 31 March at 02:30 CEST (00:30Z).
			want: outcome{Created: []createdJob{newRunIn(MustTime("2026-03-29T01:00:00Z"), berlin(t))}, Active: []string{JobName(MustTime("2026-03-29T01:00:00Z"))},
				LastSchedule: TimePtr(MustTime("2026-03-29T01:00:00Z")), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: pad},
		},
		"the Job of the oldest missed run exists (status write lost): adopted, not created twice": {
			cronJob: fiveHoursDown, jobs: jobsOf(RunningJob(HM(8, 0))), now: IsTime,
			want: outcome{Active: []string{JobName(HM(8, 0))}, LastSchedule: TimePtr(HM(8, 0)),
				Events: []string{evDropped}, StatusWrites: 1, Ready: scheduled, Requeue: pad},
		},
	})
}

// TestMatrixEnqueue pins concurrencyPolicy Enqueue and maxActiveJobs for the hourly CronJob whose 09:00 run
// started: a due run waits in status.queued while the limit is reached, starts oldest first when a Job
// finishes, expires past its deadline, and never starts twice.
func TestMatrixEnqueue(t *testing.T) {
	const pad = schedule.RequeuePadding
	scheduled := cronjobv1.ReasonScheduled
	busy := func() *builders.CronJobWrapper {
		return Hourly().Enqueue().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour))
	}
	runMatrix(t, map[string]scenario{
		"the 09:00 Job is running: the 10:00 run is queued": {
			cronJob: busy(), jobs: jobsOf(RunningJob(PriorHour)), now: IsTime,
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Queued: []time.Time{TopOfTheHour},
				Events: []string{evQueued}, StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
			wantNext: TimePtr(TopOfTheHour.Add(time.Hour)),
		},
		"queued, second reconcile: queued once": {
			cronJob: busy(), jobs: jobsOf(RunningJob(PriorHour)), now: IsTime, twice: true,
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Queued: []time.Time{TopOfTheHour},
				Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"the 09:00 Job finished at 10:30: the queued 10:00 run starts": {
			cronJob: busy().Queued(TopOfTheHour), jobs: jobsOf(DoneJob(PriorHour)), now: HM(10, 30),
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour),
				LastSuccessful: TimePtr(PriorHour.Add(time.Minute)), Events: []string{evSawCompleted, evCreated}, StatusWrites: 1,
				Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"two queued, the Job finished, 11:00 due: the oldest starts, 11:00 joins the end of the queue": {
			cronJob: busy().Queued(TopOfTheHour, HM(10, 30)).Schedule("*/30 * * * *"), jobs: jobsOf(DoneJob(PriorHour)), now: HM(11, 0),
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour),
				LastSuccessful: TimePtr(PriorHour.Add(time.Minute)), Queued: []time.Time{HM(10, 30), HM(11, 0)},
				Events: []string{evSawCompleted, evCreated, evQueued}, StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"queued 10:00 with a 10 min deadline, the Job still running at 10:11: the queued run expires": {
			cronJob: busy().StartingDeadlineSeconds(600).Queued(TopOfTheHour), jobs: jobsOf(RunningJob(PriorHour)), now: HM(10, 11),
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Events: []string{evQueuedExpired},
				StatusWrites: 1, Ready: scheduled, Requeue: 49*time.Minute + pad},
		},
		"the 10:00 run queued with a 10 min deadline: the controller wakes when it expires, at 10:10": {
			cronJob: busy().StartingDeadlineSeconds(600), jobs: jobsOf(RunningJob(PriorHour)), now: IsTime,
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Queued: []time.Time{TopOfTheHour},
				Events: []string{evQueued}, StatusWrites: 1, Ready: scheduled, Requeue: 10*time.Minute - 5*time.Second + pad},
		},
		"queued 10:00 with a 10 min deadline, the Job still running at 10:05: woken at 10:10, not at 11:00": {
			cronJob: busy().StartingDeadlineSeconds(600).Queued(TopOfTheHour), jobs: jobsOf(RunningJob(PriorHour)), now: HM(10, 5),
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Queued: []time.Time{TopOfTheHour},
				StatusWrites: 1, Ready: scheduled, Requeue: 5*time.Minute + pad},
		},
		"Europe/Berlin, 02:30 daily, the 28 March Job still running at the spring-forward jump: the missing 02:30 is queued for the jump": {
			cronJob: Hourly().Schedule("30 2 * * *").TimeZone("Europe/Berlin").Enqueue().LastScheduleTime(MustTime("2026-03-28T01:30:00Z")).
				Active(RunningJob(MustTime("2026-03-28T01:30:00Z"))),
			jobs: jobsOf(RunningJob(MustTime("2026-03-28T01:30:00Z"))), now: MustTime("2026-03-29T01:00:05Z"),
			want: outcome{Active: []string{JobName(MustTime("2026-03-28T01:30:00Z"))}, LastSchedule: TimePtr(MustTime("2026-03-28T01:30:00Z")),
				Queued: []time.Time{MustTime("2026-03-29T01:00:00Z")}, Events: []string{evQueued}, StatusWrites: 1, Ready: scheduled,
				Requeue: 23*time.Hour + 29*time.Minute + 55*time.Second + pad},
			wantNext: TimePtr(MustTime("2026-03-30T00:30:00Z")),
		},
		"queued 10:00 with a 10 min deadline, the Job finished, exactly 10:10: at its deadline, not past it, it starts": {
			cronJob: busy().StartingDeadlineSeconds(600).Queued(TopOfTheHour), jobs: jobsOf(DoneJob(PriorHour)), now: HM(10, 10),
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour),
				LastSuccessful: TimePtr(PriorHour.Add(time.Minute)), Events: []string{evSawCompleted, evCreated}, StatusWrites: 1,
				Ready: scheduled, Requeue: 50*time.Minute + pad},
		},
		"the 10:00 run queued with a 2 h deadline: woken for the 11:00 run, before the queued one expires": {
			cronJob: busy().StartingDeadlineSeconds(7200), jobs: jobsOf(RunningJob(PriorHour)), now: IsTime,
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Queued: []time.Time{TopOfTheHour},
				Events: []string{evQueued}, StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"queue full (maxQueuedRuns 1): the 11:00 run is not queued": {
			cronJob: busy().MaxQueuedRuns(1).Queued(TopOfTheHour), jobs: jobsOf(RunningJob(PriorHour)), now: HM(11, 0).Add(5 * time.Second),
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Queued: []time.Time{TopOfTheHour},
				Events: []string{evQueueFull}, StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"maxActiveJobs 2, one Job running: the 10:00 run starts beside it": {
			cronJob: busy().MaxActiveJobs(2), jobs: jobsOf(RunningJob(PriorHour)), now: IsTime,
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(PriorHour), JobName(TopOfTheHour)},
				LastSchedule: TimePtr(TopOfTheHour), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"the queued run's Job exists (status write lost after its create): adopted, not created twice": {
			cronJob: Hourly().Enqueue().LastScheduleTime(PriorHour).Queued(TopOfTheHour), jobs: jobsOf(DoneJob(PriorHour), RunningJob(TopOfTheHour)), now: HM(10, 30),
			want: outcome{Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), LastSuccessful: TimePtr(PriorHour.Add(time.Minute)),
				StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"the policy changed from Enqueue to Forbid: the queued run is dropped": {
			cronJob: busy().Forbid().Queued(TopOfTheHour), jobs: jobsOf(RunningJob(PriorHour)), now: HM(10, 30),
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Events: []string{evQueuedExpired},
				StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"suspended with a run queued: the queued run is dropped": {
			cronJob: busy().Suspend().Queued(TopOfTheHour), jobs: jobsOf(RunningJob(PriorHour)), now: HM(10, 30),
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Events: []string{evQueuedExpired},
				StatusWrites: 1, Ready: cronjobv1.ReasonSuspended},
		},
		"resumed at 10:20 with the 10:00 run still queued: dropped, no surprise run": {
			cronJob: busy().Queued(TopOfTheHour).ObservedSchedule(observed("0 * * * *", false, HM(10, 20))), jobs: jobsOf(DoneJob(PriorHour)), now: HM(10, 30),
			want: outcome{LastSchedule: TimePtr(PriorHour), LastSuccessful: TimePtr(PriorHour.Add(time.Minute)),
				Events: []string{evSawCompleted, evQueuedExpired}, StatusWrites: 1, Ready: scheduled, Requeue: 30*time.Minute + pad},
		},
		"Allow with maxActiveJobs 1 and a Job running: skipped as under Forbid": {
			cronJob: Hourly().MaxActiveJobs(1).LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)), jobs: jobsOf(RunningJob(PriorHour)), now: IsTime,
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Events: []string{evAlreadyActive},
				StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
	})
}

// TestMatrixNextScheduleTime pins status.nextScheduleTime where no run starts: unset while suspended and
// when the schedule cannot be used.
func TestMatrixNextScheduleTime(t *testing.T) {
	before := Hourly().LastScheduleTime(PriorHour).NextScheduleTime(TopOfTheHour)
	runMatrix(t, map[string]scenario{
		"suspended: unset": {
			cronJob: Hourly().LastScheduleTime(PriorHour).NextScheduleTime(TopOfTheHour).Suspend(), now: BeforeHour,
			want:          outcome{LastSchedule: TimePtr(PriorHour), StatusWrites: 1, Ready: cronjobv1.ReasonSuspended},
			wantNextUnset: true,
		},
		"the schedule edited to one that does not parse: unset": {
			cronJob: before.Schedule("61 * * * *"), now: BeforeHour,
			want:          outcome{LastSchedule: TimePtr(PriorHour), Events: []string{evUnparseable}, StatusWrites: 1, Ready: cronjobv1.ReasonUnparseableSchedule},
			wantNextUnset: true,
		},
	})
}

// TestMatrixJitter pins spec.jitterSeconds for the hourly CronJob: the 10:00 run starts at 10:00 plus its
// delay, not before; its Job keeps the 10:00 name and annotation; schedule.Next and the requeue point
// at the delayed start.
func TestMatrixJitter(t *testing.T) {
	const pad = schedule.RequeuePadding
	scheduled := cronjobv1.ReasonScheduled
	delay := func(slot time.Time) time.Duration {
		return schedule.JitterDelay("cj-uid", 600, slot, slot.Add(time.Hour))
	}
	d10, d11 := delay(TopOfTheHour), delay(TopOfTheHour.Add(time.Hour))
	if d10 < time.Second || d10 > 599*time.Second || d10 == d11 {
		t.Fatalf("delays %v and %v: the cases below need one of at least a second, under 600 s, and another for 11:00", d10, d11)
	}
	// 29 March 2026 in Europe/Berlin has no 02:30: the run is at the jump, 03:00 CEST (01:00Z); the next,
	// on 30 March, at 02:30 CEST (00:30Z).
	berlinDay28, jump, day30 := MustTime("2026-03-28T01:30:00Z"), MustTime("2026-03-29T01:00:00Z"), MustTime("2026-03-30T00:30:00Z")
	jumpDelay := schedule.JitterDelay("cj-uid", 600, jump, day30)
	day30Delay := schedule.JitterDelay("cj-uid", 600, day30, MustTime("2026-03-31T00:30:00Z"))
	if jumpDelay < time.Millisecond {
		t.Fatalf("delay %v at the jump: the cases below need one of at least a millisecond", jumpDelay)
	}
	jittered := func() *builders.CronJobWrapper {
		return Hourly().JitterSeconds(600).LastScheduleTime(PriorHour).NextScheduleTime(TopOfTheHour.Add(d10))
	}
	runMatrix(t, map[string]scenario{
		"at 10:00 plus the delay less a millisecond: nothing starts, nothing written": {
			cronJob: jittered(), now: TopOfTheHour.Add(d10 - time.Millisecond),
			want:     outcome{LastSchedule: TimePtr(PriorHour), Ready: scheduled, Requeue: time.Millisecond + pad},
			wantNext: TimePtr(TopOfTheHour.Add(d10)),
		},
		"at 10:00 plus the delay: the 10:00 run starts, named and annotated for 10:00": {
			cronJob: jittered(), now: TopOfTheHour.Add(d10),
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour),
				Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - d10 + d11 + pad},
			wantNext: TimePtr(TopOfTheHour.Add(time.Hour + d11)),
		},
		"Europe/Berlin, 02:30 daily with jitter, the spring-forward night: the missing 02:30 runs at the jump plus its delay, named for the jump": {
			cronJob: Hourly().Schedule("30 2 * * *").TimeZone("Europe/Berlin").JitterSeconds(600).LastScheduleTime(berlinDay28),
			now:     jump.Add(jumpDelay),
			want: outcome{Created: []createdJob{newRunIn(jump, berlin(t))}, Active: []string{JobName(jump)}, LastSchedule: TimePtr(jump),
				Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: day30.Add(day30Delay).Sub(jump.Add(jumpDelay)) + pad},
			wantNext: TimePtr(day30.Add(day30Delay)),
		},
		"the same night a millisecond before the jump plus its delay: nothing starts yet": {
			cronJob:  Hourly().Schedule("30 2 * * *").TimeZone("Europe/Berlin").JitterSeconds(600).LastScheduleTime(berlinDay28),
			now:      jump.Add(jumpDelay - time.Millisecond),
			want:     outcome{LastSchedule: TimePtr(berlinDay28), StatusWrites: 1, Ready: scheduled, Requeue: time.Millisecond + pad},
			wantNext: TimePtr(jump.Add(jumpDelay)),
		},
		"a deadline shorter than the delay counts from 10:00: missed": {
			cronJob: jittered().StartingDeadlineSeconds(int64(d10/time.Second) - 1), now: TopOfTheHour.Add(d10),
			want: outcome{LastSchedule: TimePtr(PriorHour), Events: []string{evMissed}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - d10 + d11 + pad},
		},
	})
}

// berlin is the Europe/Berlin time zone.
func berlin(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
