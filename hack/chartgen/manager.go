package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// managerContainer is the container named manager of a Deployment (else its first container).
func managerContainer(o object) map[string]any {
	containers := listAt(map[string]any(o), "spec", "template", "spec", "containers")
	for _, c := range containers {
		if m, ok := c.(map[string]any); ok && str(m, "name") == managerName {
			return m
		}
	}
	if len(containers) > 0 {
		m, _ := containers[0].(map[string]any)
		return m
	}
	return nil
}

// deployment puts the values into the manager Deployment: replicas, image, resources, the flags of
// leader election, metrics, webhooks, cert-manager, HTTP/2 and watched namespaces, and gates the webhook
// server's port and certificate volume behind webhooks.enabled. Its defaults become the values' defaults.
func (c *chart) deployment(t *template, o, fullVersion object) error {
	spec := mapAt(map[string]any(o), "spec")
	if r, ok := spec["replicas"].(int); ok {
		c.values.Replicas = r
	}
	spec["replicas"] = t.inline("{{ $.Values.replicas }}")

	mc := managerContainer(o)
	if mc == nil {
		return fmt.Errorf("no manager container")
	}
	image := str(mc, "image")
	i := strings.LastIndex(image, ":")
	if i <= strings.LastIndex(image, "/") {
		return fmt.Errorf("the manager image %q has no tag: give IMG a version (the chart never defaults to latest)", image)
	}
	repo, tag := image[:i], image[i+1:]
	c.values.ImageRepository, c.values.ImageTag = repo, tag
	mc["image"] = t.inline("{{ $.Values.image.repository }}:{{ $.Values.image.tag }}")
	if p := str(mc, "imagePullPolicy"); p != "" {
		c.values.ImagePullPolicy = p
	}
	delete(mc, "imagePullPolicy")
	mc[t.block(func(indent int) []string {
		pad := strings.Repeat(" ", indent)
		return []string{pad + "{{- with $.Values.image.pullPolicy }}", pad + "imagePullPolicy: {{ . }}", pad + "{{- end }}"}
	})] = ""

	if res, ok := mc["resources"]; ok {
		c.values.Resources = res
	}
	mc["resources"] = t.block(func(indent int) []string {
		return []string{fmt.Sprintf("{{- toYaml $.Values.resources | nindent %d }}", indent)}
	})

	var fullArgs []any
	if fullVersion != nil {
		fullArgs = listAt(managerContainer(fullVersion), "args")
	}
	mc["args"] = c.args(t, listAt(mc, "args"), fullArgs)

	// The webhook server's port, and the volume of its certificate and its mount.
	webhookVolumes := map[string]bool{}
	gate := func(list []any, match func(map[string]any) bool) []any {
		for i, e := range list {
			if m, ok := e.(map[string]any); ok && match(m) {
				list[i] = t.item(condWebhooks, m)
			}
		}
		return list
	}
	podSpec := mapAt(map[string]any(o), "spec", "template", "spec")
	// Volumes and mounts that only the full build has (config/certmanager's metrics certificate) go in
	// behind certManager.enabled.
	if fullVersion != nil {
		podSpec["volumes"] = c.addOnly(t, listAt(podSpec, "volumes"), listAt(mapAt(map[string]any(fullVersion), "spec", "template", "spec"), "volumes"))
		mc["volumeMounts"] = c.addOnly(t, listAt(mc, "volumeMounts"), listAt(managerContainer(fullVersion), "volumeMounts"))
	}
	if vols := listAt(podSpec, "volumes"); vols != nil {
		podSpec["volumes"] = gate(vols, func(m map[string]any) bool {
			if str(mapAt(m, "secret"), "secretName") == c.webhookSecret && c.webhookSecret != "" {
				webhookVolumes[str(m, "name")] = true
				return true
			}
			return false
		})
	}
	if mounts := listAt(mc, "volumeMounts"); mounts != nil {
		mc["volumeMounts"] = gate(mounts, func(m map[string]any) bool { return webhookVolumes[str(m, "name")] })
	}
	if ports := listAt(mc, "ports"); ports != nil {
		mc["ports"] = gate(ports, func(m map[string]any) bool { return str(m, "name") == "webhook-server" })
	}
	c.podKnobs(t, o)
	return nil
}

