package monitoring

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	opmetrics "github.com/cronjob-operator/cronjob-operator/controllers/metrics"
)

// ksmConfig is config/kube-state-metrics/custom-resource-state.yaml as far as these tests read it: the keys of
// kube-state-metrics' CustomResourceState configuration that the file uses (decoded strictly, so a new key
// must be added here, and a misspelt one fails).
type ksmConfig struct {
	Kind string `json:"kind"`
	Spec struct {
		Resources []ksmResource `json:"resources"`
	} `json:"spec"`
}

type ksmResource struct {
	GroupVersionKind struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
	} `json:"groupVersionKind"`
	MetricNamePrefix string              `json:"metricNamePrefix"`
	ErrorLogV        int                 `json:"errorLogV"`
	LabelsFromPath   map[string][]string `json:"labelsFromPath"`
	Metrics          []ksmMetric         `json:"metrics"`
}

type ksmMetric struct {
	Name           string              `json:"name"`
	Help           string              `json:"help"`
	LabelsFromPath map[string][]string `json:"labelsFromPath"`
	Each           struct {
		Type     string   `json:"type"`
		Gauge    *ksmEach `json:"gauge"`
		Info     *ksmEach `json:"info"`
		StateSet *ksmEach `json:"stateSet"`
	} `json:"each"`
}

// ksmEach is the union of each.gauge, each.info and each.stateSet.
type ksmEach struct {
	Path           []string            `json:"path"`
	ValueFrom      []string            `json:"valueFrom"`
	LabelsFromPath map[string][]string `json:"labelsFromPath"`
	NilIsZero      bool                `json:"nilIsZero"`
	LabelName      string              `json:"labelName"`
	List           []string            `json:"list"`
}

// each is the metric's one configured type.
func (m ksmMetric) each() *ksmEach {
	switch {
	case m.Each.Gauge != nil:
		return m.Each.Gauge
	case m.Each.Info != nil:
		return m.Each.Info
	default:
		return m.Each.StateSet
	}
}

// TestKSMConfigPathsAreInTheCRDs reads every path of the kube-state-metrics configuration in the schema of
// the generated CRDs (config/crd/bases), the way KSM resolves it, so that renaming or retyping an API field
// fails here even where make check-ksm (KSM's own code, hack/tools/ksm) does not run. Values must be numbers,
// booleans or RFC 3339 times, labels scalars, and a StateSet's list the enum of the field it reads.
func TestKSMConfigPathsAreInTheCRDs(t *testing.T) {
	cfg := readKSMConfig(t)
	schemas := crdSchemas(t)
	if len(cfg.Spec.Resources) != 2 {
		t.Errorf("the configuration has %d resources; want 2 (CronJob, CronJobRun)", len(cfg.Spec.Resources))
	}
	for _, r := range cfg.Spec.Resources {
		gvk := r.GroupVersionKind
		root, ok := schemas[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind]
		if !ok {
			t.Errorf("no CRD of config/crd/bases serves %s/%s %s", gvk.Group, gvk.Version, gvk.Kind)
			continue
		}
		for label, path := range r.LabelsFromPath {
			checkLabel(t, gvk.Kind+" labelsFromPath."+label, root, path)
		}
		for _, m := range r.Metrics {
			where := gvk.Kind + " " + m.Name
			for label, path := range m.LabelsFromPath {
				checkLabel(t, where+" labelsFromPath."+label, root, path)
			}
			checkEach(t, where, m, root)
		}
	}
}

