#!/usr/bin/env bash
# helm-lint.sh checks the committed chart dist/chart (make helm-lint, in CI):
#   1. helm lint --strict with the default values and with every option on (dist/chart/ci/all-options-values.yaml);
#   2. helm template with the default values renders exactly the objects of dist/install.yaml, and with
#      every optional part on (cert-manager, ServiceMonitor, PrometheusRule, NetworkPolicy, PDB, the admission
#      policies, the flow control) those of
#      config/default with those parts added (hack/dist.sh full), bar Helm's labels and the Namespace
#      (hack/chartgen -compare): the two install paths are one;
#   3. helm template with every option on, with webhooks and metrics off, and as a second release in a
#      cluster, renders what those values say; values.schema.json refuses bad values; and every value of
#      values.yaml changes the rendering (hack/chartgen -every-key: no dead values).
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
# The renderings compared with config/'s builds leave out the helm test (templates/tests), which config/ has not.
render_objects() { render --skip-tests "$@"; }

"${HELM}" version
"${HELM}" lint --strict --namespace "${NS}" "${CHART}"
"${HELM}" lint --strict --namespace "${NS}" -f "${CHART}/ci/all-options-values.yaml" "${CHART}"

go build -o "${tmp}/chartgen" ./hack/chartgen
render_objects > "${tmp}/default.yaml"
"${tmp}/chartgen" -compare "${tmp}/default.yaml" dist/install.yaml

repo=$(sed -n 's/^  repository: //p' "${CHART}/values.yaml" | head -n 1)
tag=$(sed -n 's/^  tag: "\(.*\)"$/\1/p' "${CHART}/values.yaml" | head -n 1)
IMG="${repo}:${tag}" hack/dist.sh full > "${tmp}/full-expected.yaml"
render_objects --set certManager.enabled=true,metrics.serviceMonitor.enabled=true,prometheusRule.enabled=true,dashboard.enabled=true \
  --set networkPolicy.enabled=true,podDisruptionBudget.enabled=true \
  --set policies.manualRuns.enabled=true,policies.managerJobs.enabled=true,flowControl.enabled=true \
  > "${tmp}/full.yaml"
"${tmp}/chartgen" -compare "${tmp}/full.yaml" "${tmp}/full-expected.yaml"

render -f "${CHART}/ci/all-options-values.yaml" > "${tmp}/all.yaml"
for want in '--watch-namespaces=team-a,team-b' '--enable-http2' '--webhook-cert-rotation=false' \
  '"--zap-log-level=debug"' 'replicas: 2' 'name: cronjob-operator-manager-role-watched' 'namespace: team-b' \
  'cert-manager.io/inject-ca-from: cronjob-operator-system/cronjob-operator-serving-cert' \
  'policyName: cronjob-operator-manual-runs' 'policyName: cronjob-operator-manager-jobs' \
  'name: cronjob-operator-manager' 'kind: FlowSchema' 'helm.sh/hook: test' '- --self-test-namespace=team-a'; do
  grep -qF -- "${want}" "${tmp}/all.yaml" || fail "every option on: the rendering lacks ${want}"
done

render --set webhooks.enabled=false,metrics.enabled=false > "${tmp}/off.yaml"
for unwanted in 'kind: ValidatingWebhookConfiguration' 'kind: MutatingWebhookConfiguration' '--enable-webhooks' \
  'name: cronjob-operator-controller-manager-metrics-service' 'secretName: cronjob-operator-webhook-server-cert'; do
  ! grep -qF -- "${unwanted}" "${tmp}/off.yaml" || fail "webhooks and metrics off: the rendering has ${unwanted}"
done
grep -qF -- '--metrics-bind-address=0' "${tmp}/off.yaml" || fail "metrics off: no --metrics-bind-address=0"

# A metrics certificate of one's own: served from its Secret, and the ServiceMonitor verifies it with its CA.
render --set metrics.certSecretName=my-metrics-tls --set metrics.serviceMonitor.enabled=true > "${tmp}/metrics-cert.yaml"
for want in '--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs' 'secretName: my-metrics-tls' \
  'insecureSkipVerify: false' 'serverName: cronjob-operator-controller-manager-metrics-service.cronjob-operator-system.svc'; do
  grep -qF -- "${want}" "${tmp}/metrics-cert.yaml" || fail "metrics.certSecretName: the rendering lacks ${want}"
done
! grep -qF -- 'insecureSkipVerify: true' "${tmp}/metrics-cert.yaml" || fail "metrics.certSecretName: the ServiceMonitor still skips verification"

# values.schema.json refuses a misspelt key and a value of the wrong kind, naming it.
for bad in 'replica=3' 'image.pullPolicy=Sometimes' 'watchNamespaces={Team_A}' 'metrics.serviceMonitor.interval=soon'; do
  if out=$(render --set "${bad}" 2>&1); then fail "the schema admits --set ${bad}"; fi
  grep -q 'values don.t meet the specifications of the schema' <<<"${out}" || fail "--set ${bad} fails, but not by the schema: ${out}"
done

# Every value changes the rendering (no dead values): hack/chartgen -every-key.
"${tmp}/chartgen" -every-key "${CHART}" -helm "${HELM}"

# A second release in a cluster (README "Install"): every name is the release's, bar the CRDs' (not
# installed by it), its webhooks judge only its namespaces, and it leaves the CRD's conversion alone.
"${HELM}" template team-b "${CHART}" --namespace team-b -f "${CHART}/ci/all-options-values.yaml" \
  --set crd.enabled=false --set 'watchNamespaces={b1,b2}' > "${tmp}/second.yaml"
others=$(grep -E '^  name: ' "${tmp}/second.yaml" | grep -v '^  name: team-b-cronjob-operator-' || true)
[[ -z "${others}" ]] || fail "a second release: names that are not the release's: ${others}"
! grep -q 'kind: CustomResourceDefinition' "${tmp}/second.yaml" || fail "a second release with crd.enabled=false installs a CRD"
for want in '--conversion-crd=' 'key: kubernetes.io/metadata.name' '- b2' \
  'name: team-b-cronjob-operator-controller-manager' 'namespace: b1'; do
  grep -qF -- "${want}" "${tmp}/second.yaml" || fail "a second release: the rendering lacks ${want}"
done
echo "helm-lint: dist/chart lints, renders dist/install.yaml and config/'s optional parts, and every option"
