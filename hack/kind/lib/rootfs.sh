# rootfs.sh: host packages and the Debian root filesystems (node, and the base of the kube-proxy image),
# made with debootstrap from the mirror apt already uses. Sourced by node-image.sh after common.sh.
# shellcheck shell=bash disable=SC2034

HOST_PACKAGES=(debootstrap busybox-static containernetworking-plugins jq gcc libc6-dev)

# The node's packages: those of kind's base image, less nfs-common and open-iscsi (no storage drivers here),
# plus Debian's runc (kind builds its own) and a few tools for debugging a node.
NODE_PACKAGES=systemd,dbus,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,fuse-overlayfs,e2fsprogs,bash,ca-certificates,curl,jq,procps,runc,iputils-ping,less
# kube-proxy needs iptables/nftables and conntrack; ipset and kmod for its ipvs mode.
NETBASE_PACKAGES=iptables,conntrack,nftables,ipset,kmod

host_packages_step() {
  local missing=() p
  for p in "${HOST_PACKAGES[@]}"; do
    dpkg-query -W -f '${Status}' "${p}" 2>/dev/null | grep -q 'install ok installed' || missing+=("${p}")
  done
  if ((${#missing[@]} == 0)); then STEP_RESULT=cached; return 0; fi
  [[ $(id -u) -eq 0 ]] || die "missing host packages: ${missing[*]}" "apt-get install ${missing[*]} (as root)"
  local fix="check that Debian's mirror is reachable (apt-get update)"
  if ! apt-get install -y --no-install-recommends "${missing[@]}" >> "${LOGS}/host-packages.log" 2>&1; then
    logged host-packages "${fix}" apt-get update
    logged host-packages "${fix}" apt-get install -y --no-install-recommends "${missing[@]}"
  fi
}

# DEBIAN_MIRROR defaults to the mirror apt uses for ${DEBIAN_SUITE}.
DEBIAN_MIRROR=${DEBIAN_MIRROR:-$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
  awk -v s="${DEBIAN_SUITE}" '$2 == s {print $1; exit}')}
debian_mirror() {
  [[ -n "${DEBIAN_MIRROR}" ]] || die "apt has no source for Debian ${DEBIAN_SUITE}" "run apt-get update, or set DEBIAN_MIRROR (e.g. http://deb.debian.org/debian)"
  echo "${DEBIAN_MIRROR}"
}

# debootstrap_into DIR PACKAGES makes a minimal Debian in DIR. Downloaded .debs are kept in one cache shared
# by both root filesystems and by later rebuilds.
debootstrap_into() {
  local dir=$1 packages=$2 name=$3
  mkdir -p "${KIND_CACHE}/debcache"
  logged "${name}" "check that $(debian_mirror) is reachable, or set DEBIAN_MIRROR" \
    debootstrap --variant=minbase --cache-dir="${KIND_CACHE}/debcache" --include="${packages}" \
    "${DEBIAN_SUITE}" "${dir}" "$(debian_mirror)"
  rm -rf "${dir}"/var/lib/apt/lists/* "${dir}"/var/cache/apt/archives/*.deb "${dir}"/var/log/*.log
}

build_rootfs() { debootstrap_into "$1/rootfs" "${NODE_PACKAGES}" rootfs; }
key_rootfs() { key rootfs "${DEBIAN_SUITE}" "$(debian_mirror)" "${NODE_PACKAGES}" "$(declare -f build_rootfs debootstrap_into)"; }
rootfs_step() { artefact rootfs "$(key_rootfs)" build_rootfs; ROOTFS_DIR=${ART}/rootfs; }

build_netbase() { debootstrap_into "$1/rootfs" "${NETBASE_PACKAGES}" netbase; }
key_netbase() { key netbase "${DEBIAN_SUITE}" "$(debian_mirror)" "${NETBASE_PACKAGES}" "$(declare -f build_netbase debootstrap_into)"; }
netbase_step() { artefact netbase "$(key_netbase)" build_netbase; NETBASE_DIR=${ART}/rootfs; }
