package cronjob

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// counts is what the counters say, by "metric{label}" (label values only).
type counts map[string]float64

func countsOf(m *metrics.Metrics) counts {
	cs := m.Collectors()
	c := counts{
		"create_failures": MetricValue(cs, metrics.MetricJobCreateFailures, ""),
		"skew_samples":    MetricValue(cs, metrics.MetricJobCreationSkew, ""),
		"excluded":        MetricValue(cs, metrics.MetricRunsExcluded, ""),
	}
	for _, t := range []string{metrics.TriggerSchedule, metrics.TriggerCatchUp, metrics.TriggerQueued} {
		c["started{"+t+"}"] = MetricValue(cs, metrics.MetricRunsStarted, t)
	}
	for _, r := range []string{metrics.MissedPastDeadline, metrics.MissedTooMany, metrics.MissedSuperseded, metrics.MissedForbid,
		metrics.MissedMaxActive, metrics.MissedQueueFull, metrics.MissedQueueExpired} {
		c["missed{"+r+"}"] = MetricValue(cs, metrics.MetricRunsMissed, r)
	}
	for _, r := range []string{metrics.DeletedHistory, metrics.DeletedReplace} {
		c["deleted{"+r+"}"] = MetricValue(cs, metrics.MetricJobsDeleted, r)
	}
	return c
}

