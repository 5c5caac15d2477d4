package metrics

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// counterSeries are the series of Metrics, as "<name> <label value>" ("" for none; the skew histogram as
// its sample count and, with _sum, its sum).
var counterSeries = func() [][2]string {
	series := [][2]string{{MetricJobCreationSkew, ""}, {MetricJobCreationSkew + "_sum", ""}, {MetricJobCreateFailures, ""}}
	for _, trigger := range []string{TriggerSchedule, TriggerCatchUp, TriggerQueued, TriggerManual} {
		series = append(series, [2]string{MetricRunsStarted, trigger})
	}
	for _, reason := range []string{MissedPastDeadline, MissedTooMany, MissedSuperseded, MissedForbid, MissedMaxActive,
		MissedQueueFull, MissedQueueExpired} {
		series = append(series, [2]string{MetricRunsMissed, reason})
	}
	for _, reason := range []string{DeletedHistory, DeletedReplace} {
		series = append(series, [2]string{MetricJobsDeleted, reason})
	}
	return series
}()

// nonZero returns the series of m that are not 0, keyed "<name> <label value>".
func nonZero(m *Metrics) map[string]float64 {
	got := map[string]float64{}
	for _, s := range counterSeries {
		if v := MetricValue(m.Collectors(), s[0], s[1]); v != 0 {
			got[s[0]+" "+s[1]] = v
		}
	}
	return got
}

func TestCounters(t *testing.T) {
	cases := map[string]struct {
		// what the reconcilers report
		record func(m *Metrics)
		// expectations: the series that are not 0 after
		want map[string]float64
	}{
		"nothing happened: every series at 0": {
			record: func(*Metrics) {}, want: map[string]float64{},
		},
		"a run on schedule, 2.5 s late: one started by schedule, its skew observed": {
			record: func(m *Metrics) { m.RunStarted(TriggerSchedule, 2500*time.Millisecond) },
			want: map[string]float64{
				MetricRunsStarted + " schedule":      1,
				MetricJobCreationSkew + " ":          1,
				MetricJobCreationSkew + "_sum" + " ": 2.5,
			},
		},
		"two catch-up runs, 1 min and 2 min late: two started by catch-up, both skews observed": {
			record: func(m *Metrics) {
				m.RunStarted(TriggerCatchUp, time.Minute)
				m.RunStarted(TriggerCatchUp, 2*time.Minute)
			},
			want: map[string]float64{
				MetricRunsStarted + " catch_up":      2,
				MetricJobCreationSkew + " ":          2,
				MetricJobCreationSkew + "_sum" + " ": 180,
			},
		},
		"a queued run started: one started by queued, no skew": {
			record: func(m *Metrics) { m.QueuedRunStarted() },
			want:   map[string]float64{MetricRunsStarted + " queued": 1},
		},
		"a CronJobRun's Job: one started by manual, no skew": {
			record: func(m *Metrics) { m.ManualRunStarted() },
			want:   map[string]float64{MetricRunsStarted + " manual": 1},
		},
		"100 runs lost to too many missed: 100 of that reason": {
			record: func(m *Metrics) { m.RunsMissed(MissedTooMany, 100) },
			want:   map[string]float64{MetricRunsMissed + " too_many_missed": 100},
		},
		"one run past its deadline, 0 superseded: one past deadline only": {
			record: func(m *Metrics) {
				m.RunsMissed(MissedPastDeadline, 1)
				m.RunsMissed(MissedSuperseded, 0)
			},
			want: map[string]float64{MetricRunsMissed + " past_deadline": 1},
		},
		"two failed creates: two failures": {
			record: func(m *Metrics) {
				m.JobCreateFailed()
				m.JobCreateFailed()
			},
			want: map[string]float64{MetricJobCreateFailures + " ": 2},
		},
		"a Job beyond the history and one replaced: one deleted of each reason": {
			record: func(m *Metrics) {
				m.JobDeleted(DeletedHistory)
				m.JobDeleted(DeletedReplace)
			},
			want: map[string]float64{MetricJobsDeleted + " history": 1, MetricJobsDeleted + " replace": 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := NewMetrics()
			tc.record(m)
			if diff := cmp.Diff(tc.want, nonZero(m)); diff != "" {
				t.Errorf("series (-want,+got):\n%s", diff)
			}
		})
	}
}

// A reconciler built without metrics (most unit tests) calls them on a nil *Metrics: each is a no-op.
func TestNilMetricsDoNothing(t *testing.T) {
	cases := map[string]func(m *Metrics){
		"a run started on schedule":        func(m *Metrics) { m.RunStarted(TriggerSchedule, time.Second) },
		"a queued run started":             func(m *Metrics) { m.QueuedRunStarted() },
		"a CronJobRun's Job started":       func(m *Metrics) { m.ManualRunStarted() },
		"three runs skipped by Forbid":     func(m *Metrics) { m.RunsMissed(MissedForbid, 3) },
		"a create failed":                  func(m *Metrics) { m.JobCreateFailed() },
		"a Job deleted beyond the history": func(m *Metrics) { m.JobDeleted(DeletedHistory) },
	}
	for name, record := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("recording %q on nil Metrics panicked: %v", name, r)
				}
			}()
			record(nil)
		})
	}
}
