package cronjob

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// More than schedule.MaxMissedTimes (100) unmet scheduled times give a TooManyMissedTimes warning, as in batch/v1;
// exactly 100 do not. Either way only the most recent one starts.
func TestTooManyMissedTimes(t *testing.T) {
	cases := map[string]struct {
		// history: the hourly CronJob never ran and was created this many hours before the hour
		missed int
		// expectations
		wantEvents []string
	}{
		"exactly 100 missed: the most recent starts, without a warning": {
			missed: 100, wantEvents: []string{"Normal " + cronjobv1.ReasonSuccessfulCreate},
		},
		"101 missed: the most recent starts, with TooManyMissedTimes": {
			missed:     101,
			wantEvents: []string{"Warning " + cronjobv1.ReasonTooManyMissedTimes, "Normal " + cronjobv1.ReasonSuccessfulCreate},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cj := builders.MakeCronJob("hourly", Namespace).Schedule("0 * * * *").UID("cj-uid").
				CreationTimestamp(TopOfTheHour.Add(-time.Duration(tc.missed) * time.Hour)).Obj()
			f := newFixture(t, TopOfTheHour.Add(5*time.Second), interceptor.Funcs{}, cj)
			if _, err := f.reconcile(t); err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			if diff := cmp.Diff(tc.wantEvents, f.eventReasons()); diff != "" {
				t.Errorf("events (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{jobs.Name("hourly", TopOfTheHour)}, f.jobNames(t)); diff != "" {
				t.Errorf("Jobs (-want,+got):\n%s", diff)
			}
		})
	}
}
