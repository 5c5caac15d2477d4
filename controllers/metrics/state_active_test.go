package metrics

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// TestStateMetricsActiveBeyondList: cronjob_operator_cronjob_status_active counts every active Job of the
// CronJob in the cache when status.active is full (it lists at most cronjobv1.MaxActiveListed), and is
// the length of status.active otherwise (no Job read).
func TestStateMetricsActiveBeyondList(t *testing.T) {
	const over = cronjobv1.MaxActiveListed + 50
	running := make([]*batchv1.Job, over)
	for i := range running {
		running[i] = RunningJob(PriorHour.Add(-time.Duration(i) * time.Hour))
	}
	cases := map[string]struct {
		// status
		cronJob *builders.CronJobWrapper
		// environment: the Jobs in the cache
		jobs []*batchv1.Job
		// expectations
		want string
	}{
		"150 Jobs running, status.active full with 100: 150": {
			cronJob: Hourly().Active(running[:cronjobv1.MaxActiveListed]...), jobs: running,
			want: `cronjob_operator_cronjob_status_active{cronjob="hourly",namespace="ns"} 150`,
		},
		"150 Jobs of which one finished: 149": {
			cronJob: Hourly().Active(running[:cronjobv1.MaxActiveListed]...),
			jobs:    append([]*batchv1.Job{DoneJob(PriorHour)}, running[1:]...),
			want:    `cronjob_operator_cronjob_status_active{cronjob="hourly",namespace="ns"} 149`,
		},
		"2 listed, 150 in the cache: status.active, the Jobs not read": {
			cronJob: Hourly().Active(running[:2]...), jobs: running,
			want: `cronjob_operator_cronjob_status_active{cronjob="hourly",namespace="ns"} 2`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cj := tc.cronJob.Obj()
			objs := make([]client.Object, 0, len(tc.jobs))
			for _, j := range tc.jobs {
				objs = append(objs, j.DeepCopy())
			}
			c := FakeClient(nil, interceptor.Funcs{}, objs...)
			s := NewState(func(context.Context) ([]*cronjobv1.CronJob, error) { return []*cronjobv1.CronJob{cj}, nil }, logr.Discard()).
				CountActiveWith(CachedActiveJobs(c))
			s.leading.Store(true)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, StatePath, nil))
			got := ""
			for line := range strings.Lines(rec.Body.String()) {
				if strings.HasPrefix(line, MetricActive+"{") {
					got = strings.TrimSuffix(line, "\n")
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("active series (-want,+got):\n%s", diff)
			}
		})
	}
}

// TestStateMetricsActiveCountFails: when the count of a full status.active fails, the series is the
// length of status.active and the scrape still answers 200; a CronJob whose list is not full is not counted.
func TestStateMetricsActiveCountFails(t *testing.T) {
	full := make([]*batchv1.Job, cronjobv1.MaxActiveListed)
	for i := range full {
		full[i] = RunningJob(PriorHour.Add(-time.Duration(i) * time.Hour))
	}
	cronJobs := []*cronjobv1.CronJob{
		Hourly().Active(full...).Obj(),
		builders.MakeCronJob("few", Namespace).Active(full[:2]...).Obj(),
	}
	var counted []string
	failing := func(_ context.Context, cj *cronjobv1.CronJob) (int, error) {
		counted = append(counted, cj.Name)
		return 0, errors.New("cache not synced")
	}
	s := NewState(func(context.Context) ([]*cronjobv1.CronJob, error) { return cronJobs, nil }, logr.Discard()).
		CountActiveWith(failing)
	s.leading.Store(true)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, StatePath, nil))
	if rec.Code != http.StatusOK {
		t.Errorf("status %d, want 200", rec.Code)
	}
	var got []string
	for line := range strings.Lines(rec.Body.String()) {
		if strings.HasPrefix(line, MetricActive+"{") {
			got = append(got, strings.TrimSuffix(line, "\n"))
		}
	}
	want := []string{
		`cronjob_operator_cronjob_status_active{cronjob="few",namespace="ns"} 2`,
		`cronjob_operator_cronjob_status_active{cronjob="hourly",namespace="ns"} 100`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("active series (-want,+got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"hourly"}, counted); diff != "" {
		t.Errorf("CronJobs counted (-want,+got):\n%s", diff)
	}
}
