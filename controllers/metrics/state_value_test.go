package metrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
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

// TestStateMetricsPausedAndHealthy: cronjob_operator_cronjob_paused is 1 only for a CronJob the controller
// paused (spec.suspend true and the paused-at annotation), not for a user's suspension nor for a resumed
// CronJob whose annotation the controller has not removed yet; the Healthy condition has its three series
// beside Ready's only when the CronJob has it; each spec field has its series only when set.
func TestStateMetricsPausedAndHealthy(t *testing.T) {
	const pausedAt = "2026-03-02T08:00:00Z"
	healthy := func(status metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: cronjobv1.ConditionHealthy, Status: status, Reason: reason, LastTransitionTime: metav1.NewTime(PriorHour)}
	}
	cases := map[string]struct {
		// spec and status
		cj *builders.CronJobWrapper
		// expectations: the lines of the issue 24 families and of the Healthy condition
		want []string
	}{
		"paused after failures: suspended and annotated": {
			cj: Hourly().Suspend().Annotation(cronjobv1.PausedAtAnnotation, pausedAt).PauseAfterFailures(3).ConsecutiveFailures(3),
			want: []string{
				`cronjob_operator_cronjob_paused{cronjob="hourly",namespace="ns"} 1`,
				`cronjob_operator_cronjob_status_consecutive_failures{cronjob="hourly",namespace="ns"} 3`,
			},
		},
		"suspended by a user (no annotation): not paused": {
			cj: Hourly().Suspend(),
			want: []string{
				`cronjob_operator_cronjob_paused{cronjob="hourly",namespace="ns"} 0`,
				`cronjob_operator_cronjob_status_consecutive_failures{cronjob="hourly",namespace="ns"} 0`,
			},
		},
		"resumed, the annotation not yet removed: not paused": {
			cj: Hourly().Annotation(cronjobv1.PausedAtAnnotation, pausedAt),
			want: []string{
				`cronjob_operator_cronjob_paused{cronjob="hourly",namespace="ns"} 0`,
				`cronjob_operator_cronjob_status_consecutive_failures{cronjob="hourly",namespace="ns"} 0`,
			},
		},
		"start timeout only; Healthy True while suspended": {
			cj: Hourly().Suspend().StartTimeoutSeconds(30).SuccessDeadlineSeconds(86400).Condition(healthy(metav1.ConditionTrue, cronjobv1.ReasonSuspended)),
			want: []string{
				`cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hourly",namespace="ns",reason="Suspended",status="true"} 1`,
				`cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hourly",namespace="ns",reason="Suspended",status="false"} 0`,
				`cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hourly",namespace="ns",reason="Suspended",status="unknown"} 0`,
				`cronjob_operator_cronjob_spec_start_timeout_seconds{cronjob="hourly",namespace="ns"} 30`,
				`cronjob_operator_cronjob_spec_success_deadline_seconds{cronjob="hourly",namespace="ns"} 86400`,
				`cronjob_operator_cronjob_paused{cronjob="hourly",namespace="ns"} 0`,
				`cronjob_operator_cronjob_status_consecutive_failures{cronjob="hourly",namespace="ns"} 0`,
			},
		},
		"Healthy False, run timeout only": {
			cj: Hourly().RunTimeoutSeconds(3600).SuccessDeadlineSeconds(7200).Condition(healthy(metav1.ConditionFalse, cronjobv1.ReasonNoRecentSuccess)),
			want: []string{
				`cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hourly",namespace="ns",reason="NoRecentSuccess",status="true"} 0`,
				`cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hourly",namespace="ns",reason="NoRecentSuccess",status="false"} 1`,
				`cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hourly",namespace="ns",reason="NoRecentSuccess",status="unknown"} 0`,
				`cronjob_operator_cronjob_spec_run_timeout_seconds{cronjob="hourly",namespace="ns"} 3600`,
				`cronjob_operator_cronjob_spec_success_deadline_seconds{cronjob="hourly",namespace="ns"} 7200`,
				`cronjob_operator_cronjob_paused{cronjob="hourly",namespace="ns"} 0`,
				`cronjob_operator_cronjob_status_consecutive_failures{cronjob="hourly",namespace="ns"} 0`,
			},
		},
	}
	// In the order of a scrape: the condition's series true, false, unknown, then the families in MetricNames' order.
	families := []string{MetricRunTimeout, MetricStartTimeout, MetricSuccessDeadline, MetricPaused, MetricConsecutiveFailures}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cj := tc.cj.Obj()
			s := NewState(func(context.Context) ([]*cronjobv1.CronJob, error) { return []*cronjobv1.CronJob{cj}, nil }, logr.Discard())
			s.leading.Store(true)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, StatePath, nil))
			var got []string
			for line := range strings.Lines(rec.Body.String()) {
				line = strings.TrimSuffix(line, "\n")
				if strings.HasPrefix(line, MetricCondition+`{condition="Healthy"`) ||
					slices.ContainsFunc(families, func(f string) bool { return strings.HasPrefix(line, f+"{") }) {
					got = append(got, line)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("series (-want,+got):\n%s", diff)
			}
		})
	}
}
