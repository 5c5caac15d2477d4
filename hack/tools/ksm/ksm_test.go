package ksm

import (
	"bytes"
	"embed"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"
	"k8s.io/kube-state-metrics/v2/pkg/customresource"
	"k8s.io/kube-state-metrics/v2/pkg/customresourcestate"
	"k8s.io/kube-state-metrics/v2/pkg/metric"
	generator "k8s.io/kube-state-metrics/v2/pkg/metric_generator"
	metricsstore "k8s.io/kube-state-metrics/v2/pkg/metrics_store"
	"sigs.k8s.io/yaml"
	goyaml "sigs.k8s.io/yaml/goyaml.v3"
)

// The files under test, relative to the repository's root.
var (
	configFile      = []string{"config", "kube-state-metrics", "custom-resource-state.yaml"}
	clusterRoleFile = []string{"config", "kube-state-metrics", "cluster_role.yaml"}
	cronJobSample   = []string{"config", "samples", "batch_v1_cronjob.yaml"}
	runSample       = []string{"config", "samples", "batch_v1_cronjobrun.yaml"}
)

// overlays are merged into the samples: metadata KSM's store needs (uid) and the status of each case.
//
//go:embed testdata/*.yaml
var overlays embed.FS

// The labels KSM adds to every series of a kind (customresource_*), written $CJ and $CJR in expectations.
var gvkLabels = strings.NewReplacer(
	"$CJR", `customresource_group="batch.cronjob-operator.dev",customresource_kind="CronJobRun",customresource_version="v1"`,
	"$CJ", `customresource_group="batch.cronjob-operator.dev",customresource_kind="CronJob",customresource_version="v1"`,
)

// TestMain silences KSM's log: it logs the families of every resource it compiles, at info level.
func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

