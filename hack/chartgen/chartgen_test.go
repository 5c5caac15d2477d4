package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	gotemplate "text/template"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// The builds of a config/ with one Deployment, the webhook certificate's Secret and, in the full build, an
// Issuer and the flag config/certmanager adds.
const (
	baseBuild = `apiVersion: v1
kind: Namespace
metadata:
  name: op-system
---
apiVersion: v1
kind: Secret
metadata:
  name: op-webhook-server-cert
  namespace: op-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app.kubernetes.io/managed-by: kustomize
  name: op-controller-manager
  namespace: op-system
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: manager
        image: registry.example:5000/op:v1
        args:
        - --leader-elect
        - --metrics-bind-address=:8443
        - --enable-webhooks
        - --webhook-cert-secret=op-webhook-server-cert
        - --enable-http2=false
        resources:
          limits:
            memory: 1Gi
`
	fullExtra = `---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: op-selfsigned-issuer
  namespace: op-system
`
)

func mustDecode(t *testing.T, text string) []object {
	t.Helper()
	objs, err := decodeObjects([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func TestNewChart(t *testing.T) {
	full := strings.Replace(baseBuild, "        - --enable-http2=false\n", "        - --enable-http2=false\n        - --webhook-cert-rotation=false\n", 1) + fullExtra
	c, err := newChart(mustDecode(t, baseBuild), mustDecode(t, full))
	if err != nil {
		t.Fatal(err)
	}

	wantValues := values{
		ImageRepository: "registry.example:5000/op", ImageTag: "v1", Replicas: 2,
		Resources:      map[string]any{"limits": map[string]any{"memory": "1Gi"}},
		LeaderElection: true, Webhooks: true, Metrics: true,
	}
	if diff := cmp.Diff(wantValues, c.values); diff != "" {
		t.Errorf("values (-want,+got):\n%s", diff)
	}
	var files []string
	for f := range c.files {
		files = append(files, f)
	}
	if diff := cmp.Diff([]string{"certmanager/issuer-selfsigned-issuer.yaml", "manager/deployment-controller-manager.yaml",
		"webhook/secret-webhook-server-cert.yaml"}, sortedStrings(files)); diff != "" {
		t.Errorf("files (-want,+got):\n%s", diff)
	}

	deploy := c.files["manager/deployment-controller-manager.yaml"]
	for _, want := range []string{
		"  namespace: {{ $.Release.Namespace }}\n",
		"  replicas: {{ $.Values.replicas }}\n",
		"image: {{ $.Values.image.repository }}:{{ $.Values.image.tag }}\n",
		"{{- if $.Values.webhooks.enabled }}\n            - --enable-webhooks\n            - --webhook-cert-secret={{ include \"cronjob-operator.fullname\" $ }}-webhook-server-cert\n            {{- end }}\n",
		"{{- if (and $.Values.webhooks.enabled $.Values.certManager.enabled) }}\n            - --webhook-cert-rotation=false\n",
		"{{- toYaml $.Values.resources | nindent 12 }}",
	} {
		if !strings.Contains(deploy, want) {
			t.Errorf("the Deployment's template lacks %q:\n%s", want, deploy)
		}
	}
	for _, unwanted := range []string{"--enable-http2=false", "managed-by: kustomize", "op-system", "zzchartgen"} {
		if strings.Contains(deploy, unwanted) {
			t.Errorf("the Deployment's template has %q:\n%s", unwanted, deploy)
		}
	}
	if issuer := c.files["certmanager/issuer-selfsigned-issuer.yaml"]; !strings.HasPrefix(issuer, "{{- if "+condOwnIssuer+" }}\n") {
		t.Errorf("the Issuer is not behind certManager.enabled and an empty certManager.issuerRef:\n%s", issuer)
	}
}

func TestNewChartRejectsAnUnknownOptionalObject(t *testing.T) {
	full := baseBuild + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: op-extra\n  namespace: op-system\n"
	if _, err := newChart(mustDecode(t, baseBuild), mustDecode(t, full)); err == nil {
		t.Fatal("newChart accepted a ConfigMap only in the full build, which no value turns on")
	}
}

func TestByKeyIgnoresWhatHelmAdds(t *testing.T) {
	rendered := mustDecode(t, `apiVersion: v1
kind: Service
metadata:
  annotations:
    helm.sh/resource-policy: keep
  labels:
    app.kubernetes.io/name: op
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: op-0.1.0
  name: op-svc
  namespace: op-system
`)
	built := mustDecode(t, `apiVersion: v1
kind: Namespace
metadata:
  name: op-system
---
apiVersion: v1
kind: Service
metadata:
  labels:
    app.kubernetes.io/name: op
    app.kubernetes.io/managed-by: kustomize
  name: op-svc
  namespace: op-system
`)
	if diff := cmp.Diff(byKey(built), byKey(rendered)); diff != "" {
		t.Errorf("(-built,+rendered):\n%s", diff)
	}
	rendered[0].metadata()["labels"].(map[string]any)["app.kubernetes.io/name"] = "other"
	if cmp.Equal(byKey(built), byKey(rendered)) {
		t.Error("a changed label of config/'s own is not a difference")
	}
}

func TestMergeGates(t *testing.T) {
	cases := map[string]struct {
		in, want []string
	}{
		"adjacent items of one condition share a gate": {
			in:   []string{"  {{- if A }}", "  - a", "  {{- end }}", "  {{- if A }}", "  - b", "  {{- end }}"},
			want: []string{"  {{- if A }}", "  - a", "  - b", "  {{- end }}"},
		},
		"items of two conditions keep theirs": {
			in:   []string{"  {{- if A }}", "  - a", "  {{- end }}", "  {{- if B }}", "  - b", "  {{- end }}"},
			want: []string{"  {{- if A }}", "  - a", "  {{- end }}", "  {{- if B }}", "  - b", "  {{- end }}"},
		},
		"an item between them keeps both gates": {
			in:   []string{"  {{- if A }}", "  - a", "  {{- end }}", "  - x", "  {{- if A }}", "  - b", "  {{- end }}"},
			want: []string{"  {{- if A }}", "  - a", "  {{- end }}", "  - x", "  {{- if A }}", "  - b", "  {{- end }}"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, mergeGates(tc.in)); diff != "" {
				t.Errorf("(-want,+got):\n%s", diff)
			}
		})
	}
}

func sortedStrings(s []string) []string {
	m := map[string]any{}
	for _, e := range s {
		m[e] = nil
	}
	return sortedKeys(m)
}

func TestNewChartInstallsAnUnknownObjectOfTheDefaultBuild(t *testing.T) {
	build := baseBuild + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: op-extra\n  namespace: op-system\n"
	c, err := newChart(mustDecode(t, build), mustDecode(t, build))
	if err != nil {
		t.Fatal(err)
	}
	if cm, ok := c.files["other/configmap-extra.yaml"]; !ok || strings.HasPrefix(cm, "{{- if") {
		t.Errorf("the ConfigMap of config/default should be in other/, ungated; files: %v", c.files)
	}
}

// TestNewChartEscapesTemplateDelimitersOfConfig: text of config/ that looks like a template action renders
// as that text, also at the start of a value (an alert's description "{{ $value }} runs ..."), where a plain
// YAML value would read as a flow mapping once rendered, and in a value with quotes, escapes, the namespace.
func TestNewChartEscapesTemplateDelimitersOfConfig(t *testing.T) {
	data := map[string]any{
		"greeting": "Hello {{ .Name }}",
		"opening":  "{{ $value | humanize }} runs missed, reason {{ $labels.reason }}",
		"quoted":   "'{{ x }}' and \"{{ y }}\" in op-system\n\tnext line",
	}
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "op-extra", "namespace": "op-system"}, "data": data}
	text, err := encode(cm)
	if err != nil {
		t.Fatal(err)
	}
	build := baseBuild + "---\n" + text
	c, err := newChart(mustDecode(t, build), mustDecode(t, build))
	if err != nil {
		t.Fatal(err)
	}
	file := c.files["other/configmap-extra.yaml"]
	if !strings.Contains(file, `Hello {{ "{{" }} .Name }}`) {
		t.Errorf("the ConfigMap's {{ is not escaped:\n%s", file)
	}
	// Render the file as Helm does (text/template, then YAML) and read the data back.
	tmpl, err := gotemplate.New("cm").Funcs(gotemplate.FuncMap{
		"include": func(string, any) string { return "" }, "nindent": func(int, string) string { return "" },
	}).Parse(file)
	if err != nil {
		t.Fatalf("parsing the template: %v\n%s", err, file)
	}
	var rendered bytes.Buffer
	if err := tmpl.Execute(&rendered, map[string]any{"Release": map[string]any{"Namespace": "op-system"}}); err != nil {
		t.Fatal(err)
	}
	objs, err := decodeObjects(rendered.Bytes())
	if err != nil || len(objs) != 1 {
		t.Fatalf("the rendering does not parse (%v):\n%s", err, rendered.String())
	}
	got := map[string]any(objs[0])["data"]
	if diff := cmp.Diff(any(data), got); diff != "" {
		t.Errorf("rendered data (-config +chart):\n%s\n%s", diff, file)
	}
}

