package framework

import (
	"context"
	"net"
	"net/http"

	"github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// FreeLocalAddress returns a loopback host:port that was free a moment ago, for a manager's
// MetricsBindAddress.
func FreeLocalAddress(g gomega.Gomega) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(gomega.HaveOccurred())
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// Scrape GETs url (a Prometheus text endpoint, such as http://<MetricsBindAddress>/metrics) and returns
// its metric families by name.
func Scrape(ctx context.Context, g gomega.Gomega, url string) map[string]*dto.MetricFamily {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	g.Expect(err).NotTo(gomega.HaveOccurred())
	resp, err := http.DefaultClient.Do(req)
	g.Expect(err).NotTo(gomega.HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	g.Expect(resp.StatusCode).To(gomega.Equal(http.StatusOK), "GET %s", url)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	g.Expect(err).NotTo(gomega.HaveOccurred(), "parsing %s", url)
	return families
}

// MetricValue returns the value of the series of the family `name` whose labels include all of `want`
// (counter, gauge or untyped; the sample count for a histogram), and whether there is one.
func MetricValue(families map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f, ok := families[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		have := labels(m)
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		default:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}