// podKnobs adds the scheduling, pull, label and priority values every chart has to the manager's Pod
// template: podLabels and podAnnotations beside config/'s, and affinity (config/'s anti-affinity by default),
// nodeSelector, tolerations, topologySpreadConstraints, imagePullSecrets and priorityClassName, each left
// out while empty.
func (c *chart) podKnobs(t *template, o object) {
	meta := ensureMap(ensureMap(ensureMap(map[string]any(o), "spec"), "template"), "metadata")
	ensureMap(meta, fieldLabels)[t.block(withValue("$.Values.podLabels", ""))] = ""
	ensureMap(meta, "annotations")[t.block(withValue("$.Values.podAnnotations", ""))] = ""
	podSpec := ensureMap(ensureMap(ensureMap(map[string]any(o), "spec"), "template"), "spec")
	c.values.Affinity = podSpec["affinity"]
	delete(podSpec, "affinity")
	for _, k := range []string{"affinity", "nodeSelector", "tolerations", "topologySpreadConstraints", "imagePullSecrets"} {
		podSpec[t.block(withValue("$.Values."+k, k))] = ""
	}
	podSpec[t.block(func(indent int) []string {
		pad := strings.Repeat(" ", indent)
		return []string{pad + "{{- with $.Values.priorityClassName }}", pad + "priorityClassName: {{ . | quote }}", pad + "{{- end }}"}
	})] = ""
}

// withValue is a block that writes the value at path as YAML when it is not empty: under key, or, with
// key "", as entries of the map the block is in.
func withValue(path, key string) func(int) []string {
	return func(indent int) []string {
		pad := strings.Repeat(" ", indent)
		if key == "" {
			return []string{pad + "{{- with " + path + " }}", fmt.Sprintf("%s{{- toYaml . | nindent %d }}", pad, indent), pad + "{{- end }}"}
		}
		return []string{pad + "{{- with " + path + " }}", pad + key + ":", fmt.Sprintf("%s  {{- toYaml . | nindent %d }}", pad, indent+2), pad + "{{- end }}"}
	}
}

// addOnly appends to list, behind certManager.enabled (metricsCertGate for the metrics certificate's), the
// named entries of full that list lacks.
func (c *chart) addOnly(t *template, list, full []any) []any {
	have := map[string]bool{}
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			have[str(m, "name")] = true
		}
	}
	for _, e := range full {
		if m, ok := e.(map[string]any); ok && !have[str(m, "name")] {
			if secret := mapAt(m, "secret"); secret != nil && strings.HasSuffix(str(secret, "secretName"), "metrics-server-cert") {
				secret["secretName"] = t.inline(`{{ $.Values.metrics.certSecretName | default (printf "%s-metrics-server-cert" (include "cronjob-operator.fullname" $)) }}`)
			}
			list = append(list, t.item(metricsCertGate(m), m))
		}
	}
	return list
}

// condMetricsCert: the manager serves a metrics certificate from a Secret, cert-manager's or the user's
// (metrics.certSecretName), instead of the self-signed one it makes at start.
const condMetricsCert = "(or (and $.Values.webhooks.enabled $.Values.certManager.enabled) $.Values.metrics.certSecretName)"

// metricsCertGate is the condition of an entry the full build adds: condMetricsCert for the metrics
// certificate's flag, volume and mount, certManager.enabled for the others.
func metricsCertGate(entry any) string {
	text, _ := encode(entry)
	if strings.Contains(text, "metrics-cert") || strings.Contains(text, "metrics-server-cert") {
		return condMetricsCert
	}
	return condCertManager
}

