package cronjob

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/tools/events"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// TestActiveBound pins the overflow rule of status.active (at most cronjobv1.MaxActiveListed Jobs, the
// schema's maxItems): with more Jobs active (Allow without maxActiveJobs), it keeps the ones it listed
// first and gives a freed place to the oldest unlisted Job; the decisions count every active Job of the
// cache, not the list.
func TestActiveBound(t *testing.T) {
	// 101 running Jobs of hourly, one per hour up to the 09:00 run, oldest first.
	const over = cronjobv1.MaxActiveListed + 1
	running := make([]*batchv1.Job, over)
	for i := range running {
		running[i] = RunningJob(PriorHour.Add(-time.Duration(over-1-i) * time.Hour))
	}
	oldestDone := append([]*batchv1.Job{DoneJob(running[0].CreationTimestamp.Time)}, running[1:]...)
	names := func(js []*batchv1.Job) []string {
		out := make([]string, len(js))
		for i, j := range js {
			out[i] = j.Name
		}
		return out
	}
	listed := running[:cronjobv1.MaxActiveListed]

	type result struct {
		Created, Deleted []string
		Active           []string // status.active, in its order
		StatusWrites     int
	}
	cases := map[string]struct {
		// spec and status
		cronJob *builders.CronJobWrapper
		// environment
		jobs []*batchv1.Job
		now  time.Time
		// expectations
		want result
	}{
		"Allow, 101 Jobs running, none listed (a lost status write), not time yet: the 100 oldest listed": {
			cronJob: Hourly().LastScheduleTime(PriorHour), jobs: running, now: BeforeHour,
			want: result{Active: names(listed), StatusWrites: 1},
		},
		"Allow, 101 Jobs running, the 100 oldest listed, not time yet: nothing written (the 101st does not rewrite the list)": {
			cronJob: Hourly().LastScheduleTime(PriorHour).Active(listed...), jobs: running, now: BeforeHour,
			want: result{Active: names(listed)},
		},
		"Allow, 101 Jobs running, the 100 oldest listed, is time: the 10:00 run starts beside them (no cap), the list stays": {
			cronJob: Hourly().LastScheduleTime(PriorHour).Active(listed...), jobs: running, now: IsTime,
			want: result{Created: []string{JobName(TopOfTheHour)}, Active: names(listed), StatusWrites: 1},
		},
		"Allow, 101 Jobs, the oldest listed one finished: the oldest unlisted takes its place": {
			cronJob: Hourly().LastScheduleTime(PriorHour).Active(listed...), jobs: oldestDone, now: BeforeHour,
			want: result{Active: names(running[1:]), StatusWrites: 1},
		},
		"a list of 101 written before the bound: the first 100 kept": {
			cronJob: Hourly().LastScheduleTime(PriorHour).Active(running...), jobs: running, now: BeforeHour,
			want: result{Active: names(listed), StatusWrites: 1},
		},
		"Replace (changed from Allow), 101 Jobs running, the 100 oldest listed, is time: all 101 deleted, then the 10:00 run": {
			cronJob: Hourly().Replace().LastScheduleTime(PriorHour).Active(listed...), jobs: running, now: IsTime,
			want: result{Created: []string{JobName(TopOfTheHour)}, Deleted: names(running),
				Active: []string{JobName(TopOfTheHour)}, StatusWrites: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var rec outcome
			f := steadyFixture(t, tc.cronJob, tc.jobs, tc.now, &rec)
			f.recorder = events.NewFakeRecorder(4 * over) // Replace's 101 SuccessfulDelete events would fill 100
			f.r.Recorder = f.recorder
			if _, err := f.reconcile(t); err != nil {
				t.Fatalf("reconcile: %v", err)
			}
			got := result{Deleted: rec.Deleted, StatusWrites: rec.StatusWrites}
			for _, c := range rec.Created {
				got.Created = append(got.Created, c.Name)
			}
			for _, ref := range f.cronJob(t).Status.Active {
				got.Active = append(got.Active, ref.Name)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want,+got):\n%s", diff)
			}
		})
	}
}