// TestKSMConfigNamesAndLabels checks the naming contract of the configuration's header: no metric has a name
// the operator exports, and every CronJob series has the labels namespace and cronjob of the operator's
// state metrics, from the same fields.
func TestKSMConfigNamesAndLabels(t *testing.T) {
	cfg := readKSMConfig(t)
	ours := map[string]bool{}
	for _, n := range opmetrics.MetricNames() {
		ours[n] = true
	}
	for _, r := range cfg.Spec.Resources {
		if !strings.HasPrefix(r.MetricNamePrefix, "kube_") {
			t.Errorf("%s: metricNamePrefix %q; want one that begins kube_, as KSM's own", r.GroupVersionKind.Kind, r.MetricNamePrefix)
		}
		for _, m := range r.Metrics {
			if name := r.MetricNamePrefix + "_" + m.Name; ours[name] {
				t.Errorf("%s is also the name of one of the operator's metrics", name)
			}
		}
		for label, path := range map[string][]string{"namespace": {"metadata", "namespace"}, "cronjob": {"metadata", "name"}} {
			if r.GroupVersionKind.Kind == "CronJobRun" && label == "cronjob" {
				path = []string{"spec", "cronJobName"}
			}
			if got := r.LabelsFromPath[label]; !slices.Equal(got, path) {
				t.Errorf("%s: label %s from %v; want %v", r.GroupVersionKind.Kind, label, got, path)
			}
		}
	}
}

// checkEach checks the path, valueFrom and labels of a metric's each: valueFrom and the labels are read from
// the value at path, from each element when it is a list.
func checkEach(t *testing.T, where string, m ksmMetric, root *apiextensionsv1.JSONSchemaProps) {
	t.Helper()
	e := m.each()
	if e == nil {
		t.Errorf("%s: no gauge, info or stateSet", where)
		return
	}
	at, err := resolve(root, e.Path)
	if err != nil {
		t.Errorf("%s: path %v: %v", where, e.Path, err)
		return
	}
	elem := at
	if at.Type == "array" {
		elem = at.Items.Schema
	}
	for label, path := range e.LabelsFromPath {
		checkLabel(t, where+" each labelsFromPath."+label, elem, path)
	}
	if at.Type == "object" && m.Each.StateSet == nil {
		checkNoFieldAnswers(t, where, at, e)
	}
	switch {
	case m.Each.Info != nil:
		if len(e.LabelsFromPath) == 0 {
			t.Errorf("%s: an Info without labelsFromPath writes no series", where)
		}
	case m.Each.Gauge != nil:
		v, err := resolve(elem, e.ValueFrom)
		if err != nil {
			t.Errorf("%s: valueFrom %v: %v", where, e.ValueFrom, err)
		} else if !isNumeric(v) {
			t.Errorf("%s: the value at %v %v is a %s; KSM writes numbers, booleans and RFC 3339 times", where, e.Path, e.ValueFrom, v.Type)
		}
	default:
		v, err := resolve(elem, e.ValueFrom)
		if err != nil {
			t.Errorf("%s: valueFrom %v: %v", where, e.ValueFrom, err)
			return
		}
		if got, want := sorted(e.List), sorted(enumOf(v)); !slices.Equal(got, want) {
			t.Errorf("%s: list %v; want the enum of %v %v, %v", where, got, e.Path, e.ValueFrom, want)
		}
	}
}

// checkNoFieldAnswers guards against a trap of KSM's Info and Gauge on an object: besides the object itself,
// KSM reads the labels (and a Gauge's valueFrom) from each of its fields, and a field that has such a field
// of its own adds a series (with nilIsZero, every field adds a 0).
func checkNoFieldAnswers(t *testing.T, where string, at *apiextensionsv1.JSONSchemaProps, e *ksmEach) {
	t.Helper()
	if e.NilIsZero {
		t.Errorf("%s: nilIsZero with a path to an object writes a 0 for each of its fields; give the field's path instead", where)
	}
	firsts := map[string]bool{}
	if len(e.ValueFrom) > 0 {
		firsts[e.ValueFrom[0]] = true
	}
	for _, p := range e.LabelsFromPath {
		if len(p) > 0 {
			firsts[p[0]] = true
		}
	}
	for name, field := range at.Properties {
		for first := range firsts {
			if _, ok := field.Properties[first]; ok {
				t.Errorf("%s: %s has a field %s too, so KSM writes a series for it as well", where, name, first)
			}
		}
	}
}

func checkLabel(t *testing.T, where string, root *apiextensionsv1.JSONSchemaProps, path []string) {
	t.Helper()
	s, err := resolve(root, path)
	if err != nil {
		t.Errorf("%s: %v: %v", where, path, err)
		return
	}
	if s.Type != "string" && s.Type != "integer" && s.Type != "boolean" {
		t.Errorf("%s: %v is a %s; a label needs a scalar", where, path, s.Type)
	}
}

