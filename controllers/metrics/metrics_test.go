package metrics

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

func TestMetricNamesAreTheRegisteredOnes(t *testing.T) {
	var got []string
	for _, c := range NewMetrics().Collectors() {
		ch := make(chan *prometheus.Desc, 20)
		c.Describe(ch)
		close(ch)
		for d := range ch {
			s := d.String()
			_, rest, _ := strings.Cut(s, `fqName: "`)
			name, _, _ := strings.Cut(rest, `"`)
			got = append(got, name)
		}
	}
	for _, f := range stateFamilies {
		got = append(got, f.name)
	}
	if diff := cmp.Diff(MetricNames(), got); diff != "" {
		t.Errorf("MetricNames (-listed +described):\n%s", diff)
	}
}
