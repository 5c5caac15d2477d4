package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Conditions of the chart's values (their defaults are in values.go).
const (
	condCRD            = "$.Values.crd.enabled"
	condWebhooks       = "$.Values.webhooks.enabled"
	condCertManager    = "(and $.Values.webhooks.enabled $.Values.certManager.enabled)"
	condOwnIssuer      = "(and $.Values.webhooks.enabled $.Values.certManager.enabled (not $.Values.certManager.issuerRef.name))"
	condMetrics        = "$.Values.metrics.enabled"
	condServiceMonitor = "(and $.Values.metrics.enabled $.Values.metrics.serviceMonitor.enabled)"
	condPrometheusRule = "$.Values.prometheusRule.enabled"
	condDashboard      = "$.Values.dashboard.enabled"
	condScraper        = "(and $.Values.metrics.enabled $.Values.metrics.serviceMonitor.enabled (not $.Values.metrics.serviceMonitor.authorization.secretName))"
	condNetworkPolicy  = "$.Values.networkPolicy.enabled"
	condPDB            = "$.Values.podDisruptionBudget.enabled"
	condLeaderElection = "$.Values.leaderElection.enabled"
	condManualRuns     = "$.Values.policies.manualRuns.enabled"
	condManagerJobs    = "$.Values.policies.managerJobs.enabled"
	condFlowControl    = "$.Values.flowControl.enabled"
)

// Kinds, templates/ directories and fields chartgen names more than once.
const (
	kindCRD        = "CustomResourceDefinition"
	kindNamespace  = "Namespace"
	kindDeployment = "Deployment"
	kindRole       = "Role"
	dirRBAC        = "rbac"
	dirManager     = "manager"
	dirWebhook     = "webhook"
	dirPrometheus  = "prometheus"
	dirOther       = "other"
	fieldLabels    = "labels"
	managerName    = "manager"
)

// nsToken stands for the release's namespace wherever config/'s namespace appears in a string.
const nsToken = "zzchartgennszz"

// prefixToken stands for the release's name prefix (the fullname helper and a hyphen) wherever config/'s
// namePrefix begins a name, in the object's own name and in every reference to one: a flag's value, a
// roleRef, a Service of a webhook, a DNS name, a ServiceAccount's user name in a CEL expression.
const prefixToken = "zzchartgenprefixzz"

// prefixText is what prefixToken becomes in a template.
const prefixText = `{{ include "cronjob-operator.fullname" $ }}-`

// chart is the generated chart: template files by path under templates/, and the values' defaults.
type chart struct {
	files  map[string]string
	values values
	// namespace and prefix of config/default (its Namespace object and namePrefix).
	namespace, prefix string
	// prefixRE finds prefix where it begins a name (replacePrefix), compiled once.
	prefixRE *regexp.Regexp
	// webhookSecret is the Secret the webhook serving certificate is in (--webhook-cert-secret).
	webhookSecret string
	// crds are the served versions of the CRDs, and samples the objects of config/samples, for Chart.yaml.
	crds    []crdInfo
	samples []object
}