// args templatises the manager's flags. Flags of a feature with a value are kept behind that value; the
// flags the full build adds (config/certmanager's) behind certManager.enabled; --enable-http2 and
// --watch-namespaces are set from enableHTTP2 and watchNamespaces (their config/ values become the
// defaults); extraArgs are appended.
func (c *chart) args(t *template, args, fullArgs []any) []any {
	// In the order of the full build, so that a flag the full build adds stays where it puts it.
	order := args
	if fullArgs != nil {
		order = fullArgs
		for _, a := range args {
			if !slices.Contains(fullArgs, a) {
				order = append(order, a)
			}
		}
	}
	var out []any
	for _, a := range order {
		if !slices.Contains(args, a) {
			out = append(out, t.item(metricsCertGate(a), a))
			continue
		}
		s, _ := a.(string)
		name := flagName(s)
		_, val, _ := strings.Cut(s, "=")
		switch {
		case name == "--leader-elect":
			c.values.LeaderElection, _ = strconv.ParseBool(orTrue(val))
			out = append(out, t.inline("{{ if $.Values.leaderElection.enabled }}--leader-elect{{ else }}--leader-elect=false{{ end }}"))
		case name == "--metrics-bind-address" && val != "0":
			c.values.Metrics = true
			out = append(out, t.inline("{{ if $.Values.metrics.enabled }}"+s+"{{ else }}--metrics-bind-address=0{{ end }}"))
		case name == "--enable-webhooks":
			c.values.Webhooks, _ = strconv.ParseBool(orTrue(val))
			out = append(out, t.item(condWebhooks, "--enable-webhooks"))
		case isWebhookFlag(name):
			out = append(out, t.item(condWebhooks, s))
		case name == "--enable-http2":
			c.values.EnableHTTP2, _ = strconv.ParseBool(orTrue(val))
		case name == "--watch-namespaces":
			if val != "" {
				c.values.WatchNamespaces = strings.Split(val, ",")
			}
		default:
			out = append(out, s)
		}
	}
	out = append(out, t.block(func(indent int) []string {
		pad := strings.Repeat(" ", indent)
		return []string{
			// A release without the CRD (the second of two in a cluster) leaves its conversion caBundle to the
			// release that installed it, whose Service the CRD's conversion webhook names.
			pad + "{{- if and $.Values.webhooks.enabled (not $.Values.crd.enabled) }}",
			pad + "- --conversion-crd=",
			pad + "{{- end }}",
			pad + "{{- if $.Values.enableHTTP2 }}",
			pad + "- --enable-http2",
			pad + "{{- end }}",
			pad + "{{- with $.Values.watchNamespaces }}",
			pad + `- --watch-namespaces={{ join "," . }}`,
			pad + "{{- end }}",
			pad + "{{- range $.Values.extraArgs }}",
			pad + "- {{ . | quote }}",
			pad + "{{- end }}",
		}
	}))
	return out
}

func isWebhookFlag(name string) bool {
	return strings.HasPrefix(name, "--webhook-") || name == "--validating-webhook-configuration"
}

func orTrue(v string) string {
	if v == "" {
		return "true"
	}
	return v
}

// managerRole renders the manager's ClusterRole. In namespace-scoped mode (watchNamespaces set) the
// ClusterRole keeps only the rules on cluster-scoped resources (webhook configurations, ...), and the
// others go into a Role and RoleBinding in each watched namespace.
func (c *chart) managerRole(t *template, o object) (string, error) {
	full, err := t.render(o)
	if err != nil {
		return "", err
	}
	var clusterRules, nsRules []any
	for _, r := range listAt(map[string]any(o), "rules") {
		if m, ok := r.(map[string]any); ok && clusterScoped(m) {
			clusterRules = append(clusterRules, r)
		} else {
			nsRules = append(nsRules, r)
		}
	}
	o["rules"] = clusterRules
	reduced, err := t.render(o)
	if err != nil {
		return "", err
	}

	// The Role and RoleBinding of a watched namespace ($ns in the range below), labelled as the ClusterRole.
	watched := o.name() + "-watched"
	objs, err := decodeObjects(fmt.Appendf(nil, `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: %[1]s, namespace: %[2]s}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: %[1]s, namespace: %[2]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %[1]s}
subjects:
- {kind: ServiceAccount, name: %[3]scontroller-manager, namespace: %[4]s}
`, watched, t.inline("{{ $ns }}"), prefixToken, nsToken))
	if err != nil {
		return "", err
	}
	role, binding := objs[0], objs[1]
	role["rules"] = nsRules
	for _, w := range objs {
		w.metadata()[fieldLabels] = copyMap(mapAt(o.metadata(), fieldLabels))
	}
	roleText, err := t.render(role)
	if err != nil {
		return "", err
	}
	bindingText, err := t.render(binding)
	if err != nil {
		return "", err
	}
	return "{{- if not $.Values.watchNamespaces }}\n" + full +
		"{{- else }}\n" + reduced +
		"{{- range $ns := $.Values.watchNamespaces }}\n---\n" + roleText + "---\n" + bindingText +
		"{{- end }}\n{{- end }}\n", nil
}

// clusterScoped tells a rule on cluster-scoped resources, which a Role cannot grant.
func clusterScoped(rule map[string]any) bool {
	if len(listAt(rule, "nonResourceURLs")) > 0 {
		return true
	}
	for _, g := range listAt(rule, "apiGroups") {
		switch g {
		case "admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io":
			return true
		}
	}
	for _, r := range listAt(rule, "resources") {
		switch r {
		case "namespaces", "nodes", "persistentvolumes":
			return true
		}
	}
	return false
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	maps.Copy(out, m)
	return out
}
