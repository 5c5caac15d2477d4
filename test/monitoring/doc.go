// Package monitoring checks the monitoring artefacts against what the operator exports: every query of the
// Grafana dashboard (config/grafana/cronjob-operator.json) and every expression of the PrometheusRule
// (config/prometheus/rules/prometheus_rule.yaml) may name only the operator's own metrics and the
// controller-runtime metrics that controller-runtime registers, gathered from its registry after it has run
// a controller, a workqueue and a leader elector in the test process. Expressions are parsed with
// Prometheus' PromQL parser, run as hack/tools/promtool/promqlnames (`go run`, in the promtool tools
// module, so that Prometheus stays out of this module's go.mod). alerts_test.go checks that every alert has
// a summary, a description, a severity, a runbook_url that is a section of docs/runbooks.md, and promtool
// cases where it fires and where it does not; the alerts' behaviour itself is tested by promtool (make
// check-monitoring, config/prometheus/tests), not here. ksm_test.go reads every path of the
// kube-state-metrics configuration (config/kube-state-metrics) in the generated CRDs' schema; the metrics
// KSM makes of it are tested with KSM itself (make check-ksm, hack/tools/ksm).
//
// Files: names_test.go (metric names of the dashboard and the rules), alerts_test.go (the alerts' metadata
// and test coverage), ksm_test.go (the kube-state-metrics configuration against the CRDs).
package monitoring
