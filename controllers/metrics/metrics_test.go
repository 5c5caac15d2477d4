package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cronjob-operator/cronjob-operator/controllers/version"
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

// TestBuildInfoNamesTheRunningBuild: cronjob_operator_build_info is 1 for the build's version, revision and
// Go version, so a dashboard can tell which release served a scrape.
func TestBuildInfoNamesTheRunningBuild(t *testing.T) {
	old := version.Version
	t.Cleanup(func() { version.Version = old })
	version.Version = "1.2.3"
	build := version.Get()
	want := fmt.Sprintf(`# HELP %[1]s %[2]s
# TYPE %[1]s gauge
%[1]s{goversion=%[3]q,revision=%[4]q,version="1.2.3"} 1
`, MetricBuildInfo, buildInfoHelp, build.GoVersion, build.ShortRevision())
	if err := testutil.CollectAndCompare(NewMetrics().buildInfo, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}
