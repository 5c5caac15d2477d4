package cronjob

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// TestDecide is the decision of one reconcile of "hourly" (0 * * * *, created at 09:00), tabled: the slot
// due × the concurrency policy × the active Jobs × the queue × the deadline. The matrix tests (matrix_*)
// check what the reconcile does with each decision; this table is where to read why a run starts or not.
func TestDecide(t *testing.T) {
	type want struct {
		Due       time.Time
		Verdict   verdict
		Skipped   string
		Head      time.Time
		Drops     []time.Time
		Kept      int
		CatchUp   bool
		Dropped   int
		TooMany   bool
		NextStart time.Time
	}
	cases := map[string]struct {
		// spec and status
		cronJob *builders.CronJobWrapper
		// environment
		jobs []*batchv1.Job // the CronJob's Jobs in the cache
		now  time.Time
		// expectations
		want            want
		wantScheduleErr string
		wantSuspended   bool
		wantNeverFires  bool
	}{
		"before the hour: nothing due, next at 10:00": {
			cronJob: Hourly().LastScheduleTime(PriorHour), now: BeforeHour,
			want: want{NextStart: TopOfTheHour},
		},
		"10:00 due, Allow, none active: start": {
			cronJob: Hourly().LastScheduleTime(PriorHour), now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictStart, NextStart: HM(11, 0)},
		},
		"10:00 due, Allow, 09:00 active: start beside it": {
			cronJob: Hourly().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)), jobs: []*batchv1.Job{RunningJob(PriorHour)}, now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictStart, NextStart: HM(11, 0)},
		},
		"10:00 due, Allow with maxActiveJobs 1, 09:00 active: skip (max_active)": {
			cronJob: Hourly().MaxActiveJobs(1).LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)), jobs: []*batchv1.Job{RunningJob(PriorHour)}, now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictSkip, Skipped: metrics.MissedMaxActive, NextStart: HM(11, 0)},
		},
		"10:00 due, Forbid, 09:00 active: skip (forbid)": {
			cronJob: Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)), jobs: []*batchv1.Job{RunningJob(PriorHour)}, now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictSkip, Skipped: metrics.MissedForbid, NextStart: HM(11, 0)},
		},
		"10:00 due, Forbid, 09:00 done: start": {
			cronJob: Hourly().Forbid().LastScheduleTime(PriorHour), jobs: []*batchv1.Job{DoneJob(PriorHour)}, now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictStart, NextStart: HM(11, 0)},
		},
		"10:00 due, Replace, 09:00 active: replace": {
			cronJob: Hourly().ConcurrencyPolicy(cronjobv1.ReplaceConcurrent).LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)), jobs: []*batchv1.Job{RunningJob(PriorHour)}, now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictReplace, NextStart: HM(11, 0)},
		},
		"10:00 due, Enqueue, 09:00 active: enqueue": {
			cronJob: Hourly().Enqueue().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)), jobs: []*batchv1.Job{RunningJob(PriorHour)}, now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictEnqueue, NextStart: HM(11, 0)},
		},
		"10:00 due, Enqueue, none active: start": {
			cronJob: Hourly().Enqueue().LastScheduleTime(PriorHour), now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictStart, NextStart: HM(11, 0)},
		},
		"10:00 due, Enqueue, 09:00 queued, none active: the queued run starts first, 10:00 queues behind it": {
			cronJob: Hourly().Enqueue().LastScheduleTime(HM(8, 0)).Queued(PriorHour), now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictEnqueue, Head: PriorHour, Kept: 1, NextStart: HM(11, 0)},
		},
		"10:00 due, Enqueue, 09:00 queued, 08:00 active: no room for the head, 10:00 queues": {
			cronJob: Hourly().Enqueue().LastScheduleTime(HM(8, 0)).Active(RunningJob(HM(8, 0))).Queued(PriorHour), jobs: []*batchv1.Job{RunningJob(HM(8, 0))}, now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictEnqueue, Kept: 1, NextStart: HM(11, 0)},
		},
		"Enqueue, 09:00 queued and its Job exists (status write lost), 08:00 active: the head is adopted": {
			cronJob: Hourly().Enqueue().LastScheduleTime(HM(8, 0)).Active(RunningJob(HM(8, 0))).Queued(PriorHour),
			jobs:    []*batchv1.Job{RunningJob(HM(8, 0)), RunningJob(PriorHour)}, now: BeforeHour,
			want: want{Head: PriorHour, Kept: 1, NextStart: TopOfTheHour},
		},
		"Enqueue with a 10 s deadline, 09:00 queued, now 10:00:05: the queued run expires, 10:00 starts": {
			cronJob: Hourly().Enqueue().StartingDeadlineSeconds(10).LastScheduleTime(HM(8, 0)).Queued(PriorHour), now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictStart, Drops: []time.Time{PriorHour}, NextStart: HM(11, 0)},
		},
		"Forbid now, 09:00 queued under Enqueue before: the queue is dropped": {
			cronJob: Hourly().Forbid().LastScheduleTime(HM(8, 0)).Queued(PriorHour), now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictStart, Drops: []time.Time{PriorHour}, NextStart: HM(11, 0)},
		},
		"10:00 due, its Job exists already (status write lost), Forbid with it active: adopt, not skip": {
			cronJob: Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(TopOfTheHour)), jobs: []*batchv1.Job{RunningJob(TopOfTheHour)}, now: IsTime,
			want: want{Due: TopOfTheHour, Verdict: verdictAdopt, NextStart: HM(11, 0)},
		},
		"10:00 due, 20 s late, past a 10 s deadline: missed": {
			cronJob: Hourly().StartingDeadlineSeconds(10).LastScheduleTime(PriorHour), now: TopOfTheHour.Add(20 * time.Second),
			want: want{Due: TopOfTheHour, Verdict: verdictMissed, NextStart: HM(11, 0)},
		},
		"10:00 due exactly at a 10 s deadline: start": {
			cronJob: Hourly().StartingDeadlineSeconds(10).LastScheduleTime(PriorHour), now: TopOfTheHour.Add(10 * time.Second),
			want: want{Due: TopOfTheHour, Verdict: verdictStart, NextStart: HM(11, 0)},
		},
		"a week late, MostRecent: the most recent starts, too many missed": {
			cronJob: Hourly().LastScheduleTime(PriorHour), now: WeekLate,
			want: want{Due: WeekLate.Truncate(time.Hour), Verdict: verdictStart, TooMany: true, NextStart: WeekLate.Truncate(time.Hour).Add(time.Hour)},
		},
		"three runs late, missedRunPolicy All: the oldest starts first": {
			cronJob: Hourly().CatchUp(0).LastScheduleTime(HM(7, 0)), now: IsTime,
			want: want{Due: HM(8, 0), Verdict: verdictStart, CatchUp: true, NextStart: HM(11, 0)},
		},
		"a week late, missedRunPolicy All, maxCatchUpRuns 2: the older of the last two starts, 'more than 100' dropped": {
			cronJob: Hourly().CatchUp(2).LastScheduleTime(PriorHour), now: WeekLate,
			want: want{Due: WeekLate.Truncate(time.Hour).Add(-time.Hour), Verdict: verdictStart, CatchUp: true, Dropped: 101, NextStart: WeekLate.Truncate(time.Hour).Add(time.Hour)},
		},
		"suspended with 09:00 queued: nothing starts, the queue is dropped": {
			cronJob: Hourly().Enqueue().Suspend().LastScheduleTime(HM(8, 0)).Queued(PriorHour), now: IsTime,
			want: want{Drops: []time.Time{PriorHour}}, wantSuspended: true,
		},
		"schedule that never fires (31 February): nothing due, nothing next": {
			cronJob: Hourly().Schedule("0 0 31 2 *"), now: IsTime,
			wantNeverFires: true,
		},
		"unknown time zone: the schedule cannot be evaluated": {
			cronJob: Hourly().TimeZone("Mars/Olympus_Mons"), now: IsTime,
			wantScheduleErr: cronjobv1.ReasonUnknownTimeZone,
		},
		"unparseable schedule: the schedule cannot be evaluated": {
			cronJob: Hourly().Schedule("every hour"), now: IsTime,
			wantScheduleErr: cronjobv1.ReasonUnparseableSchedule,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cj := tc.cronJob.Obj()
			observeSchedule(cj, tc.now, time.Time{}, "")
			d := decide(cj, tc.jobs, tc.now, nil)
			gotErr := ""
			if d.scheduleErr != nil {
				gotErr = d.scheduleErr.Reason
			}
			if gotErr != tc.wantScheduleErr || d.suspended != tc.wantSuspended || d.neverFires != tc.wantNeverFires {
				t.Fatalf("schedule error %q, suspended %t, never fires %t; want %q, %t, %t",
					gotErr, d.suspended, d.neverFires, tc.wantScheduleErr, tc.wantSuspended, tc.wantNeverFires)
			}
			got := want{Due: d.due, Verdict: d.verdict, Skipped: d.skipped, Head: d.head, Kept: len(d.kept),
				CatchUp: d.catchUp, Dropped: d.dropped, TooMany: d.tooMany, NextStart: d.plan.NextStart}
			for _, r := range d.drops {
				got.Drops = append(got.Drops, r.scheduled)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decision (-want,+got):\n%s", diff)
			}
		})
	}
}
