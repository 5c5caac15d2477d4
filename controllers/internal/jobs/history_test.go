package jobs_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// historyJob is a Job of the history tables, created `age` minutes before the hour.
func historyJob(name string, age int) *builders.JobWrapper {
	created := TopOfTheHour.Add(-time.Duration(age) * time.Minute)
	return builders.MakeJob(name, "ns").CreationTimestamp(created)
}

func TestJobsBeyondHistory(t *testing.T) {
	// ago returns the instant m minutes before the hour.
	ago := func(m int) time.Time { return TopOfTheHour.Add(-time.Duration(m) * time.Minute) }
	cases := map[string]struct {
		// spec
		cronJob *cronjobv1.CronJob
		// environment: the CronJob's Jobs, in the order the cache lists them
		jobs []*batchv1.Job
		// expectations: the names of the Jobs to delete, in order
		want []string
	}{
		"default limits keep the three newest succeeded and the newest failed": {
			cronJob: builders.MakeCronJob("cj", "ns").Obj(),
			jobs: []*batchv1.Job{
				historyJob("ok-50", 50).Succeeded(ago(50)).Obj(),
				historyJob("ok-10", 10).Succeeded(ago(10)).Obj(),
				historyJob("fail-40", 40).Failed(ago(40)).Obj(),
				historyJob("ok-40", 40).Succeeded(ago(40)).Obj(),
				historyJob("ok-20", 20).Succeeded(ago(20)).Obj(),
				historyJob("ok-30", 30).Succeeded(ago(30)).Obj(),
				historyJob("fail-20", 20).Failed(ago(20)).Obj(),
				historyJob("fail-60", 60).Failed(ago(60)).Obj(),
			},
			want: []string{"ok-50", "ok-40", "fail-60", "fail-40"},
		},
		"exactly at the default limits nothing is deleted": {
			cronJob: builders.MakeCronJob("cj", "ns").Obj(),
			jobs: []*batchv1.Job{
				historyJob("ok-30", 30).Succeeded(ago(30)).Obj(),
				historyJob("ok-20", 20).Succeeded(ago(20)).Obj(),
				historyJob("ok-10", 10).Succeeded(ago(10)).Obj(),
				historyJob("fail-10", 10).Failed(ago(10)).Obj(),
			},
		},
		"one over the limits deletes the oldest of each": {
			cronJob: builders.MakeCronJob("cj", "ns").HistoryLimits(1, 2).Obj(),
			jobs: []*batchv1.Job{
				historyJob("ok-20", 20).Succeeded(ago(20)).Obj(),
				historyJob("ok-10", 10).Succeeded(ago(10)).Obj(),
				historyJob("fail-30", 30).Failed(ago(30)).Obj(),
				historyJob("fail-20", 20).Failed(ago(20)).Obj(),
				historyJob("fail-10", 10).Failed(ago(10)).Obj(),
			},
			want: []string{"ok-20", "fail-30"},
		},
		"limits of zero delete every finished Job": {
			cronJob: builders.MakeCronJob("cj", "ns").HistoryLimits(0, 0).Obj(),
			jobs: []*batchv1.Job{
				historyJob("ok-10", 10).Succeeded(ago(10)).Obj(),
				historyJob("fail-10", 10).Failed(ago(10)).Obj(),
			},
			want: []string{"ok-10", "fail-10"},
		},
		"running Jobs are never deleted, whatever the limits": {
			cronJob: builders.MakeCronJob("cj", "ns").HistoryLimits(0, 0).Obj(),
			jobs: []*batchv1.Job{
				historyJob("running-started", 30).StartedAt(ago(30)).Obj(),
				historyJob("running-pending", 20).Obj(),
			},
		},
		"age is the start time, not the creation time": {
			// A Job created first but started last (its Pods waited) is the newest.
			cronJob: builders.MakeCronJob("cj", "ns").HistoryLimits(1, 1).Obj(),
			jobs: []*batchv1.Job{
				historyJob("created-first-started-last", 50).StartedAt(ago(5)).Succeeded(ago(1)).Obj(),
				historyJob("created-last-started-first", 10).StartedAt(ago(9)).Succeeded(ago(8)).Obj(),
			},
			want: []string{"created-last-started-first"},
		},
		"a finished Job that never started is aged by its creation time, not kept as the newest": {
			cronJob: builders.MakeCronJob("cj", "ns").HistoryLimits(1, 1).Obj(),
			jobs: []*batchv1.Job{
				historyJob("started-10", 20).StartedAt(ago(10)).Succeeded(ago(5)).Obj(),
				historyJob("never-started-created-30", 30).Succeeded(ago(2)).WithoutStartTime().Obj(),
			},
			want: []string{"never-started-created-30"},
		},
		"Jobs of the same age are deleted in name order": {
			cronJob: builders.MakeCronJob("cj", "ns").HistoryLimits(1, 1).Obj(),
			jobs: []*batchv1.Job{
				historyJob("b", 10).Succeeded(ago(10)).Obj(),
				historyJob("c", 10).Succeeded(ago(10)).Obj(),
				historyJob("a", 10).Succeeded(ago(10)).Obj(),
			},
			want: []string{"a", "b"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, job := range jobs.BeyondHistory(tc.cronJob, tc.jobs) {
				got = append(got, job.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Jobs to delete (-want,+got):\n%s", diff)
			}
		})
	}
}
