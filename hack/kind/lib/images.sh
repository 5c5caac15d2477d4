# images.sh: the container images of the node, made with `docker import` from directories (no registry, no
# FROM an image that would have to be pulled): kind's base image, the Kubernetes component images with the
# tags kubeadm expects, and the busybox image of the e2e Jobs. Sourced by node-image.sh after binaries.sh.
# shellcheck shell=bash disable=SC2034

BASE_IMAGE=cronjob-operator.local/kind-base:${DEBIAN_SUITE}
PATH_ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WORK="${KIND_CACHE}/work"

# import_dir DIR IMAGE KEY CHANGE... makes IMAGE, labelled with KEY, from the contents of DIR.
import_dir() {
  local dir=$1 image=$2 k=$3; shift 3
  local args=(--change "ENV ${PATH_ENV}" --change "LABEL ${INPUTS_LABEL}=${k}") c
  for c in "$@"; do args+=(--change "${c}"); done
  tar -C "${dir}" --numeric-owner -c . | docker import "${args[@]}" - "${image}" >> "${LOGS}/images.log" ||
    die "docker import of ${image} failed (log: ${LOGS}/images.log)" "check the engine with hack/kind/docker.sh status"
}

# build_base_image reproduces kind's images/base/Dockerfile on the debootstrap root filesystem.
build_base_image() {
  local k=$1 dir="${WORK}/base" files f mode
  files="$(module_dir "sigs.k8s.io/kind@${KIND_VERSION}")/images/base/files"
  rm -rf "${dir}" && mkdir -p "${dir}"
  cp -a "${ROOTFS_DIR}/." "${dir}/"
  while read -r f; do
    case "${f}" in usr/local/bin/* | kind/bin/*) mode=0755 ;; *) mode=0644 ;; esac
    install -D -m "${mode}" "${files}/${f}" "${dir}/${f}"
  done < <(cd "${files}" && find . -type f -printf '%P\n')
  # Containerd must not lower a sandbox's oom_score_adj: that needs CAP_SYS_RESOURCE, which some hosts'
  # bounding sets lack, and then every sandbox fails to start.
  sed -i 's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' "${dir}/etc/containerd/config.toml"
  grep -q 'restrict_oom_score_adj = true' "${dir}/etc/containerd/config.toml" ||
    die "kind ${KIND_VERSION}'s containerd config no longer has restrict_oom_score_adj" "update build_base_image for it"
  # The systemd clean-up of kind's Dockerfile.
  find "${dir}/lib/systemd/system/sysinit.target.wants/" -name systemd-tmpfiles-setup.service -delete
  rm -f "${dir}"/lib/systemd/system/multi-user.target.wants/* "${dir}"/etc/systemd/system/*.wants/* \
    "${dir}"/lib/systemd/system/local-fs.target.wants/* "${dir}"/lib/systemd/system/sockets.target.wants/*udev* \
    "${dir}"/lib/systemd/system/sockets.target.wants/*initctl* "${dir}"/lib/systemd/system/basic.target.wants/*
  echo "ReadKMsg=no" >> "${dir}/etc/systemd/journald.conf"
  ln -sfn /usr/lib/systemd/systemd "${dir}/sbin/init"
  logged base-image "check the systemd units copied from kind's base image files" \
    chroot "${dir}" systemctl enable kubelet.service containerd.service undo-mount-hacks.service
  logged base-image "check that systemd is in the node root filesystem" chroot "${dir}" systemctl mask systemd-binfmt.service
  mkdir -p "${dir}/etc/kubernetes/manifests"
  # Runtime: our containerd and crictl, Debian's runc where kind's config expects its own, Debian's CNI plugins.
  install -m 0755 "${CONTAINERD_DIR}"/{containerd,ctr,containerd-shim-runc-v2} "${CRICTL_DIR}/crictl" "${dir}/usr/local/bin/"
  ln -sfn /usr/sbin/runc "${dir}/usr/local/sbin/runc"
  "${CONTAINERD_DIR}/ctr" oci spec |
    jq '.hooks.createContainer[.hooks.createContainer | length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' |
    jq 'del(.process.rlimits)' > "${dir}/etc/containerd/cri-base.json"
  for f in host-local loopback ptp portmap bridge; do
    [[ -x "/usr/lib/cni/${f}" ]] || die "/usr/lib/cni/${f} is missing" "apt-get install containernetworking-plugins"
    install -D -m 0755 "/usr/lib/cni/${f}" "${dir}/opt/cni/bin/${f}"
  done
  install -D -m 0644 "${KIND_DIR}/files/10-bridge.conflist" "${dir}/etc/cni/net.d/10-bridge.conflist"
  rm -rf "${dir:?}"/tmp/* "${dir}"/var/tmp/* "${dir}"/var/cache/debconf/*-old
  import_dir "${dir}" "${BASE_IMAGE}-rootfs" "${k}" "ENV container=docker" \
    'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]'
  rm -rf "${dir}"
  # docker import cannot set STOPSIGNAL; a one-line build on the local image can (the legacy builder needs
  # no registry for a FROM that is already present).
  printf 'FROM %s\nSTOPSIGNAL SIGRTMIN+3\n' "${BASE_IMAGE}-rootfs" |
    logged base-image "check the engine with hack/kind/docker.sh status" env DOCKER_BUILDKIT=0 docker build -q -t "${BASE_IMAGE}" -
  docker rmi "${BASE_IMAGE}-rootfs" >/dev/null
}
key_base_image() {
  key base "${KIND_VERSION}" "$(key_rootfs)" "$(key_containerd)" "$(key_crictl)" \
    "$(declare -f build_base_image import_dir)" "${KIND_DIR}/files/10-bridge.conflist"
}
base_image_step() {
  local k; k=$(key_base_image)
  if image_has_key "${BASE_IMAGE}" "${k}"; then STEP_RESULT=cached; return 0; fi
  build_base_image "${k}"
}

# glibc_tree DIR copies into DIR what a dynamically linked Go binary and a distroless-like image need, from
# the node root filesystem: the libraries the Kubernetes binaries link, CA certificates, time zones,
# passwd/group with the nonroot users, and /tmp.
glibc_tree() {
  local dir=$1 lib
  mkdir -p "${dir}/etc/ssl/certs" "${dir}/tmp" "${dir}/usr/share"
  chmod 1777 "${dir}/tmp"
  for lib in $(ldd "${KUBE_DIR}/kube-apiserver" "${KUBE_DIR}/kubelet" | awk '$1 ~ /^\// && $1 !~ /:$/ {print $1} $3 ~ /^\// {print $3}' | sort -u); do
    [[ -e "${ROOTFS_DIR}${lib}" ]] || die "${lib} is not in the node root filesystem" "build on a host whose glibc matches Debian ${DEBIAN_SUITE}"
    mkdir -p "${dir}$(dirname "${lib}")"
    cp -L "${ROOTFS_DIR}${lib}" "${dir}${lib}"
  done
  cp -L "${ROOTFS_DIR}/etc/ssl/certs/ca-certificates.crt" "${dir}/etc/ssl/certs/"
  [[ ! -d "${ROOTFS_DIR}/usr/share/zoneinfo" ]] || cp -a "${ROOTFS_DIR}/usr/share/zoneinfo" "${dir}/usr/share/"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > "${dir}/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' > "${dir}/etc/group"
  printf 'hosts: files dns\n' > "${dir}/etc/nsswitch.conf"
}

# kubeadm_image NAME prints the image kubeadm deploys for NAME (kube-apiserver, etcd, coredns, pause, ...).
kubeadm_image() {
  "${KUBE_DIR}/kubeadm" config images list --kubernetes-version "v${K8S_VERSION}" 2>/dev/null | grep -m1 "/$1:" ||
    die "kubeadm v${K8S_VERSION} lists no $1 image" "check versions.sh against 'kubeadm config images list'"
}

# build_component_images makes every image that kubeadm and kind's containerd config name.
build_component_images() {
  local k=$1 glibc="${WORK}/glibc" dir="${WORK}/component" c tag
  rm -rf "${glibc}" && glibc_tree "${glibc}"
  for c in kube-apiserver kube-controller-manager kube-scheduler; do
    rm -rf "${dir}" && cp -a "${glibc}" "${dir}"
    install -D -m 0755 "${KUBE_DIR}/${c}" "${dir}/usr/local/bin/${c}"
    import_dir "${dir}" "$(kubeadm_image "${c}")" "${k}"
  done

  tag=$(kubeadm_image etcd)
  [[ "${tag}" == *":${ETCD_VERSION#v}-"* ]] || die "kubeadm wants ${tag}, versions.sh builds etcd ${ETCD_VERSION}" "set ETCD_VERSION (and hack/tools/kind-etcd) to kubeadm's"
  rm -rf "${dir}" && cp -a "${glibc}" "${dir}"
  install -D -m 0755 "${ETCD_DIR}/etcd" "${dir}/usr/local/bin/etcd"
  import_dir "${dir}" "${tag}" "${k}"

  tag=$(kubeadm_image coredns)
  [[ "${tag}" == *":${COREDNS_VERSION}" ]] || die "kubeadm wants ${tag}, versions.sh builds CoreDNS ${COREDNS_VERSION}" "set COREDNS_VERSION to kubeadm's"
  rm -rf "${dir}" && cp -a "${glibc}" "${dir}"
  install -D -m 0755 "${COREDNS_DIR}/coredns" "${dir}/coredns"
  import_dir "${dir}" "${tag}" "${k}" 'ENTRYPOINT ["/coredns"]' "USER 65532"

  tag=$(kubeadm_image pause)
  [[ "${tag}" == *":${PAUSE_TAGS[0]}" ]] || die "kubeadm wants ${tag}, versions.sh has pause ${PAUSE_TAGS[0]}" "set PAUSE_TAGS to kubeadm's first"
  rm -rf "${dir}" && mkdir -p "${dir}"
  install -m 0755 "${PAUSE_DIR}/pause" "${dir}/pause"
  import_dir "${dir}" "${tag}" "${k}" 'ENTRYPOINT ["/pause"]' "USER 65535:65535"
  for c in "${PAUSE_TAGS[@]:1}"; do docker tag "${tag}" "${tag%:*}:${c}"; done

  # kube-proxy needs iptables, so its image is the netbase root filesystem, not the glibc one.
  rm -rf "${dir}" && cp -a "${NETBASE_DIR}" "${dir}"
  install -m 0755 "${KUBE_DIR}/kube-proxy" "${dir}/usr/local/bin/kube-proxy.bin"
  install -m 0755 "${KIND_DIR}/files/kube-proxy-wrapper" "${dir}/usr/local/bin/kube-proxy"
  import_dir "${dir}" "$(kubeadm_image kube-proxy)" "${k}"
  rm -rf "${dir}" "${glibc}"
}
key_component_images() {
  key components "${K8S_VERSION}" "${PAUSE_TAGS[*]}" "$(key_kubernetes)" "$(key_etcd)" "$(key_coredns)" "$(key_pause)" \
    "$(key_rootfs)" "$(key_netbase)" "$(declare -f build_component_images glibc_tree import_dir kubeadm_image)" \
    "${KIND_DIR}/files/kube-proxy-wrapper"
}
# component_images prints every image (one tag a line) that the node must hold.
component_images() {
  local c
  for c in kube-apiserver kube-controller-manager kube-scheduler kube-proxy etcd coredns pause; do kubeadm_image "${c}"; done
  for c in "${PAUSE_TAGS[@]:1}"; do echo "registry.k8s.io/pause:${c}"; done
}
component_images_step() {
  local k img missing=0; k=$(key_component_images)
  for img in $(component_images); do image_has_key "${img}" "${k}" || missing=1; done
  if ((missing == 0)); then STEP_RESULT=cached; return 0; fi
  build_component_images "${k}"
}

# build_busybox_image makes the image of the e2e Jobs: Debian's static busybox and a link per applet.
# Its wget crashes (static glibc without NSS modules); nc and nslookup work.
build_busybox_image() {
  local k=$1 dir="${WORK}/busybox" applet
  rm -rf "${dir}" && mkdir -p "${dir}/bin" "${dir}/tmp" "${dir}/etc"
  chmod 1777 "${dir}/tmp"
  install -m 0755 /bin/busybox "${dir}/bin/busybox"
  for applet in $(/bin/busybox --list-full); do
    [[ "${applet}" == bin/busybox ]] && continue
    mkdir -p "${dir}/$(dirname "${applet}")"
    ln -sfn /bin/busybox "${dir}/${applet}"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "${dir}/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\n' > "${dir}/etc/group"
  import_dir "${dir}" "${BUSYBOX_IMAGE}" "${k}" 'CMD ["sh"]'
  rm -rf "${dir}"
}
key_busybox_image() {
  key busybox "$(dpkg-query -W -f '${Version}' busybox-static 2>/dev/null)" "$(declare -f build_busybox_image import_dir)"
}
busybox_image_step() {
  local k; k=$(key_busybox_image)
  if image_has_key "${BUSYBOX_IMAGE}" "${k}"; then STEP_RESULT=cached; return 0; fi
  build_busybox_image "${k}"
}