// nonZero drops the zero counts, so that a case states only what moved.
func (c counts) nonZero() counts {
	out := counts{}
	for k, v := range c {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// TestMetricsCountEachRunOnce reconciles each case at the instants given, on the fake clock, and checks
// what the counters say afterwards: a run counts once however many reconciles see it.
func TestMetricsCountEachRunOnce(t *testing.T) {
	errQuota := errors.New("exceeded quota")
	failJobCreate := interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		if _, ok := obj.(*batchv1.Job); ok {
			return errQuota
		}
		return c.Create(ctx, obj, opts...)
	}}
	PriorHour := TopOfTheHour.Add(-time.Hour)
	cases := []struct {
		name    string
		cronJob *builders.CronJobWrapper
		jobs    []*batchv1.Job
		objs    []client.Object // others, such as calendars
		funcs   interceptor.Funcs
		at      []time.Time
		want    counts
		skew    time.Duration // the one skew observed, when a run started
	}{{
		name: "a run started on time counts as schedule, with its skew",
		at:   []time.Time{TopOfTheHour.Add(-time.Minute), TopOfTheHour.Add(2 * time.Second), TopOfTheHour.Add(3 * time.Second)},
		want: counts{"started{schedule}": 1, "skew_samples": 1},
		skew: 2 * time.Second,
	}, {
		name: "a run due before the first reconcile of this process is a catch-up",
		at:   []time.Time{TopOfTheHour.Add(5 * time.Minute)},
		want: counts{"started{catch_up}": 1, "skew_samples": 1},
		skew: 5 * time.Minute,
	}, {
		name:    "after two hours down, the most recent of three runs due starts and the two before it are superseded",
		cronJob: Hourly().CreationTimestamp(TopOfTheHour.Add(-2*time.Hour - 30*time.Minute)),
		at:      []time.Time{TopOfTheHour.Add(-2*time.Hour - 15*time.Minute), TopOfTheHour.Add(time.Second)},
		want:    counts{"started{catch_up}": 1, "missed{superseded}": 2, "skew_samples": 1},
		skew:    time.Second,
	}, {
		name:    "more than 100 runs due at once: 100 are counted as too many missed",
		cronJob: Hourly().CreationTimestamp(TopOfTheHour.Add(-200 * time.Hour)),
		at:      []time.Time{TopOfTheHour.Add(time.Second), TopOfTheHour.Add(2 * time.Second)},
		want:    counts{"started{catch_up}": 1, "missed{too_many_missed}": schedule.MaxMissedTimes, "skew_samples": 1},
		skew:    time.Second,
	}, {
		name:    "exactly 100 runs due at once: the 99 before the most recent are superseded, not too many",
		cronJob: Hourly().CreationTimestamp(TopOfTheHour.Add(-99*time.Hour - 30*time.Minute)),
		at:      []time.Time{TopOfTheHour.Add(time.Second)},
		want:    counts{"started{catch_up}": 1, "missed{superseded}": schedule.MaxMissedTimes - 1, "skew_samples": 1},
		skew:    time.Second,
	}, {
		name:    "a run past startingDeadlineSeconds is missed once, however often it is seen",
		cronJob: Hourly().StartingDeadlineSeconds(60),
		at:      []time.Time{TopOfTheHour.Add(2 * time.Minute), TopOfTheHour.Add(3 * time.Minute), TopOfTheHour.Add(4 * time.Minute)},
		want:    counts{"missed{past_deadline}": 1},
	}, {
		name:    "a run skipped by Forbid is counted once, when first skipped",
		cronJob: Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)),
		jobs:    []*batchv1.Job{RunningJob(PriorHour)},
		at:      []time.Time{TopOfTheHour.Add(time.Second), TopOfTheHour.Add(time.Minute)},
		want:    counts{"missed{forbid}": 1},
	}, {
		name:    "with jitter, the skew counts from the delayed start: 2 s after 10:00 plus the delay",
		cronJob: Hourly().JitterSeconds(600).LastScheduleTime(PriorHour),
		at:      []time.Time{TopOfTheHour.Add(-time.Minute), TopOfTheHour.Add(schedule.JitterDelay("cj-uid", 600, TopOfTheHour, TopOfTheHour.Add(time.Hour)) + 2*time.Second)},
		want:    counts{"started{schedule}": 1, "skew_samples": 1},
		skew:    2 * time.Second,
	}, {
		name:    "catch-up of five missed runs with a cap of 3: two dropped once, three started, none superseded",
		cronJob: Hourly().CatchUp(3).LastScheduleTime(HM(5, 0)),
		at:      []time.Time{IsTime, IsTime, IsTime, IsTime},
		want:    counts{"started{catch_up}": 3, "missed{too_many_missed}": 2, "skew_samples": 3},
		skew:    2*time.Hour + time.Hour + 3*5*time.Second, // 08:00, 09:00 and 10:00, each seen at 10:00:05
	}, {
		name:    "Enqueue: a queued run that starts counts as queued, without a skew sample",
		cronJob: Hourly().Enqueue().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).Queued(TopOfTheHour),
		jobs:    []*batchv1.Job{DoneJob(PriorHour)},
		at:      []time.Time{HM(10, 30), HM(10, 31)},
		want:    counts{"started{queued}": 1},
	}, {
		name:    "Enqueue: a full queue counts the run once, and the queued run past its deadline once",
		cronJob: Hourly().Enqueue().MaxQueuedRuns(1).StartingDeadlineSeconds(7200).LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).Queued(TopOfTheHour),
		jobs:    []*batchv1.Job{RunningJob(PriorHour)},
		at:      []time.Time{HM(11, 0).Add(5 * time.Second), HM(11, 30), HM(12, 0).Add(6 * time.Second)},
		want:    counts{"missed{queue_full}": 1, "missed{queue_expired}": 1},
	}, {
		name:    "Allow with maxActiveJobs 1 and a Job running: counted once as max_active",
		cronJob: Hourly().MaxActiveJobs(1).LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)),
		jobs:    []*batchv1.Job{RunningJob(PriorHour)},
		at:      []time.Time{TopOfTheHour.Add(time.Second), TopOfTheHour.Add(time.Minute)},
		want:    counts{"missed{max_active}": 1},
	}, {
		name:  "each failed Job create counts",
		funcs: failJobCreate,
		at:    []time.Time{TopOfTheHour.Add(time.Second), TopOfTheHour.Add(2 * time.Second)},
		want:  counts{"create_failures": 2},
	}, {
		name:    "finished Jobs beyond the history limit count as history deletes",
		cronJob: Hourly().HistoryLimits(1, 1).LastScheduleTime(PriorHour),
		jobs:    []*batchv1.Job{DoneJob(PriorHour.Add(-2 * time.Hour)), DoneJob(PriorHour.Add(-time.Hour)), DoneJob(PriorHour)},
		at:      []time.Time{TopOfTheHour.Add(-time.Minute), TopOfTheHour.Add(-30 * time.Second)},
		want:    counts{"deleted{history}": 2},
	}, {
		name:    "Replace deletes the active Job: one replace delete, one run started",
		cronJob: Hourly().Replace().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)),
		jobs:    []*batchv1.Job{RunningJob(PriorHour)},
		at:      []time.Time{TopOfTheHour.Add(-time.Minute), TopOfTheHour.Add(time.Second)},
		want:    counts{"deleted{replace}": 1, "started{schedule}": 1, "skew_samples": 1},
		skew:    time.Second,
	}, {
		name:    "times a calendar excludes count once each, however often reconciled, and as nothing else",
		cronJob: Hourly().Calendars("holidays").LastScheduleTime(PriorHour),
		objs:    []client.Object{holidaysCalendar("2026-03-02")},
		at:      []time.Time{TopOfTheHour.Add(time.Second), TopOfTheHour.Add(2 * time.Second), TopOfTheHour.Add(time.Hour + time.Second)},
		want:    counts{"excluded": 2},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := append([]client.Object{CronJobOf(tc.cronJob)}, tc.objs...)
			for _, j := range tc.jobs {
				objs = append(objs, j)
			}
			f := newFixture(t, tc.at[0], tc.funcs, objs...)
			f.r.Metrics = metrics.NewMetrics()
			for _, at := range tc.at {
				f.setTime(at)
				_, _ = f.reconcile(t) // errors are part of some cases; the counters say what happened
			}
			if diff := cmp.Diff(tc.want, countsOf(f.r.Metrics).nonZero()); diff != "" {
				t.Errorf("counters (-want +got):\n%s", diff)
			}
			if tc.skew != 0 {
				if got := MetricValue(f.r.Metrics.Collectors(), metrics.MetricJobCreationSkew+"_sum", ""); got != tc.skew.Seconds() {
					t.Errorf("skew sum: got %v s, want %v s", got, tc.skew.Seconds())
				}
			}
		})
	}
}
