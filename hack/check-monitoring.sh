#!/usr/bin/env bash
# check-monitoring.sh checks the monitoring manifests with promtool: it extracts the rule groups of the
# PrometheusRule (config/prometheus/rules/prometheus_rule.yaml, the only copy of the rules) into
# bin/monitoring/cronjob-operator.rules.yaml, runs `promtool check rules` on them and `promtool test rules`
# on every unit test in config/prometheus/tests (copied beside the rule file, which they name).
#
# Environment: PROMTOOL  the promtool binary (default bin/promtool, from make promtool)
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
PROMTOOL=${PROMTOOL:-bin/promtool}
PROMTOOL="$(cd "$(dirname "${PROMTOOL}")" && pwd)/$(basename "${PROMTOOL}")"
out=bin/monitoring

rm -rf "${out}" && mkdir -p "${out}"
go run ./hack/promrules config/prometheus/rules/prometheus_rule.yaml "${out}/cronjob-operator.rules.yaml"
"${PROMTOOL}" check rules "${out}/cronjob-operator.rules.yaml"
cp config/prometheus/tests/*.yaml "${out}/"
(cd "${out}" && "${PROMTOOL}" test rules ./*_test.yaml)
