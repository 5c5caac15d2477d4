#!/usr/bin/env bash
# cluster.sh creates and deletes the project's kind clusters: one node from the image of node-image.sh,
# configured by kind-config.yaml, with CoreDNS made to work offline and the e2e busybox image loaded. The
# kubeconfig is written to ${KIND_CACHE}/kubeconfig-NAME, never to ~/.kube.
#
# Usage (NAME defaults to KIND_CLUSTER_NAME, else cjo):
#   hack/kind/cluster.sh create [NAME]       prints the kubeconfig path (export KUBECONFIG=$(...))
#   hack/kind/cluster.sh delete [NAME]
#   hack/kind/cluster.sh kubeconfig [NAME]   prints the kubeconfig path
# Environment: DOCKER_HOST (from docker.sh when unset), KIND_CACHE_DIR.
# The kubectl it uses is ${KIND_CACHE}/bin/kubectl-v<version>, copied out of the node image.
set -o errexit -o nounset -o pipefail

HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=hack/kind/lib/common.sh
source "${HERE}/lib/common.sh"

cmd=${1:-}
name=${2:-${KIND_CLUSTER_NAME:-cjo}}
KIND="${ROOT}/bin/kind"
export KUBECONFIG="${KIND_CACHE}/kubeconfig-${name}"

# offline_coredns drops the forward plugin from the Corefile: there is no upstream resolver to reach, and
# CoreDNS's probes through Docker's embedded DNS time out.
offline_coredns() {
  local corefile patched
  corefile=$("${KUBECTL}" -n kube-system get configmap coredns -o jsonpath='{.data.Corefile}')
  patched=$(awk '
    skip && /^[[:space:]]*}[[:space:]]*$/ { skip = 0; next }
    skip { next }
    /^[[:space:]]*forward[[:space:]]/ { if ($0 ~ /\{[[:space:]]*$/) skip = 1; next }
    { print }' <<< "${corefile}")
  [[ "${patched}" != "${corefile}" ]] || return 0
  "${KUBECTL}" -n kube-system patch configmap coredns --type merge \
    -p "$(jq -n --arg c "${patched}" '{data: {Corefile: $c}}')" >/dev/null
  "${KUBECTL}" -n kube-system rollout restart deployment/coredns >/dev/null
  "${KUBECTL}" -n kube-system rollout status deployment/coredns --timeout=180s >&2 ||
    die "CoreDNS did not become ready" "look at: ${KUBECTL} --kubeconfig ${KUBECONFIG} -n kube-system describe pods -l k8s-app=kube-dns"
}

create() {
  if ! [[ -x "${KIND}" ]] || ! docker image inspect "${NODE_IMAGE}" "${BUSYBOX_IMAGE}" >/dev/null 2>&1; then
    die "bin/kind, ${NODE_IMAGE} or ${BUSYBOX_IMAGE} is missing" "run hack/kind/node-image.sh"
  fi
  ensure_kubectl
  if "${KIND}" get clusters 2>/dev/null | grep -qx "${name}"; then
    log "deleting the existing cluster ${name}"
    "${KIND}" delete cluster --name "${name}" --kubeconfig "${KUBECONFIG}" >&2
  fi
  local start=$SECONDS
  "${KIND}" create cluster --name "${name}" --image "${NODE_IMAGE}" --config "${KIND_DIR}/kind-config.yaml" \
    --kubeconfig "${KUBECONFIG}" --wait 4m >&2 ||
    die "kind create cluster failed (output above)" "to look inside, rerun that kind command with --retain -v 6 and read: docker exec ${name}-control-plane journalctl -u containerd -u kubelet"
  log "cluster ${name} up in $((SECONDS - start)) s"
  start=$SECONDS
  offline_coredns
  "${KIND}" load docker-image "${BUSYBOX_IMAGE}" --name "${name}" >&2
  log "CoreDNS patched and ${BUSYBOX_IMAGE} loaded in $((SECONDS - start)) s"
  echo "${KUBECONFIG}"
}

delete() {
  "${KIND}" delete cluster --name "${name}" --kubeconfig "${KUBECONFIG}" >&2
  rm -f "${KUBECONFIG}"
}

if [[ "${cmd}" != kubeconfig ]]; then
  eval "$("${HERE}/docker.sh" env)"
fi
case "${cmd}" in
  create) create ;;
  delete) delete ;;
  kubeconfig) echo "${KUBECONFIG}" ;;
  *) echo "usage: $0 create|delete|kubeconfig [NAME]" >&2; exit 2 ;;
esac
