package unittest

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// MetricValue gathers cs and returns the value of the series of metric name whose one label has the value
// labelValue ("" for a metric without labels): a counter's value, a histogram's sample count, or with
// name+"_sum" a histogram's sum. 0 when there is no such series. It panics when cs cannot be gathered.
func MetricValue(cs []prometheus.Collector, name, labelValue string) float64 {
	reg := prometheus.NewRegistry()
	reg.MustRegister(cs...)
	families, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	base, sum := strings.CutSuffix(name, "_sum")
	for _, f := range families {
		if f.GetName() != base {
			continue
		}
		for _, m := range f.GetMetric() {
			value := ""
			if len(m.GetLabel()) > 0 {
				value = m.GetLabel()[0].GetValue()
			}
			if value != labelValue {
				continue
			}
			switch {
			case m.GetHistogram() != nil && sum:
				return m.GetHistogram().GetSampleSum()
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount())
			default:
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