// resolve walks path from s as KSM does: a name selects a field of an object (or a key of a map), a number
// an element of a list and [key=value] the element of a list whose field key has that value.
func resolve(s *apiextensionsv1.JSONSchemaProps, path []string) (*apiextensionsv1.JSONSchemaProps, error) {
	for i, part := range path {
		switch {
		case s.Type == "array":
			item := s.Items.Schema
			if strings.HasPrefix(part, "[") && strings.HasSuffix(part, "]") {
				key, _, ok := strings.Cut(part[1:len(part)-1], "=")
				if _, has := item.Properties[key]; !ok || !has {
					return nil, fmt.Errorf("%s: no field %q in the elements of %v", part, key, path[:i])
				}
			} else if _, err := strconv.Atoi(part); err != nil {
				return nil, fmt.Errorf("%v is a list: %q selects nothing in it", path[:i], part)
			}
			s = item
		case s.Type == "object" && s.Properties != nil:
			p, ok := s.Properties[part]
			if !ok {
				return nil, fmt.Errorf("no field %q in %v", part, path[:i])
			}
			s = &p
		case s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
			s = s.AdditionalProperties.Schema
		default:
			return nil, fmt.Errorf("%v is a %s: %q selects nothing in it", path[:i], s.Type, part)
		}
	}
	return s, nil
}

// isNumeric reports whether KSM turns a value of the schema into a number: a number, a boolean or an
// RFC 3339 time.
func isNumeric(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.Type == "integer" || s.Type == "number" || s.Type == "boolean" || (s.Type == "string" && s.Format == "date-time")
}

func enumOf(s *apiextensionsv1.JSONSchemaProps) []string {
	var out []string
	for _, v := range s.Enum {
		var str string
		if err := yaml.Unmarshal(v.Raw, &str); err == nil {
			out = append(out, str)
		}
	}
	return out
}

func sorted(s []string) []string {
	return slices.Sorted(slices.Values(s))
}

// objectMeta is the schema of the metadata fields the configuration may read: a CRD's schema says only
// that metadata is an object.
var objectMeta = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
	"name":              {Type: "string"},
	"namespace":         {Type: "string"},
	"uid":               {Type: "string"},
	"creationTimestamp": {Type: "string", Format: "date-time"},
	"labels":            {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
	// The annotations the operator sets whose values are RFC 3339 times (api/v1).
	"annotations": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"batch.cronjob-operator.dev/paused-at": {Type: "string", Format: "date-time"},
	}},
}}

// crdSchemas reads the schema of every version of every CRD of config/crd/bases, by group/version/kind, with
// metadata's fields (objectMeta).
func crdSchemas(t *testing.T) map[string]*apiextensionsv1.JSONSchemaProps {
	t.Helper()
	out := map[string]*apiextensionsv1.JSONSchemaProps{}
	for _, file := range []string{"batch.cronjob-operator.dev_cronjobs.yaml", "batch.cronjob-operator.dev_cronjobruns.yaml"} {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(readRepoFile(t, "config", "crd", "bases", file), &crd); err != nil {
			t.Fatalf("decoding %s: %v", file, err)
		}
		for _, v := range crd.Spec.Versions {
			root := v.Schema.OpenAPIV3Schema.DeepCopy()
			root.Properties["metadata"] = objectMeta
			out[crd.Spec.Group+"/"+v.Name+"/"+crd.Spec.Names.Kind] = root
		}
	}
	return out
}

func readKSMConfig(t *testing.T) ksmConfig {
	t.Helper()
	var cfg ksmConfig
	if err := yaml.UnmarshalStrict(readRepoFile(t, "config", "kube-state-metrics", "custom-resource-state.yaml"), &cfg); err != nil {
		t.Fatalf("decoding config/kube-state-metrics/custom-resource-state.yaml: %v", err)
	}
	if cfg.Kind != "CustomResourceStateMetrics" {
		t.Errorf("kind %q; want CustomResourceStateMetrics", cfg.Kind)
	}
	return cfg
}
