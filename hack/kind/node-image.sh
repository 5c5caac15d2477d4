#!/usr/bin/env bash
# node-image.sh makes the kind node image for Kubernetes ${K8S_VERSION} (versions.sh), the busybox image of the
# e2e Jobs and the kind CLI in bin/kind, and prints the node image's name.
#
# It first tries kind's published node image (docker pull). Where no registry answers, it builds the image
# offline from the Go module proxy and Debian's mirror only: two debootstrap root filesystems, containerd,
# crictl, etcd, CoreDNS, pause and the seven Kubernetes commands built from source (version-stamped), kind's
# base image files from its Go module, the component images with the tags kubeadm expects, all imported into
# the node's containerd. The lib/*.sh files say why each piece is as it is.
#
# Everything built is kept in ${KIND_CACHE} (~/.cache/cronjob-operator/kind), keyed by a hash of its inputs
# (versions, the text of the script function that builds it, the tools modules' go.mod/go.sum, the Go
# version), and each image carries its key in the label dev.cronjob-operator.inputs: only what changed is
# rebuilt. Measured on 2 cores: 10 min from an empty kind cache when the Go build cache already holds
# kube-apiserver's dependencies (make envtest-assets), 3 min with a warm Go build cache, 1 s when nothing
# changed; budget 45-60 min on a machine whose Go caches are cold. Per-step timings go to stderr and to
# ${KIND_CACHE}/logs/timings.txt, build output to ${KIND_CACHE}/logs/<step>.log.
#
# Usage:
#   hack/kind/node-image.sh            prints the node image (cronjob-operator.local/kind-node:v1.37.2)
#   hack/kind/node-image.sh --offline  skips the docker pull
# Environment: DOCKER_HOST (see docker.sh; an engine is made available if none is given), KIND_CACHE_DIR,
#   DEBIAN_MIRROR (default: the mirror apt uses), KIND_NODE_OFFLINE=1 (same as --offline).
set -o errexit -o nounset -o pipefail

HERE=$(dirname "${BASH_SOURCE[0]}")
for f in common rootfs binaries images node; do
  # shellcheck source=/dev/null
  source "${HERE}/lib/${f}.sh"
done

offline=${KIND_NODE_OFFLINE:-}
case "${1:-}" in
  --offline) offline=1 ;;
  "") ;;
  *) echo "usage: $0 [--offline]" >&2; exit 2 ;;
esac

mkdir -p "${KIND_CACHE}" "${LOGS}" "${WORK}"
exec 9> "${KIND_CACHE}/node-image.lock"
flock -n 9 || { log "waiting for another node-image.sh to finish"; flock 9; }
# cleanup removes what a failed build leaves behind (the lock makes it ours alone).
cleanup() {
  [[ -z "${BUILD_CONTAINER}" ]] || docker rm -f "${BUILD_CONTAINER}" >/dev/null 2>&1 || true
  rm -rf "${ARTEFACTS}"/*.tmp "${WORK:?}"/*
}
trap cleanup EXIT

start=$SECONDS
log "cache: ${KIND_CACHE}"
docker_step() {
  local host
  host=$("${HERE}/docker.sh" host) || die "no Docker engine" "see the messages of hack/kind/docker.sh above"
  export DOCKER_HOST=${host}
  # shellcheck disable=SC2034 # read by step
  STEP_RESULT=ready
}
step docker docker_step
step host-packages host_packages_step
step kind kind_step
step busybox-image busybox_image_step

if image_has_key "${NODE_IMAGE}" "$(key_node_image)"; then
  log "${NODE_IMAGE} is up to date"
elif [[ -z "${offline}" ]] && pull_node_image; then
  log "${NODE_IMAGE} is kind's published ${ONLINE_NODE_IMAGE}"
else
  log "building ${NODE_IMAGE} offline"
  step rootfs rootfs_step
  step netbase netbase_step
  step containerd containerd_step
  step crictl crictl_step
  step etcd etcd_step
  step pause pause_step
  step coredns coredns_step
  step kubernetes kubernetes_step
  step base-image base_image_step
  step images component_images_step
  step node-image node_image_step
fi
log "done in $((SECONDS - start)) s"
echo "${NODE_IMAGE}"
