#!/usr/bin/env bash
# smoke.sh checks the offline kind toolchain end to end: the node image (built or reused by node-image.sh),
# a cluster from it, a busybox Job that resolves and reaches the kubernetes Service through cluster DNS,
# and the deletion of the cluster. On failure it prints the cluster's state before deleting it.
#
# Usage: hack/kind/smoke.sh [--keep]    --keep leaves the cluster (delete: hack/kind/cluster.sh delete cjo-smoke)
# Environment: KIND_CLUSTER_NAME (default cjo-smoke), DOCKER_HOST, KIND_CACHE_DIR.
set -o errexit -o nounset -o pipefail

HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=hack/kind/lib/common.sh
source "${HERE}/lib/common.sh"

keep=
[[ "${1:-}" != --keep ]] || keep=1
name=${KIND_CLUSTER_NAME:-cjo-smoke}
start=$SECONDS

eval "$("${HERE}/docker.sh" env)"
t=$SECONDS; "${HERE}/node-image.sh" >/dev/null; log "node image ready in $((SECONDS - t)) s"

created=
finish() {
  local rc=$?
  if ((rc != 0)) && [[ -n "${created}" ]]; then
    log "FAILED; the cluster's state:"
    "${KUBECTL}" get nodes,pods -A -o wide >&2 || true
    "${KUBECTL}" describe job smoke >&2 || true
    "${KUBECTL}" logs job/smoke --all-containers >&2 || true
    "${KUBECTL}" get events -A --sort-by=.lastTimestamp >&2 || true
  fi
  if [[ -n "${created}" && -z "${keep}" ]]; then
    t=$SECONDS; "${HERE}/cluster.sh" delete "${name}" || true; log "cluster deleted in $((SECONDS - t)) s"
  fi
  ((rc != 0)) || log "PASS in $((SECONDS - start)) s"
}
trap finish EXIT

KUBECONFIG=$("${HERE}/cluster.sh" kubeconfig "${name}")
export KUBECONFIG
t=$SECONDS
created=1
"${HERE}/cluster.sh" create "${name}" >/dev/null
log "cluster ${name} ready in $((SECONDS - t)) s (KUBECONFIG=${KUBECONFIG})"

t=$SECONDS
"${KUBECTL}" apply -f "${KIND_DIR}/manifests/smoke-job.yaml" >&2
"${KUBECTL}" wait --for=condition=complete job/smoke --timeout=180s >&2 ||
  die "the smoke Job did not complete" "read the Job's events and logs above"
"${KUBECTL}" logs job/smoke >&2
log "smoke Job completed in $((SECONDS - t)) s"
