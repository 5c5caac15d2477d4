package cronjobrun

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// TestDecisionTrace: at V(1) each reconcile of a run says what it decided and why (the reason and message of
// its Ready condition); at V(0) it says nothing of it.
func TestDecisionTrace(t *testing.T) {
	cases := map[string]struct {
		run  string
		want []string
	}{
		"a run now under Forbid with the 09:00 Job active: it waits, and says why": {
			run: "manual",
			want: []string{`"cronJob"="hourly"`, `"phase"="Pending"`, `"reason"="JobAlreadyActive"`, `"job"=""`,
				`"message"="1 Job(s) of CronJob hourly active, the limit of concurrencyPolicy Forbid is 1`},
		},
		"a run of a CronJob that does not exist: rejected, and why": {
			run:  "orphan",
			want: []string{`"cronJob"="nothing"`, `"phase"="Rejected"`, `"reason"="CronJobNotFound"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, verbosity := range []int{0, 1} {
				f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)).Obj(),
					RunningJob(PriorHour), manualRun().Obj(), builders.MakeCronJobRun("orphan", Namespace, "nothing").UID("orphan-uid").CreationTimestamp(IsTime).Obj())
				Traced(t, verbosity, tc.want, func(ctx context.Context) {
					if _, err := f.runs.Reconcile(ctx, f.runRequest(t, tc.run)); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}
