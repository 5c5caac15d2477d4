package metrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// TestStateMetricsValueDigits: a value is written with exactly the digits it needs, as Prometheus' own
// text format writes it: a whole second without decimals, and a fraction of one in full (a CronJob built
// in memory, not read from the API server, can have one), never rounded.
func TestStateMetricsValueDigits(t *testing.T) {
	cases := map[string]struct {
		// metadata
		created time.Time
		// expectations: the line of cronjob_operator_cronjob_created
		want string
	}{
		"created on a whole second: no decimals": {
			created: CreationTime,
			want:    `cronjob_operator_cronjob_created{cronjob="hourly",namespace="ns"} 1772442000`,
		},
		"created 512 ms past: all three decimals": {
			created: CreationTime.Add(512 * time.Millisecond),
			want:    `cronjob_operator_cronjob_created{cronjob="hourly",namespace="ns"} 1772442000.512`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cj := Hourly().CreationTimestamp(tc.created).Obj()
			s := NewState(func(context.Context) ([]*cronjobv1.CronJob, error) { return []*cronjobv1.CronJob{cj}, nil }, logr.Discard())
			s.leading.Store(true)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, StatePath, nil))
			got := ""
			for line := range strings.Lines(rec.Body.String()) {
				if strings.HasPrefix(line, MetricCronJobCreated+"{") {
					got = strings.TrimSuffix(line, "\n")
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("created series (-want,+got):\n%s", diff)
			}
		})
	}
}