func TestMetricLines(t *testing.T) {
	factories := loadFactories(t)
	tests := map[string]struct {
		// object: a sample of config/samples with an overlay of testdata merged in
		kind    string
		sample  []string
		overlay string
		// expectations: every sample line KSM writes, in its order (families in the configuration's order,
		// series sorted by labels)
		want []string
	}{
		"CronJob with every field the configuration reads": {
			kind:    "CronJob",
			sample:  cronJobSample,
			overlay: "cronjob-full-status.yaml",
			want: []string{
				`kube_cronjob_operator_cronjob_info{concurrency_policy="Forbid",cronjob="hello",$CJ,namespace="default",schedule="* * * * *",time_zone="Europe/Berlin"} 1`,
				`kube_cronjob_operator_cronjob_created{cronjob="hello",$CJ,namespace="default"} 1.7934912e+09`,
				`kube_cronjob_operator_cronjob_spec_suspend{cronjob="hello",$CJ,namespace="default"} 0`,
				`kube_cronjob_operator_cronjob_status_last_schedule_time{cronjob="hello",$CJ,namespace="default"} 1.7961192e+09`,
				`kube_cronjob_operator_cronjob_status_last_successful_time{cronjob="hello",$CJ,namespace="default"} 1.796115605e+09`,
				`kube_cronjob_operator_cronjob_status_last_failure_time{cronjob="hello",$CJ,namespace="default"} 1.796112007e+09`,
				`kube_cronjob_operator_cronjob_status_next_schedule_time{cronjob="hello",$CJ,namespace="default"} 1.79611926e+09`,
				`kube_cronjob_operator_cronjob_status_active_job_info{cronjob="hello",$CJ,job_name="hello-29935319",namespace="default"} 1`,
				`kube_cronjob_operator_cronjob_status_active_job_info{cronjob="hello",$CJ,job_name="hello-29935320",namespace="default"} 1`,
				`kube_cronjob_operator_cronjob_status_queued_run_scheduled_time{cronjob="hello",$CJ,namespace="default",scheduled_time="2026-12-01T09:58:00Z"} 1.79611908e+09`,
				`kube_cronjob_operator_cronjob_status_queued_run_scheduled_time{cronjob="hello",$CJ,namespace="default",scheduled_time="2026-12-01T09:59:00Z"} 1.79611914e+09`,
				`kube_cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hello",$CJ,namespace="default",reason="NoRecentSuccess",status="False"} 1`,
				`kube_cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hello",$CJ,namespace="default",reason="NoRecentSuccess",status="True"} 0`,
				`kube_cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hello",$CJ,namespace="default",reason="NoRecentSuccess",status="Unknown"} 0`,
				`kube_cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="hello",$CJ,namespace="default",reason="Scheduled",status="False"} 0`,
				`kube_cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="hello",$CJ,namespace="default",reason="Scheduled",status="True"} 1`,
				`kube_cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="hello",$CJ,namespace="default",reason="Scheduled",status="Unknown"} 0`,
				`kube_cronjob_operator_cronjob_spec_run_timeout_seconds{cronjob="hello",$CJ,namespace="default"} 600`,
				`kube_cronjob_operator_cronjob_spec_start_timeout_seconds{cronjob="hello",$CJ,namespace="default"} 120`,
				`kube_cronjob_operator_cronjob_spec_success_deadline_seconds{cronjob="hello",$CJ,namespace="default"} 7200`,
				`kube_cronjob_operator_cronjob_status_consecutive_failures{cronjob="hello",$CJ,namespace="default"} 2`,
				`kube_cronjob_operator_cronjob_status_succeeded_runs{cronjob="hello",$CJ,namespace="default"} 40`,
				`kube_cronjob_operator_cronjob_status_failed_runs{cronjob="hello",$CJ,namespace="default"} 3`,
			},
		},
		"CronJob as created, no status yet": {
			kind:    "CronJob",
			sample:  cronJobSample,
			overlay: "cronjob-new.yaml",
			want: []string{
				`kube_cronjob_operator_cronjob_info{concurrency_policy="Forbid",cronjob="hello",$CJ,namespace="default",schedule="* * * * *"} 1`,
				`kube_cronjob_operator_cronjob_created{cronjob="hello",$CJ,namespace="default"} 1.7934912e+09`,
				`kube_cronjob_operator_cronjob_spec_suspend{cronjob="hello",$CJ,namespace="default"} 0`,
				`kube_cronjob_operator_cronjob_status_consecutive_failures{cronjob="hello",$CJ,namespace="default"} 0`,
				`kube_cronjob_operator_cronjob_status_succeeded_runs{cronjob="hello",$CJ,namespace="default"} 0`,
				`kube_cronjob_operator_cronjob_status_failed_runs{cronjob="hello",$CJ,namespace="default"} 0`,
			},
		},
		"CronJob paused after failures": {
			kind:    "CronJob",
			sample:  cronJobSample,
			overlay: "cronjob-paused.yaml",
			want: []string{
				`kube_cronjob_operator_cronjob_info{concurrency_policy="Forbid",cronjob="hello",$CJ,namespace="default",schedule="* * * * *"} 1`,
				`kube_cronjob_operator_cronjob_created{cronjob="hello",$CJ,namespace="default"} 1.7934912e+09`,
				`kube_cronjob_operator_cronjob_spec_suspend{cronjob="hello",$CJ,namespace="default"} 1`,
				`kube_cronjob_operator_cronjob_status_last_schedule_time{cronjob="hello",$CJ,namespace="default"} 1.7961192e+09`,
				`kube_cronjob_operator_cronjob_status_last_failure_time{cronjob="hello",$CJ,namespace="default"} 1.79611923e+09`,
				`kube_cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="hello",$CJ,namespace="default",reason="PausedAfterFailures",status="False"} 1`,
				`kube_cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="hello",$CJ,namespace="default",reason="PausedAfterFailures",status="True"} 0`,
				`kube_cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="hello",$CJ,namespace="default",reason="PausedAfterFailures",status="Unknown"} 0`,
				`kube_cronjob_operator_cronjob_paused_time{cronjob="hello",$CJ,namespace="default"} 1.79611923e+09`,
				`kube_cronjob_operator_cronjob_status_consecutive_failures{cronjob="hello",$CJ,namespace="default"} 3`,
				`kube_cronjob_operator_cronjob_status_succeeded_runs{cronjob="hello",$CJ,namespace="default"} 0`,
				`kube_cronjob_operator_cronjob_status_failed_runs{cronjob="hello",$CJ,namespace="default"} 3`,
			},
		},
		"CronJobRun that succeeded": {
			kind:    "CronJobRun",
			sample:  runSample,
			overlay: "cronjobrun-succeeded.yaml",
			want: []string{
				`kube_cronjob_operator_cronjobrun_created{cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default"} 1.7961192e+09`,
				`kube_cronjob_operator_cronjobrun_status_phase{cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default",phase="Failed"} 0`,
				`kube_cronjob_operator_cronjobrun_status_phase{cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default",phase="Pending"} 0`,
				`kube_cronjob_operator_cronjobrun_status_phase{cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default",phase="Rejected"} 0`,
				`kube_cronjob_operator_cronjobrun_status_phase{cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default",phase="Running"} 0`,
				`kube_cronjob_operator_cronjobrun_status_phase{cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default",phase="Succeeded"} 1`,
				`kube_cronjob_operator_cronjobrun_status_condition{condition="Ready",cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default",reason="Succeeded",status="False"} 0`,
				`kube_cronjob_operator_cronjobrun_status_condition{condition="Ready",cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default",reason="Succeeded",status="True"} 1`,
				`kube_cronjob_operator_cronjobrun_status_condition{condition="Ready",cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default",reason="Succeeded",status="Unknown"} 0`,
				`kube_cronjob_operator_cronjobrun_status_start_time{cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default"} 1.796119201e+09`,
				`kube_cronjob_operator_cronjobrun_status_completion_time{cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default"} 1.796119209e+09`,
			},
		},
		"CronJobRun as created, no status yet": {
			kind:    "CronJobRun",
			sample:  runSample,
			overlay: "cronjobrun-new.yaml",
			want: []string{
				`kube_cronjob_operator_cronjobrun_created{cronjob="hello",cronjobrun="hello-manual",$CJR,namespace="default"} 1.7961192e+09`,
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			obj := sampleWith(t, tc.sample, tc.overlay)
			want := make([]string, len(tc.want))
			for i, l := range tc.want {
				want[i] = gvkLabels.Replace(l)
			}
			got := scrape(t, factories[tc.kind], obj)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("metric lines (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestFamilies(t *testing.T) {
	factories := loadFactories(t)
	want := map[string][]string{
		"CronJob": {
			"kube_cronjob_operator_cronjob_info info",
			"kube_cronjob_operator_cronjob_created gauge",
			"kube_cronjob_operator_cronjob_spec_suspend gauge",
			"kube_cronjob_operator_cronjob_status_last_schedule_time gauge",
			"kube_cronjob_operator_cronjob_status_last_successful_time gauge",
			"kube_cronjob_operator_cronjob_status_last_failure_time gauge",
			"kube_cronjob_operator_cronjob_status_next_schedule_time gauge",
			"kube_cronjob_operator_cronjob_status_active_job_info info",
			"kube_cronjob_operator_cronjob_status_queued_run_scheduled_time gauge",
			"kube_cronjob_operator_cronjob_status_condition stateset",
			"kube_cronjob_operator_cronjob_spec_run_timeout_seconds gauge",
			"kube_cronjob_operator_cronjob_spec_start_timeout_seconds gauge",
			"kube_cronjob_operator_cronjob_spec_success_deadline_seconds gauge",
			"kube_cronjob_operator_cronjob_paused_time gauge",
			"kube_cronjob_operator_cronjob_status_consecutive_failures gauge",
			"kube_cronjob_operator_cronjob_status_succeeded_runs gauge",
			"kube_cronjob_operator_cronjob_status_failed_runs gauge",
		},
		"CronJobRun": {
			"kube_cronjob_operator_cronjobrun_created gauge",
			"kube_cronjob_operator_cronjobrun_status_phase stateset",
			"kube_cronjob_operator_cronjobrun_status_condition stateset",
			"kube_cronjob_operator_cronjobrun_status_start_time gauge",
			"kube_cronjob_operator_cronjobrun_status_completion_time gauge",
		},
	}
	for kind, f := range factories {
		var got []string
		for _, g := range f.MetricFamilyGenerators() {
			got = append(got, g.Name+" "+string(g.Type))
		}
		if diff := cmp.Diff(want[kind], got); diff != "" {
			t.Errorf("%s: families (-want,+got):\n%s", kind, diff)
		}
	}
	if len(factories) != len(want) {
		t.Errorf("the configuration has resources for %d kinds; want %d", len(factories), len(want))
	}
}

// TestConfigHasOnlyKnownKeys catches a misspelt key, which KSM's decoder would ignore (so a label or an
// option would silently be missing).
func TestConfigHasOnlyKnownKeys(t *testing.T) {
	var cfg struct {
		Kind string                          `yaml:"kind"`
		Spec customresourcestate.MetricsSpec `yaml:"spec"`
	}
	dec := goyaml.NewDecoder(bytes.NewReader(readRepoFile(t, configFile...)))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Kind != "CustomResourceStateMetrics" {
		t.Errorf("kind is %q; want CustomResourceStateMetrics", cfg.Kind)
	}
}

func TestClusterRoleLetsKSMListAndWatch(t *testing.T) {
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(readRepoFile(t, clusterRoleFile...), &role); err != nil {
		t.Fatal(err)
	}
	allows := func(group, resource string) bool {
		for _, r := range role.Rules {
			if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) &&
				slices.Contains(r.Verbs, "list") && slices.Contains(r.Verbs, "watch") {
				return true
			}
		}
		return false
	}
	// KSM discovers the resources of the configuration through their CustomResourceDefinitions.
	if !allows("apiextensions.k8s.io", "customresourcedefinitions") {
		t.Error("the ClusterRole does not let KSM list and watch customresourcedefinitions")
	}
	for kind, f := range loadFactories(t) {
		if !allows("batch.cronjob-operator.dev", f.Name()) {
			t.Errorf("the ClusterRole does not let KSM list and watch %s (%s)", f.Name(), kind)
		}
	}
}

// loadFactories reads the configuration as KSM's server does (goyaml.v3's decoder; FromConfig must accept
// it) and compiles each resource with customresourcestate.NewCustomResourceMetrics, by kind. It skips
// FromConfig's discovery of the resources in a cluster, which only resolves wildcards and plurals; the metric
// types are lower-cased as FromConfig does (its unexported configOverrides), since the compiler expects that.
func loadFactories(t *testing.T) map[string]customresource.RegistryFactory {
	t.Helper()
	data := readRepoFile(t, configFile...)
	if _, err := customresourcestate.FromConfig(goyaml.NewDecoder(bytes.NewReader(data)), nil); err != nil {
		t.Fatalf("KSM refuses %s: %v", filepath.Join(configFile...), err)
	}
	var cfg customresourcestate.Metrics
	if err := goyaml.NewDecoder(bytes.NewReader(data)).Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	out := map[string]customresource.RegistryFactory{}
	for _, r := range cfg.Spec.Resources {
		for i := range r.Metrics {
			r.Metrics[i].Each.Type = metric.Type(strings.ToLower(string(r.Metrics[i].Each.Type)))
		}
		f, err := customresourcestate.NewCustomResourceMetrics(r)
		if err != nil {
			t.Fatalf("compiling the metrics of %s: %v", r.GroupVersionKind, err)
		}
		out[r.GroupVersionKind.Kind] = f
	}
	return out
}

// scrape writes the metrics of obj as KSM's metrics handler does for a store its reflector filled: the
// family generators composed into a metrics store, written by a metrics writer. It returns the sample lines,
// without the HELP and TYPE lines (TestFamilies checks the names and types).
func scrape(t *testing.T, f customresource.RegistryFactory, obj *unstructured.Unstructured) []string {
	t.Helper()
	gens := f.MetricFamilyGenerators()
	store := metricsstore.NewMetricsStore(generator.ExtractMetricFamilyHeaders(gens), generator.ComposeMetricGenFuncs(gens))
	if err := store.Add(obj); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := metricsstore.NewMetricsWriter(store).WriteAll(&out); err != nil {
		t.Fatal(err)
	}
	var samples []string
	for l := range strings.SplitSeq(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if !strings.HasPrefix(l, "#") {
			samples = append(samples, l)
		}
	}
	return samples
}

// sampleWith is the sample at path (from the repository's root) with the overlay of testdata merged in.
func sampleWith(t *testing.T, path []string, overlay string) *unstructured.Unstructured {
	t.Helper()
	var obj, over map[string]any
	if err := yaml.Unmarshal(readRepoFile(t, path...), &obj); err != nil {
		t.Fatal(err)
	}
	data, err := overlays.ReadFile("testdata/" + overlay)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &over); err != nil {
		t.Fatal(err)
	}
	merge(obj, over)
	return &unstructured.Unstructured{Object: obj}
}

// merge sets the fields of src in dst, merging objects and replacing everything else.
func merge(dst, src map[string]any) {
	for k, v := range src {
		sub, isObj := v.(map[string]any)
		cur, hasObj := dst[k].(map[string]any)
		if isObj && hasObj {
			merge(cur, sub)
			continue
		}
		dst[k] = v
	}
}

// readRepoFile reads a file of the repository, found from this file's path so that no test depends on the
// working directory.
func readRepoFile(t *testing.T, elem ...string) []byte {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the path of ksm_test.go")
	}
	data, err := os.ReadFile(filepath.Join(append([]string{filepath.Dir(self), "..", "..", ".."}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
