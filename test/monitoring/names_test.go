package monitoring

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
	"sigs.k8s.io/yaml"

	"github.com/cronjob-operator/cronjob-operator/controllers"
	opmetrics "github.com/cronjob-operator/cronjob-operator/controllers/metrics"
)

// leaseName is main.go's LeaderElectionID, the name label of leader_election_master_status.
const leaseName = "cronjob-operator.batch.cronjob-operator.dev"

// operatorHistograms are the operator's histograms, exported with _bucket, _sum and _count series.
var operatorHistograms = []string{opmetrics.MetricJobCreationSkew}

func TestDashboardAndRulesNameOnlyExportedMetrics(t *testing.T) {
	exported := exportedNames(t)
	exprs := append(dashboardExprs(t), ruleExprs(t)...)
	names := metricNamesOf(t, exprs)
	for i, e := range exprs {
		for _, n := range names[i] {
			if !exported[n] {
				t.Errorf("%s: names %s, which the operator does not export", e.where, n)
			}
		}
	}
	if len(exprs) < 20 {
		t.Errorf("found %d expressions in the dashboard and the rules; want at least 20 (is the parsing broken?)", len(exprs))
	}
}

func TestControllerRuntimeExportsWhatTheArtefactsUse(t *testing.T) {
	exported := exportedNames(t)
	// The controller-runtime metrics the dashboard and the alerts read; if one is renamed upstream, this
	// fails before an alert silently never fires.
	for _, n := range []string{
		"controller_runtime_reconcile_total", "controller_runtime_reconcile_errors_total",
		"controller_runtime_reconcile_time_seconds_bucket", "controller_runtime_active_workers",
		"workqueue_depth", "workqueue_adds_total", "workqueue_queue_duration_seconds_bucket",
		"leader_election_master_status", "process_resident_memory_bytes", "process_cpu_seconds_total",
		"go_memstats_heap_inuse_bytes",
	} {
		if !exported[n] {
			t.Errorf("controller-runtime's registry has no %s", n)
		}
	}
}

// expr is one PromQL expression and where it was found, for messages.
type expr struct {
	where, text string
}

// grafanaVars replaces Grafana's interval variables by a duration, so that a query parses as PromQL.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h")

// labelValues matches a Grafana template query label_values(metric, label).
var labelValues = regexp.MustCompile(`^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)`)

// dashboardExprs returns every panel query of the dashboard, and the metric of each label_values template
// query as an expression of its own.
func dashboardExprs(t *testing.T) []expr {
	t.Helper()
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(readRepoFile(t, "config", "grafana", "cronjob-operator.json"), &dash); err != nil {
		t.Fatalf("decoding the dashboard: %v", err)
	}
	var out []expr
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("dashboard panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, expr{where: fmt.Sprintf("dashboard panel %q", p.Title), text: grafanaVars.Replace(tg.Expr)})
		}
	}
	for _, v := range dash.Templating.List {
		q, _ := v.Query.(map[string]any)
		if s, ok := q["query"].(string); ok {
			if m := labelValues.FindStringSubmatch(s); m != nil {
				out = append(out, expr{where: fmt.Sprintf("dashboard variable %q", v.Name), text: m[1]})
			}
		}
	}
	return out
}

// ruleExprs returns the expression of every rule of the PrometheusRule.
func ruleExprs(t *testing.T) []expr {
	t.Helper()
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert string `json:"alert"`
					Expr  string `json:"expr"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(readRepoFile(t, "config", "prometheus", "rules", "prometheus_rule.yaml"), &rule); err != nil {
		t.Fatalf("decoding the PrometheusRule: %v", err)
	}
	var out []expr
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			out = append(out, expr{where: fmt.Sprintf("alert %s", r.Alert), text: r.Expr})
		}
	}
	return out
}

// metricNamesOf parses exprs with Prometheus' parser (hack/tools/promtool/promqlnames) and returns the
// metric names of each; it fails the test when one does not parse.
func metricNamesOf(t *testing.T, exprs []expr) [][]string {
	t.Helper()
	texts := make([]string, len(exprs))
	for i, e := range exprs {
		texts[i] = e.text
	}
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./promqlnames")
	cmd.Dir = filepath.Join(repoRoot(t), "hack", "tools", "promtool")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run ./promqlnames in hack/tools/promtool: %v\n%s", err, stderr.String())
	}
	var names [][]string
	if err := json.Unmarshal(stdout.Bytes(), &names); err != nil || len(names) != len(exprs) {
		t.Fatalf("promqlnames printed %q (%v); want %d lists of names", stdout.String(), err, len(exprs))
	}
	return names
}

// exportedNames returns every series name the operator's metrics endpoint can serve: ours, and what
// controller-runtime's registry holds once a controller has reconciled, its workqueue has run and a
// leader elector exists; histograms also by their _bucket, _sum and _count series.
func exportedNames(t *testing.T) map[string]bool {
	t.Helper()
	runController(t)
	newLeaderElector(t)
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatalf("gathering controller-runtime's registry: %v", err)
	}
	names := map[string]bool{}
	addHistogram := func(n string) {
		for _, s := range []string{"", "_bucket", "_sum", "_count"} {
			names[n+s] = true
		}
	}
	for _, f := range families {
		names[f.GetName()] = true
		if f.GetType() == dto.MetricType_HISTOGRAM {
			addHistogram(f.GetName())
		}
	}
	for _, n := range opmetrics.MetricNames() {
		names[n] = true
	}
	for _, n := range operatorHistograms {
		addHistogram(n)
	}
	return names
}

// runController starts a controller named like ours (controllers.ControllerName) without a manager, feeds
// it one request and waits for its reconcile, so that the reconcile and workqueue metrics have series.
func runController(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	reconciled := make(chan struct{}, 1)
	c, err := controller.NewUnmanaged(controllers.ControllerName, controller.Options{
		SkipNameValidation: new(true),
		Reconciler: reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			select {
			case reconciled <- struct{}{}:
			default:
			}
			return reconcile.Result{}, nil
		}),
	})
	if err != nil {
		t.Fatalf("creating a controller: %v", err)
	}
	events := make(chan event.GenericEvent, 1)
	if err := c.Watch(source.Channel(events, &handler.EnqueueRequestForObject{})); err != nil {
		t.Fatalf("watching a channel: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	events <- event.GenericEvent{Object: client.Object(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "probe"}})}
	select {
	case <-reconciled:
	case <-ctx.Done():
		t.Fatal("the controller did not reconcile within a minute")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("the controller stopped with %v", err)
	}
}

// newLeaderElector creates (and does not run) a leader elector for our Lease: client-go reports it as not
// leading, which gives leader_election_master_status{name=leaseName} its series.
func newLeaderElector(t *testing.T) {
	t.Helper()
	_, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: "ns", Name: leaseName},
			Client:     fake.NewClientset().CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: "test"},
		},
		LeaseDuration: 15 * time.Second,
		RenewDeadline: 10 * time.Second,
		RetryPeriod:   2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) {},
			OnStoppedLeading: func() {},
		},
		Name: leaseName,
	})
	if err != nil {
		t.Fatalf("creating a leader elector: %v", err)
	}
}

func readRepoFile(t *testing.T, elem ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{repoRoot(t)}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// repoRoot is the repository's root, found from this file's path so that no test depends on the working
// directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the path of names_test.go")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}