// TestNewChartGatesTheAccessPolicies: the optional admission policies and the flow control of the full build
// go behind their own values (off by default), and the manager's namespace in a policy's CEL becomes the
// release's.
func TestNewChartGatesTheAccessPolicies(t *testing.T) {
	full := baseBuild + `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: op-manual-runs
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: op-manual-runs
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: op-manager-jobs
spec:
  matchConditions:
  - name: created-by-the-manager
    expression: "request.userInfo.username == 'system:serviceaccount:' + 'op-system' + ':' + 'op-controller-manager'"
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: op-manager
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: op-manager
`
	c, err := newChart(mustDecode(t, baseBuild), mustDecode(t, full))
	if err != nil {
		t.Fatal(err)
	}
	gates := map[string]string{
		"policies/validatingadmissionpolicy-manual-runs.yaml":        condManualRuns,
		"policies/validatingadmissionpolicybinding-manual-runs.yaml": condManualRuns,
		"policies/validatingadmissionpolicy-manager-jobs.yaml":       condManagerJobs,
		"flowcontrol/flowschema-manager.yaml":                        condFlowControl,
		"flowcontrol/prioritylevelconfiguration-manager.yaml":        condFlowControl,
	}
	for file, cond := range gates {
		if text, ok := c.files[file]; !ok || !strings.HasPrefix(text, "{{- if "+cond+" }}\n") {
			t.Errorf("%s is not behind %s:\n%s", file, cond, text)
		}
	}
	if c.values.ManualRunsPolicy || c.values.ManagerJobsPolicy || c.values.FlowControl {
		t.Errorf("an access policy is on by default: %+v", c.values)
	}
	if jobs := c.files["policies/validatingadmissionpolicy-manager-jobs.yaml"]; !strings.Contains(jobs, "'system:serviceaccount:' + '{{ $.Release.Namespace }}' + ':' + '{{ include \"cronjob-operator.fullname\" $ }}-controller-manager'") {
		t.Errorf("the manager's namespace and name are not the release's:\n%s", jobs)
	}
	other := baseBuild + "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: op-something-else\n"
	if _, err := newChart(mustDecode(t, baseBuild), mustDecode(t, other)); err == nil {
		t.Error("newChart accepted a policy no value is about")
	}
}