// newChart builds the chart from the two builds (see the command's doc).
func newChart(base, full []object) (*chart, error) {
	c := &chart{files: map[string]string{}, values: defaultValues()}
	inBase := map[string]object{}
	for _, o := range base {
		inBase[o.key()] = o
		if o.kind() == kindNamespace {
			c.namespace = o.name()
		}
	}
	if c.namespace == "" {
		return nil, fmt.Errorf("config/default has no Namespace")
	}
	c.prefix = strings.TrimSuffix(c.namespace, "system")
	inFull := map[string]bool{}
	for _, o := range full {
		inFull[o.key()] = true
	}
	for k := range inBase {
		if !inFull[k] {
			return nil, fmt.Errorf("%s is in the default build but not in the full one", k)
		}
	}
	for _, o := range base {
		if o.kind() == kindDeployment {
			args := listAt(managerContainer(o), "args")
			c.webhookSecret, _ = flagValue(args, "--webhook-cert-secret")
			// As add writes it: with the release's prefix.
			c.webhookSecret = prefixToken + strings.TrimPrefix(c.webhookSecret, c.prefix)
		}
	}

	for _, o := range base {
		if o.kind() == kindCRD {
			c.crds = append(c.crds, servedVersions(o)...)
		}
	}
	for _, o := range full {
		b, ok := inBase[o.key()]
		if o.kind() == kindNamespace {
			continue // the release's namespace: helm install --create-namespace
		}
		if !ok {
			if err := c.add(o, nil, false); err != nil {
				return nil, err
			}
			continue
		}
		if err := c.add(b, o, true); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// add turns one object into a template file. base is the object as config/default has it (on by default)
// or, for an optional part, as the full build has it; fullVersion is its full-build version when both
// builds have it (what the optional components change in it).
func (c *chart) add(o, fullVersion object, onByDefault bool) error {
	t := newTemplate()
	for _, v := range []object{o, fullVersion} {
		switch {
		case v == nil:
		case v.kind() != kindCRD:
			replaceStrings(map[string]any(v), c.namespace, nsToken)
			c.replacePrefix(map[string]any(v))
		default:
			// Only where a CRD names the release's namespace and names: the conversion webhook's Service and
			// the CA injector's Certificate (its name and schema's descriptions stay as they are).
			if spec, ok := v["spec"].(map[string]any); ok {
				replaceStrings(spec["conversion"], c.namespace, nsToken)
				c.replacePrefix(spec["conversion"])
			}
			replaceStrings(v.metadata()["annotations"], c.namespace, nsToken)
			c.replacePrefix(v.metadata()["annotations"])
		}
	}
	escapeTemplateText(t, map[string]any(o))
	c.labels(t, o)
	if fullVersion != nil {
		c.optionalAnnotations(t, o, fullVersion)
	}

	cond, dir := c.classify(o)
	switch {
	case dir == "" && onByDefault:
		dir = dirOther // an object of config/default that no value is about: always installed
	case dir == "":
		return fmt.Errorf("%s is only in the full build and chartgen knows no value that turns it on: add its kind to classify", o.key())
	}
	c.setDefault(cond, onByDefault)

	var text string
	var err error
	switch {
	case o.kind() == kindCRD:
		annotations := ensureMap(o.metadata(), "annotations")
		annotations[t.block(gatedLines("$.Values.crd.keep", "helm.sh/resource-policy: keep"))] = ""
		if err = gateConversion(t, o); err == nil {
			text, err = t.render(o)
		}
	case o.kind() == kindDeployment:
		if err = c.deployment(t, o, fullVersion); err == nil {
			text, err = t.render(o)
		}
	case o.kind() == "Certificate":
		issuerRef(t, o)
		text, err = t.render(o)
	case o.kind() == "ServiceMonitor":
		serviceMonitor(t, o)
		text, err = t.render(o)
	case o.kind() == "PrometheusRule":
		ensureMap(o.metadata(), fieldLabels)[t.block(withValue("$.Values.prometheusRule.labels", ""))] = ""
		text, err = t.render(o)
	case o.kind() == "ConfigMap" && cond == condDashboard:
		ensureMap(o.metadata(), fieldLabels)[t.block(withValue("$.Values.dashboard.labels", ""))] = ""
		ensureMap(o.metadata(), "annotations")[t.block(withValue("$.Values.dashboard.annotations", ""))] = ""
		text, err = t.render(o)
	case o.kind() == "ValidatingWebhookConfiguration" || o.kind() == "MutatingWebhookConfiguration":
		scopeWebhooks(t, o)
		text, err = t.render(o)
	case o.kind() == "ClusterRole" && c.shortName(o) == "manager-role":
		text, err = c.managerRole(t, o)
	default:
		text, err = t.render(o)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", o.key(), err)
	}
	if cond != "" {
		text = "{{- if " + cond + " }}\n" + text + "{{- end }}\n"
	}
	file := filepath.Join(dir, strings.ToLower(o.kind())+"-"+c.shortName(o)+".yaml")
	if _, dup := c.files[file]; dup {
		return fmt.Errorf("two objects would be written to %s", file)
	}
	c.files[file] = strings.NewReplacer(nsToken, "{{ $.Release.Namespace }}", prefixToken, prefixText).Replace(text)
	return nil
}

// shortName is o's name without config/'s namePrefix (or the token in its place).
func (c *chart) shortName(o object) string {
	return strings.TrimPrefix(strings.TrimPrefix(o.name(), prefixToken), c.prefix)
}

// replacePrefix puts prefixToken in place of config/'s namePrefix wherever it begins a name in the strings
// of v: at the start of a string or after one of = / : , ( or a space or quote. Inside a word it is left
// alone (the webhook paths /validate-batch-cronjob-operator-dev-v1-cronjob name the API group).
func (c *chart) replacePrefix(v any) {
	if c.prefixRE == nil {
		c.prefixRE = regexp.MustCompile(`(^|[=/:,( "'])` + regexp.QuoteMeta(c.prefix))
	}
	mapStrings(v, func(s string) string { return c.prefixRE.ReplaceAllString(s, "${1}"+prefixToken) })
}

// classify returns the condition an object is gated by ("" for none) and the templates/ directory it goes
// to ("" for an object chartgen cannot place).
func (c *chart) classify(o object) (cond, dir string) {
	name := c.shortName(o)
	if strings.HasPrefix(name, "metrics-scraper") {
		return condScraper, dirPrometheus // the ServiceMonitor's own identity (config/prometheus/scraper.yaml)
	}
	switch o.kind() {
	case kindCRD:
		return condCRD, "crd"
	case "ServiceAccount", kindRole, "RoleBinding":
		return "", dirRBAC
	case "ClusterRole", "ClusterRoleBinding":
		if strings.HasPrefix(name, "metrics-") {
			return condMetrics, dirRBAC
		}
		return "", dirRBAC
	case kindDeployment:
		return "", dirManager
	case "Service":
		if strings.Contains(name, "metrics") {
			return condMetrics, "metrics"
		}
		return condWebhooks, dirWebhook
	case "Secret":
		if o.name() == c.webhookSecret {
			return condWebhooks, dirWebhook
		}
	case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
		return condWebhooks, dirWebhook
	case "Issuer":
		return condOwnIssuer, "certmanager"
	case "Certificate":
		return condCertManager, "certmanager"
	case "ServiceMonitor":
		return condServiceMonitor, dirPrometheus
	case "PrometheusRule":
		return condPrometheusRule, dirPrometheus
	case "ConfigMap":
		if name == "grafana-dashboard" {
			return condDashboard, "grafana"
		}
	case "NetworkPolicy":
		return condNetworkPolicy, "network-policy"
	case "PodDisruptionBudget":
		return condPDB, dirManager
	case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
		switch name {
		case "manual-runs":
			return condManualRuns, "policies"
		case "manager-jobs":
			return condManagerJobs, "policies"
		}
	case "FlowSchema", "PriorityLevelConfiguration":
		return condFlowControl, "flowcontrol"
	}
	return "", ""
}

// setDefault records that the value behind a kind-gated condition is on by default when config/default
// has the object (a PodDisruptionBudget there is kept in the chart's defaults, an optional part is off).
func (c *chart) setDefault(cond string, on bool) {
	switch cond {
	case condCertManager, condOwnIssuer:
		c.values.CertManager = on
	case condServiceMonitor:
		c.values.ServiceMonitor = on
	case condPrometheusRule:
		c.values.PrometheusRule = on
	case condDashboard:
		c.values.Dashboard = on
	case condNetworkPolicy:
		c.values.NetworkPolicy = on
	case condPDB:
		c.values.PodDisruptionBudget = on
	case condManualRuns:
		c.values.ManualRunsPolicy = on
	case condManagerJobs:
		c.values.ManagerJobsPolicy = on
	case condFlowControl:
		c.values.FlowControl = on
	}
}

// escapeTemplateText keeps text of config/ that looks like a template action (a "{{" in an alert's
// description) text: each string value of v that holds "{{" becomes a token for it as a double-quoted YAML
// string in which each "{{" is written {{ "{{" }}, which Helm prints back as "{{". The quotes matter: a
// plain value that begins with "{{" would read, once rendered, as a YAML flow mapping and fail to parse.
func escapeTemplateText(t *template, v any) any {
	switch e := v.(type) {
	case map[string]any:
		for k, x := range e {
			e[k] = escapeTemplateText(t, x)
		}
	case []any:
		for i, x := range e {
			e[i] = escapeTemplateText(t, x)
		}
	case string:
		if strings.Contains(e, "{{") {
			// strconv.Quote's escapes (\n, \", \\, \xFF, \u...) are also YAML's.
			return t.inline(strings.ReplaceAll(strconv.Quote(e), "{{", `{{ "{{" }}`))
		}
	}
	return v
}

// labels replaces kustomize's managed-by label of the object with the chart's standard labels.
func (c *chart) labels(t *template, o object) {
	labels := ensureMap(o.metadata(), fieldLabels)
	delete(labels, "app.kubernetes.io/managed-by")
	labels[t.block(func(indent int) []string {
		return []string{fmt.Sprintf(`{{- include "cronjob-operator.labels" $ | nindent %d }}`, indent)}
	})] = ""
}

// optionalAnnotations adds, behind certManager.enabled, the annotations the full build has and config/default
// has not (cert-manager's CA injection into the webhook configurations).
func (c *chart) optionalAnnotations(t *template, o, fullVersion object) {
	extra := mapAt(map[string]any(fullVersion), "metadata", "annotations")
	have := mapAt(map[string]any(o), "metadata", "annotations")
	var lines []string
	for _, k := range sortedKeys(extra) {
		if _, ok := have[k]; ok {
			continue
		}
		enc, _ := encode(map[string]any{k: extra[k]})
		lines = append(lines, strings.TrimSuffix(enc, "\n"))
	}
	if len(lines) > 0 {
		ensureMap(o.metadata(), "annotations")[t.block(gatedLines(condCertManager, lines...))] = ""
	}
}

// write replaces out/templates with the chart's templates and writes Chart.yaml, values.yaml and the
// helpers.
func (c *chart) write(out string) error {
	if err := os.RemoveAll(filepath.Join(out, "templates")); err != nil {
		return err
	}
	table, err := valuesTable(valuesYAML(c.values))
	if err != nil {
		return fmt.Errorf("the values table: %w", err)
	}
	files := map[string]string{
		"Chart.yaml":                     chartYAML(c.values, c.crds, c.samples),
		"values.yaml":                    valuesYAML(c.values),
		"values.schema.json":             valuesSchema,
		".helmignore":                    helmignore,
		"templates/_helpers.tpl":         helpers,
		"templates/NOTES.txt":            notes,
		"templates/tests/self-test.yaml": selfTestTemplate,
		"README.md":                      chartReadme + "\n## Values\n\nGenerated from values.yaml, whose comments say more.\n\n" + table,
		"ci/all-options-values.yaml":     allOptionsValues,
	}
	for name, text := range c.files {
		files[filepath.Join("templates", name)] = text
	}
	for name, text := range files {
		p := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func ensureMap(m map[string]any, k string) map[string]any {
	if v, ok := m[k].(map[string]any); ok {
		return v
	}
	v := map[string]any{}
	m[k] = v
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// gateConversion puts a CRD's conversion webhook, and the versions it converts to (every served version but
// the storage one), behind webhooks.enabled: the manager serves the webhook only with it, and a version
// served without its webhook would fail every request in it (kubectl prefers the newest version). A CRD
// without a conversion is left as it is.
func gateConversion(t *template, o object) error {
	spec, _ := o["spec"].(map[string]any)
	conv, ok := spec["conversion"]
	if !ok {
		return nil
	}
	text, err := encode(map[string]any{"conversion": conv})
	if err != nil {
		return err
	}
	delete(spec, "conversion")
	spec[t.block(gatedLines(condWebhooks, strings.Split(strings.TrimSuffix(text, "\n"), "\n")...))] = ""
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		if v, ok := v.(map[string]any); ok && v["served"] == true && v["storage"] != true {
			v["served"] = t.inline("{{ " + condWebhooks + " }}")
		}
	}
	return nil
}

// servedVersions lists the versions a CRD serves, for Artifact Hub, described by the first sentence of
// each version's schema description.
func servedVersions(crd object) []crdInfo {
	kind := str(mapAt(map[string]any(crd), "spec", "names"), "kind")
	var out []crdInfo
	for _, v := range listAt(mapAt(map[string]any(crd), "spec"), "versions") {
		m, ok := v.(map[string]any)
		if !ok || m["served"] != true {
			continue
		}
		desc := str(mapAt(m, "schema", "openAPIV3Schema"), "description")
		if i := strings.Index(desc, ". "); i >= 0 {
			desc = desc[:i+1]
		}
		desc = strings.Join(strings.Fields(desc), " ")
		out = append(out, crdInfo{Kind: kind, Version: str(m, "name"), Name: crd.name(), Description: desc})
	}
	return out
}

// scopeWebhooks limits each webhook of a configuration to the watched namespaces in namespace-scoped mode
// (a namespaceSelector on kubernetes.io/metadata.name), so that a release's webhooks, whose failurePolicy is
// Fail, judge only its own tenants' objects: with two releases, one that is down blocks no write of the
// other's namespaces.
func scopeWebhooks(t *template, o object) {
	for _, w := range listAt(map[string]any(o), "webhooks") {
		if m, ok := w.(map[string]any); ok {
			m[t.block(func(indent int) []string {
				pad := strings.Repeat(" ", indent)
				return []string{
					pad + "{{- with $.Values.watchNamespaces }}",
					pad + "namespaceSelector:",
					pad + "  matchExpressions:",
					pad + "    - key: kubernetes.io/metadata.name",
					pad + "      operator: In",
					pad + "      values:",
					fmt.Sprintf("%s        {{- toYaml . | nindent %d }}", pad, indent+8),
					pad + "{{- end }}",
				}
			})] = ""
		}
	}
}

// issuerRef lets a Certificate's issuer be the user's (certManager.issuerRef: an Issuer in the release's
// namespace or a ClusterIssuer) instead of the chart's self-signed Issuer, which is then not installed.
func issuerRef(t *template, o object) {
	spec := mapAt(map[string]any(o), "spec")
	own, err := encode(spec["issuerRef"])
	if err != nil {
		panic(err)
	}
	spec["issuerRef"] = t.block(func(indent int) []string {
		pad := strings.Repeat(" ", indent)
		lines := []string{
			pad + "{{- if $.Values.certManager.issuerRef.name }}",
			fmt.Sprintf("%s{{- toYaml $.Values.certManager.issuerRef | nindent %d }}", pad, indent),
			pad + "{{- else }}",
		}
		for l := range strings.SplitSeq(strings.TrimSuffix(own, "\n"), "\n") {
			lines = append(lines, pad+l)
		}
		return append(lines, pad+"{{- end }}")
	})
}

// serviceMonitor puts the scrape's values into the ServiceMonitor (which chartgen takes from the full build,
// where config/prometheus verifies the metrics certificate with cert-manager's CA): extra labels for
// Prometheus' serviceMonitorSelector, the interval, the token's Secret (the chart's own scraper by default)
// and the TLS settings: the user's, else the CA (ca.crt) of the Secret the manager serves its metrics
// certificate from (metrics.certSecretName, or cert-manager's with certManager.enabled), else no
// verification of the manager's self-signed certificate (config/prometheus/monitor.yaml without its patch).
func serviceMonitor(t *template, o object) {
	ensureMap(o.metadata(), fieldLabels)[t.block(withValue("$.Values.metrics.serviceMonitor.labels", ""))] = ""
	for _, e := range listAt(mapAt(map[string]any(o), "spec"), "endpoints") {
		ep, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if creds := mapAt(ep, "authorization", "credentials"); creds != nil {
			creds["name"] = t.inline(`{{ $.Values.metrics.serviceMonitor.authorization.secretName | default (printf "%s-metrics-scraper-token" (include "cronjob-operator.fullname" $)) }}`)
			creds["key"] = t.inline(`{{ $.Values.metrics.serviceMonitor.authorization.key }}`)
		}
		verified, err := encode(ep["tlsConfig"])
		if err != nil {
			panic(err)
		}
		ep["tlsConfig"] = t.block(func(indent int) []string {
			pad := strings.Repeat(" ", indent)
			lines := []string{
				pad + "{{- if $.Values.metrics.serviceMonitor.tlsConfig }}",
				fmt.Sprintf("%s{{- toYaml $.Values.metrics.serviceMonitor.tlsConfig | nindent %d }}", pad, indent),
				pad + "{{- else if " + condMetricsCert + " }}",
			}
			for l := range strings.SplitSeq(strings.TrimSuffix(verified, "\n"), "\n") {
				// The CA of the Secret the manager serves: the user's, else cert-manager's.
				l = strings.Replace(l, prefixToken+"metrics-server-cert", `{{ $.Values.metrics.certSecretName | default (printf "%s-metrics-server-cert" (include "cronjob-operator.fullname" $)) }}`, 1)
				lines = append(lines, pad+l)
			}
			return append(lines, pad+"{{- else }}", pad+"insecureSkipVerify: true", pad+"{{- end }}")
		})
		ep[t.block(func(indent int) []string {
			pad := strings.Repeat(" ", indent)
			return []string{pad + "{{- with $.Values.metrics.serviceMonitor.interval }}", pad + "interval: {{ . }}", pad + "{{- end }}"}
		})] = ""
	}
}
