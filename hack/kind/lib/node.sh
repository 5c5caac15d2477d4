# node.sh: the node image, made as `kind build node-image` makes it (Kubernetes binaries and a version file
# on the base image, images imported into containerd inside a running build container, then a commit), and
# the online alternative of pulling kind's published image. Sourced by node-image.sh after images.sh.
# shellcheck shell=bash disable=SC2034

BUILD_CONTAINER=

# in_build CMD... runs CMD in the build container.
in_build() { docker exec "${BUILD_CONTAINER}" "$@"; }

build_node_image() {
  local k=$1 b img i
  BUILD_CONTAINER=$(docker run -d --privileged --entrypoint sleep "${BASE_IMAGE}" infinity) ||
    die "cannot start a container of ${BASE_IMAGE}" "check a privileged container with hack/kind/docker.sh env"
  for b in kubeadm kubelet kubectl; do docker cp -q "${KUBE_DIR}/${b}" "${BUILD_CONTAINER}:/usr/bin/${b}"; done
  in_build sh -c "printf 'v${K8S_VERSION}' > /kind/version"

  in_build sh -c 'containerd > /var/log/containerd-build.log 2>&1 & echo $! > /run/containerd-build.pid'
  for ((i = 0; i < 60; i++)); do in_build ctr version >/dev/null 2>&1 && break; sleep 1; done
  in_build ctr version >/dev/null 2>&1 || { in_build tail -n 20 /var/log/containerd-build.log >&2 || true
    die "containerd did not start in the build container" "read the log above"; }
  # Images go in as the node's containerd will see them: pinned, so that kubelet never garbage-collects them.
  for img in $(component_images); do
    docker save "${img}" | docker exec -i "${BUILD_CONTAINER}" ctr -n k8s.io images import --label=io.cri-containerd.pinned=pinned \
      --all-platforms --no-unpack --digests - >> "${LOGS}/node-image.log" 2>&1 ||
      die "importing ${img} into the node's containerd failed (log: ${LOGS}/node-image.log)" "read the log"
  done
  local have; have=$(in_build ctr -n k8s.io images ls -q 2>> "${LOGS}/node-image.log")
  for img in $(component_images); do
    grep -qx "${img}" <<< "${have}" || die "${img} is missing from the node's containerd after import" "read ${LOGS}/node-image.log"
  done
  # Stop containerd so that its database is closed before the commit. Nothing reaps it in the build
  # container (its PID 1 is sleep), so it is gone once it is a zombie.
  in_build sh -c 'p=$(cat /run/containerd-build.pid); kill "$p"
    while [ -d "/proc/$p" ] && ! grep -q "^State:[[:space:]]*Z" "/proc/$p/status"; do sleep 0.2; done
    rm -rf /run/containerd-build.pid /var/log/containerd-build.log /run/containerd /tmp/*'

  docker commit --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' --change 'CMD []' \
    --change "LABEL ${INPUTS_LABEL}=${k}" "${BUILD_CONTAINER}" "${NODE_IMAGE}" >/dev/null
  docker rm -f "${BUILD_CONTAINER}" >/dev/null
  BUILD_CONTAINER=
}
key_node_image() {
  key node "${K8S_VERSION}" "$(key_base_image)" "$(key_component_images)" "$(key_kubernetes)" "$(declare -f build_node_image)"
}
node_image_step() { build_node_image "$(key_node_image)"; }

# pull_node_image tries kind's published node image and tags it NODE_IMAGE. On a host whose bounding set
# lacks CAP_SYS_RESOURCE it adds the containerd setting that such hosts need (see build_base_image).
pull_node_image() {
  log "trying the online path: docker pull ${ONLINE_NODE_IMAGE}"
  if ! timeout 300 docker pull -q "${ONLINE_NODE_IMAGE}" >> "${LOGS}/pull.log" 2>&1; then
    log "pull failed ($(tail -n 1 "${LOGS}/pull.log")); building offline"
    return 1
  fi
  if ! cap_missing "${CAP_SYS_RESOURCE}"; then
    docker tag "${ONLINE_NODE_IMAGE}" "${NODE_IMAGE}"
    return 0
  fi
  local entrypoint cid
  entrypoint=$(docker image inspect -f '{{json .Config.Entrypoint}}' "${ONLINE_NODE_IMAGE}")
  cid=$(docker create --entrypoint sed "${ONLINE_NODE_IMAGE}" -i \
    's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' /etc/containerd/config.toml)
  docker start -a "${cid}" >/dev/null
  docker commit --change "ENTRYPOINT ${entrypoint}" --change 'CMD []' "${cid}" "${NODE_IMAGE}" >/dev/null
  docker rm "${cid}" >/dev/null
}
