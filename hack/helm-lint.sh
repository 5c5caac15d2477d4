#!/usr/bin/env bash
# helm-lint.sh checks the committed chart dist/chart (make helm-lint, in CI):
#   1. helm lint --strict with the default values and with every option on (dist/chart/ci/all-options-values.yaml);
#   2. helm template with the default values renders exactly the objects of dist/install.yaml, and with
#      every optional part on (cert-manager, ServiceMonitor, PrometheusRule, NetworkPolicy, PDB, the admission
#      policies, the flow control) those of
#      config/default with those parts added (hack/dist.sh full), bar Helm's labels and the Namespace
#      (hack/chartgen -compare): the two install paths are one;
#   3. helm template with every option on, and with webhooks and metrics off, renders what those values say.
#
# Usage: hack/helm-lint.sh   Environment: HELM, KUSTOMIZE (default: from PATH).
set -o errexit -o nounset -o pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
HELM=${HELM:-helm}
CHART=dist/chart
NS=cronjob-operator-system
tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT

fail() { echo "helm-lint: $*" >&2; exit 1; }
render() { "${HELM}" template cronjob-operator "${CHART}" --namespace "${NS}" "$@"; }

"${HELM}" version
"${HELM}" lint --strict --namespace "${NS}" "${CHART}"
"${HELM}" lint --strict --namespace "${NS}" -f "${CHART}/ci/all-options-values.yaml" "${CHART}"

go build -o "${tmp}/chartgen" ./hack/chartgen
render > "${tmp}/default.yaml"
"${tmp}/chartgen" -compare "${tmp}/default.yaml" dist/install.yaml

repo=$(sed -n 's/^  repository: //p' "${CHART}/values.yaml" | head -n 1)
tag=$(sed -n 's/^  tag: "\(.*\)"$/\1/p' "${CHART}/values.yaml" | head -n 1)
IMG="${repo}:${tag}" hack/dist.sh full > "${tmp}/full-expected.yaml"
render --set certManager.enabled=true,metrics.serviceMonitor.enabled=true,prometheusRule.enabled=true \
  --set networkPolicy.enabled=true,podDisruptionBudget.enabled=true \
  --set policies.manualRuns.enabled=true,policies.managerJobs.enabled=true,flowControl.enabled=true \
  > "${tmp}/full.yaml"
"${tmp}/chartgen" -compare "${tmp}/full.yaml" "${tmp}/full-expected.yaml"

render -f "${CHART}/ci/all-options-values.yaml" > "${tmp}/all.yaml"
for want in '--watch-namespaces=team-a,team-b' '--enable-http2' '--webhook-cert-rotation=false' \
  '"--zap-log-level=debug"' 'replicas: 2' 'name: cronjob-operator-manager-role-watched' 'namespace: team-b' \
  'cert-manager.io/inject-ca-from: cronjob-operator-system/cronjob-operator-serving-cert' \
  'policyName: cronjob-operator-manual-runs' 'policyName: cronjob-operator-manager-jobs' \
  'name: cronjob-operator-manager' 'kind: FlowSchema'; do
  grep -qF -- "${want}" "${tmp}/all.yaml" || fail "every option on: the rendering lacks ${want}"
done

render --set webhooks.enabled=false,metrics.enabled=false > "${tmp}/off.yaml"
for unwanted in 'kind: ValidatingWebhookConfiguration' 'kind: MutatingWebhookConfiguration' '--enable-webhooks' \
  'name: cronjob-operator-controller-manager-metrics-service' 'secretName: cronjob-operator-webhook-server-cert'; do
  ! grep -qF -- "${unwanted}" "${tmp}/off.yaml" || fail "webhooks and metrics off: the rendering has ${unwanted}"
done
grep -qF -- '--metrics-bind-address=0' "${tmp}/off.yaml" || fail "metrics off: no --metrics-bind-address=0"
echo "helm-lint: dist/chart lints, renders dist/install.yaml and config/'s optional parts, and every option"