// TestCRDConversionBehindWebhooks: a CRD's conversion webhook, and the served version it converts to, are
// rendered only with webhooks.enabled; the storage version is served either way; the Service's namespace
// is the release's.
func TestCRDConversionBehindWebhooks(t *testing.T) {
	crd := `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.dev
spec:
  group: example.dev
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          name: op-webhook-service
          namespace: op-system
          path: /convert
      conversionReviewVersions: [v1]
  versions:
  - name: v1
    served: true
    storage: true
  - name: v2
    served: true
    storage: false
`
	c, err := newChart(mustDecode(t, baseBuild+crd), mustDecode(t, baseBuild+crd))
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for f, content := range c.files {
		if strings.Contains(f, "things.example.dev") {
			text = content
		}
	}
	for _, want := range []string{
		"  {{- if $.Values.webhooks.enabled }}\n  conversion:\n    strategy: Webhook\n",
		"          namespace: {{ $.Release.Namespace }}\n",
		"    - name: v1\n      served: true\n      storage: true\n",
		"    - name: v2\n      served: {{ $.Values.webhooks.enabled }}\n      storage: false\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the CRD's template lacks %q:\n%s", want, text)
		}
	}
}

// TestReplacePrefixNamesTheRelease: config/'s namePrefix becomes the release's wherever it begins a name,
// and stays inside a word (the API group in a webhook path).
func TestReplacePrefixNamesTheRelease(t *testing.T) {
	c := &chart{prefix: "op-"}
	for in, want := range map[string]string{
		"op-controller-manager":                        prefixToken + "controller-manager",
		"--webhook-service=op-webhook-service":         "--webhook-service=" + prefixToken + "webhook-service",
		"ns/op-serving-cert":                           "ns/" + prefixToken + "serving-cert",
		"op-webhook-service.ns.svc":                    prefixToken + "webhook-service.ns.svc",
		"'system:serviceaccount:' + 'op-manager'":      "'system:serviceaccount:' + '" + prefixToken + "manager'",
		"/validate-batch-op-dev-v1-cronjob":            "/validate-batch-op-dev-v1-cronjob",
		"app.kubernetes.io/name: cronjob-op-something": "app.kubernetes.io/name: cronjob-op-something",
	} {
		v := map[string]any{"s": in}
		c.replacePrefix(v)
		if v["s"] != want {
			t.Errorf("replacePrefix(%q) = %q, want %q", in, v["s"], want)
		}
	}
}

