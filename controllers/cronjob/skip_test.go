package cronjob

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// TestSkipMessage: the JobAlreadyActive event of a skipped run says which rule held it back, as batch/v1's
// does for Forbid, and with the count of active Jobs for maxActiveJobs under Allow.
func TestSkipMessage(t *testing.T) {
	cases := map[string]struct {
		cronJob *builders.CronJobWrapper
		want    string
	}{
		"Forbid with the 09:00 run active": {
			cronJob: Hourly().Forbid(),
			want:    "Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid",
		},
		"Allow with maxActiveJobs 1 and the 09:00 run active": {
			cronJob: Hourly().MaxActiveJobs(1),
			want:    "Normal JobAlreadyActive Not starting job because 1 jobs are active, spec.maxActiveJobs",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cj := tc.cronJob.LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).Obj()
			f := newFixture(t, IsTime, interceptor.Funcs{}, []client.Object{cj, RunningJob(PriorHour)}...)
			if _, err := f.reconcile(t); err != nil {
				t.Fatal(err)
			}
			var got []string
			for len(f.recorder.Events) > 0 {
				got = append(got, <-f.recorder.Events)
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("events = %q, want exactly %q", got, tc.want)
			}
		})
	}
}
