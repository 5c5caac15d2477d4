package framework

import (
	"bytes"
	"context"
	"fmt"
	"maps"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/cronjob-operator/cronjob-operator/controllers"
)

// Reconciles counts the CronJob controller's reconciles by result ("success", "error", "requeue",
// "requeue_after"), from controller-runtime's controller_runtime_reconcile_total. Every manager of the
// test process adds to the same counters, so take the difference of two snapshots around the part of a
// spec to measure (specs of a suite run one at a time).
type Reconciles map[string]float64

// CountReconciles returns the current counts. It returns an error if the metrics registry cannot be read.
func CountReconciles() (Reconciles, error) {
	families, err := metrics.Registry.Gather()
	if err != nil {
		return nil, fmt.Errorf("gathering controller-runtime metrics: %w", err)
	}
	counts := Reconciles{}
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := labels(m)
			if l["controller"] == controllers.ControllerName {
				counts[l["result"]] += m.GetCounter().GetValue()
			}
		}
	}
	return counts, nil
}

// Since returns the counts added since the snapshot before.
func (r Reconciles) Since(before Reconciles) Reconciles { return since(r, before) }

// Total is the number of reconciles, whatever their result.
func (r Reconciles) Total() float64 {
	var n float64
	for _, v := range r {
		n += v
	}
	return n
}

// APIRequest is one series of the kube-apiserver's apiserver_request_total counter.
type APIRequest struct {
	Verb        string // LIST, WATCH, GET, POST, PUT, PATCH, DELETE, ...
	Resource    string // such as "jobs" or "cronjobs"
	Subresource string // such as "status"; empty for the resource itself
	Code        string // HTTP status code, such as "201" or "409"
}

// APIRequests counts the requests the kube-apiserver has served, by verb, resource, subresource and
// code, for all its clients since it started.
type APIRequests map[APIRequest]float64

// ScrapeAPIRequests reads apiserver_request_total from the kube-apiserver's /metrics endpoint, with the
// credentials of cfg (envtest's admin user may read it). It returns an error if the request fails or the
// response does not parse.
func ScrapeAPIRequests(ctx context.Context, cfg *rest.Config) (APIRequests, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating a client for /metrics: %w", err)
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the kube-apiserver's /metrics: %w", err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parsing the kube-apiserver's /metrics: %w", err)
	}
	counts := APIRequests{}
	for _, m := range families["apiserver_request_total"].GetMetric() {
		l := labels(m)
		counts[APIRequest{Verb: l["verb"], Resource: l["resource"], Subresource: l["subresource"], Code: l["code"]}] +=
			m.GetCounter().GetValue()
	}
	return counts, nil
}

// Since returns the requests served since the snapshot before.
func (r APIRequests) Since(before APIRequests) APIRequests { return since(r, before) }

// since subtracts the counters of the snapshot before from those of now.
func since[M ~map[K]float64, K comparable](now, before M) M {
	d := maps.Clone(now)
	for k, v := range before {
		d[k] -= v
	}
	return d
}

// Count sums the series that match.
func (r APIRequests) Count(match func(APIRequest) bool) float64 {
	var n float64
	for k, v := range r {
		if match(k) {
			n += v
		}
	}
	return n
}

func labels(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}