// TestSchemaCoversValues: values.schema.json describes every key of values.yaml and no other, down to the
// values that are Kubernetes types (whose inside the API server checks).
func TestSchemaCoversValues(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal([]byte(valuesSchema), &schema); err != nil {
		t.Fatalf("values.schema.json is not JSON: %v", err)
	}
	var vals map[string]any
	if err := yaml.Unmarshal([]byte(valuesYAML(values{Version: "1.0.0", ImageRepository: "r", ImageTag: "t", Resources: map[string]any{}, Affinity: map[string]any{}})), &vals); err != nil {
		t.Fatalf("values.yaml: %v", err)
	}
	defs, _ := schema["definitions"].(map[string]any)
	var walk func(path string, v map[string]any, s map[string]any)
	walk = func(path string, v map[string]any, s map[string]any) {
		if ref, ok := s["$ref"].(string); ok {
			s, _ = defs[strings.TrimPrefix(ref, "#/definitions/")].(map[string]any)
		}
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			return // a Kubernetes type or a map of strings: its keys are the user's
		}
		for k, sub := range props {
			if _, ok := v[k]; !ok && len(v) > 0 { // an empty object (issuerRef: {}) is the user's to fill
				t.Errorf("the schema has %s%s, values.yaml has not", path, k)
			}
			if m, ok := v[k].(map[string]any); ok {
				walk(path+k+".", m, sub.(map[string]any))
			}
		}
		for k := range v {
			if _, ok := props[k]; !ok {
				t.Errorf("values.yaml has %s%s, the schema has not", path, k)
			}
		}
	}
	walk("", vals, schema)
}

// TestDeadKeysNamesTheValuesNothingReads: with a renderer that reads a only with every option on and never
// reads b.c, deadKeys names b.c alone.
func TestDeadKeysNamesTheValuesNothingReads(t *testing.T) {
	vals := map[string]any{"a": false, "b": map[string]any{"c": "x", "d": []any{}}, "e": map[string]any{}}
	render := func(base, path string, value any) (string, error) {
		out := "base=" + base
		switch {
		case path == "a" && base == "all":
			out += fmt.Sprintf(" a=%v", value)
		case path == "b.d", path == "e":
			out += fmt.Sprintf(" %s=%v", path, value)
		}
		return out, nil
	}
	dead, err := deadKeys(vals, []string{"", "all"}, render)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b.c"}, dead); diff != "" {
		t.Errorf("dead keys (-want +got):\n%s", diff)
	}
}

// TestMutateChangesEveryDefault: each generic mutation differs from its default.
func TestMutateChangesEveryDefault(t *testing.T) {
	for _, def := range []any{true, false, 0, 2, "", "v1", map[string]any{}, []any{}, []any{"x"}} {
		if got := mutate(leaf{path: "x", def: def}); cmp.Equal(got, def) {
			t.Errorf("mutate(%#v) = %#v, the default", def, got)
		}
	}
}

// TestValuesTableDescribesEveryValue: the chart README's table has a row, with a description, for each value.
func TestValuesTableDescribesEveryValue(t *testing.T) {
	text := valuesYAML(values{Version: "1.0.0", ImageRepository: "r", ImageTag: "t", Resources: map[string]any{"limits": map[string]any{"cpu": "1"}}, Affinity: map[string]any{"podAntiAffinity": map[string]any{}}})
	table, err := valuesTable(text)
	if err != nil {
		t.Fatal(err)
	}
	var vals map[string]any
	if err := yaml.Unmarshal([]byte(text), &vals); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for line := range strings.SplitSeq(table, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) == 3 && strings.HasPrefix(cells[0], "| `") {
			rows[strings.Trim(cells[0], "| `")] = strings.TrimSuffix(cells[2], " |")
		}
	}
	for _, l := range leaves("", vals) {
		path := l.path
		if top, _, _ := strings.Cut(path, "."); isKubernetesType(top) {
			path = top
		}
		if desc, ok := rows[path]; !ok {
			t.Errorf("no row for %s", path)
		} else if strings.TrimSpace(desc) == "" {
			t.Errorf("%s has no description: write a comment above it in values.yaml", path)
		}
	}
}
