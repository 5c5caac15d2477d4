package monitoring

import (
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// runbookBase is the start of every alert's runbook_url; the anchor after it must be a section of
// docs/runbooks.md.
const runbookBase = "https://github.com/cronjob-operator/cronjob-operator/blob/main/docs/runbooks.md#"

// alert is an alerting rule of the PrometheusRule, as far as these tests read it.
type alert struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	Annotations map[string]string `json:"annotations"`
	Labels      map[string]string `json:"labels"`
}

func alerts(t *testing.T) []alert {
	t.Helper()
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []alert `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(readRepoFile(t, "config", "prometheus", "rules", "prometheus_rule.yaml"), &rule); err != nil {
		t.Fatalf("decoding the PrometheusRule: %v", err)
	}
	var out []alert
	for _, g := range rule.Spec.Groups {
		out = append(out, g.Rules...)
	}
	if len(out) == 0 {
		t.Fatal("the PrometheusRule has no rules")
	}
	return out
}

func TestEveryAlertHasSummaryDescriptionSeverityAndRunbook(t *testing.T) {
	anchors := markdownAnchors(string(readRepoFile(t, "docs", "runbooks.md")))
	for _, a := range alerts(t) {
		if a.Alert == "" {
			t.Errorf("rule %q is not an alert", a.Expr)
			continue
		}
		for _, key := range []string{"summary", "description", "runbook_url"} {
			if strings.TrimSpace(a.Annotations[key]) == "" {
				t.Errorf("alert %s has no %s annotation", a.Alert, key)
			}
		}
		if s := a.Labels["severity"]; s != "warning" && s != "critical" {
			t.Errorf("alert %s: severity %q, want warning or critical", a.Alert, s)
		}
		url := a.Annotations["runbook_url"]
		anchor, ok := strings.CutPrefix(url, runbookBase)
		if !ok || !anchors[anchor] {
			t.Errorf("alert %s: runbook_url %q is not a section of docs/runbooks.md (%s<section>)", a.Alert, url, runbookBase)
		}
	}
}

func TestEveryAlertIsTestedFiringAndNotFiring(t *testing.T) {
	var tests struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `json:"alertname"`
				ExpAlerts []any  `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	if err := yaml.Unmarshal(readRepoFile(t, "config", "prometheus", "tests", "alerts_test.yaml"), &tests); err != nil {
		t.Fatalf("decoding the promtool tests: %v", err)
	}
	firing, silent := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, at := range tc.AlertRuleTest {
			if len(at.ExpAlerts) > 0 {
				firing[at.Alertname] = true
			} else {
				silent[at.Alertname] = true
			}
		}
	}
	for _, a := range alerts(t) {
		if !firing[a.Alert] {
			t.Errorf("alert %s has no promtool case where it fires (config/prometheus/tests)", a.Alert)
		}
		if !silent[a.Alert] {
			t.Errorf("alert %s has no promtool case where it does not fire (config/prometheus/tests)", a.Alert)
		}
	}
}

// heading matches a Markdown heading of level 2 or 3.
var heading = regexp.MustCompile(`(?m)^#{2,3} (.+)$`)

// markdownAnchors returns the anchors GitHub gives the level-2 and level-3 headings of a Markdown document:
// lower case, spaces as hyphens, punctuation other than hyphens and underscores dropped.
func markdownAnchors(doc string) map[string]bool {
	anchors := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(doc, -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		anchors[b.String()] = true
	}
	return anchors
}

func TestMarkdownAnchors(t *testing.T) {
	got := markdownAnchors("# Title\n## CronJobNotReady\ntext\n### Enabling the manifests\n## `x`: y_z\n")
	for _, want := range []string{"cronjobnotready", "enabling-the-manifests", "x-y_z"} {
		if !got[want] {
			t.Errorf("markdownAnchors: no %q in %v", want, got)
		}
	}
	if got["title"] {
		t.Errorf("markdownAnchors: level-1 heading %q counted", "title")
	}
}
