#!/usr/bin/env bash
# kube-score.sh scores the manifests `make deploy` applies (kustomize build config/default, with the image
# set to IMG as hack/deploy.sh sets it) with kube-score, twice:
#   default         config/default as shipped; its NetworkPolicies are off by default, so the
#                   pod-networkpolicy check is skipped here and only here;
#   network-policy  config/default with its `- ../network-policy` line enabled;
#   certmanager     config/default with its NetworkPolicies, the ../certmanager component, the admission
#                   policies (../policies/manual-runs, ../policies/manager-jobs) and ../flowcontrol: every
#                   optional part (which also checks that each still builds).
# Both skip container-image-pull-policy (config/manager/manager.yaml says why). The README's "Security"
# section explains every skipped check and warning. It fails on any critical finding; the reports go to OUT
# (default bin/kube-score-report/).
#
# Usage: hack/kube-score.sh
# Environment: KUSTOMIZE, KUBE_SCORE (paths of the tools), IMG (a versioned image: the placeholder
# controller:latest would be reported as "Image with latest tag"), KUBE_SCORE_K8S_VERSION, OUT.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KUSTOMIZE=${KUSTOMIZE:-kustomize}
KUBE_SCORE=${KUBE_SCORE:-kube-score}
IMG=${IMG:?IMG: the image to score the manifests with, e.g. example.com/cronjob-operator:v0.1.0}
KUBE_SCORE_K8S_VERSION=${KUBE_SCORE_K8S_VERSION:-v1.37}
OUT=${OUT:-${ROOT}/bin/kube-score-report}

tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT
cp -R "${ROOT}/config" "${tmp}/config"
(cd "${tmp}/config/manager" && "${KUSTOMIZE}" edit set image "controller=${IMG}")
mkdir -p "${OUT}"

# score NAME [kube-score flags]: scores ${tmp}/NAME.yaml into ${OUT}/NAME.txt and prints it.
score() {
  local name=$1 rc=0
  shift
  "${KUBE_SCORE}" score --kubernetes-version "${KUBE_SCORE_K8S_VERSION}" --color never \
    --ignore-test container-image-pull-policy "$@" "${tmp}/${name}.yaml" > "${OUT}/${name}.txt" || rc=$?
  echo "--- kube-score ${name} (exit ${rc})"
  cat "${OUT}/${name}.txt"
  return "${rc}"
}

"${KUSTOMIZE}" build "${tmp}/config/default" > "${tmp}/default.yaml"
sed -i 's|^#- ../network-policy$|- ../network-policy|' "${tmp}/config/default/kustomization.yaml"
grep -q '^- ../network-policy$' "${tmp}/config/default/kustomization.yaml" || {
  echo "kube-score.sh: config/default/kustomization.yaml has no '#- ../network-policy' line to enable" >&2
  exit 1
}
"${KUSTOMIZE}" build "${tmp}/config/default" > "${tmp}/network-policy.yaml"
sed -i 's|^# components:$|components:|; s|^# - ../certmanager$|- ../certmanager|' "${tmp}/config/default/kustomization.yaml"
grep -q '^- ../certmanager$' "${tmp}/config/default/kustomization.yaml" || {
  echo "kube-score.sh: config/default/kustomization.yaml has no '# - ../certmanager' component to enable" >&2
  exit 1
}
for part in policies/manual-runs policies/manager-jobs flowcontrol; do
  sed -i "s|^#- ../${part}\$|- ../${part}|" "${tmp}/config/default/kustomization.yaml"
  grep -q "^- ../${part}\$" "${tmp}/config/default/kustomization.yaml" || {
    echo "kube-score.sh: config/default/kustomization.yaml has no '#- ../${part}' line to enable" >&2
    exit 1
  }
done
"${KUSTOMIZE}" build "${tmp}/config/default" > "${tmp}/certmanager.yaml"

rc=0
score default --ignore-test pod-networkpolicy || rc=1
score network-policy || rc=1
score certmanager || rc=1
exit "${rc}"
