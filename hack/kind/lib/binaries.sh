# binaries.sh: the Go (and one C) programs of the node image, built from the Go module proxy. Each is an
# artefact keyed by its version, the text of its build function and the Go version, so that only what changed
# is rebuilt. Sourced by node-image.sh after common.sh.
# shellcheck shell=bash disable=SC2034

GO_VERSION_LINE=$(go version 2>/dev/null || true)

# kube_ldflags VERSION prints the -X flags that stamp a Kubernetes version into a binary: kubeadm, kubelet
# and kind all read it.
kube_ldflags() {
  local v=$1 minor p flags="-s -w"
  minor=${v#*.}; minor=${minor%%.*}
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X ${p}.gitVersion=v${v} -X ${p}.gitMajor=${v%%.*} -X ${p}.gitMinor=${minor}"
    flags+=" -X ${p}.gitTreeState=clean -X ${p}.gitCommit=0000000000000000000000000000000000000000"
    flags+=" -X ${p}.buildDate=1970-01-01T00:00:00Z"
  done
  echo "${flags}"
}

build_containerd() {
  local out=$1 pkg=github.com/containerd/containerd/v2
  local ldflags="-s -w -X ${pkg}/version.Version=${CONTAINERD_VERSION} -X ${pkg}/version.Package=${pkg}"
  local fix="check that the Go module proxy is reachable and gcc works (containerd is built with cgo)"
  logged containerd "${fix}" env GOBIN="${out}" CGO_ENABLED=1 go install -trimpath -tags "no_btrfs no_devmapper no_zfs no_aufs" \
    -ldflags "${ldflags}" "${pkg}/cmd/containerd@${CONTAINERD_VERSION}" "${pkg}/cmd/ctr@${CONTAINERD_VERSION}"
  # The shim is static, as containerd's own Makefile builds it.
  logged containerd "${fix}" env GOBIN="${out}" CGO_ENABLED=0 go install -trimpath -ldflags "${ldflags}" \
    "${pkg}/cmd/containerd-shim-runc-v2@${CONTAINERD_VERSION}"
}
key_containerd() { key containerd "${CONTAINERD_VERSION}" "$(declare -f build_containerd)" "${GO_VERSION_LINE}"; }

build_crictl() {
  logged crictl "check that the Go module proxy is reachable" env GOBIN="$1" CGO_ENABLED=0 go install -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=${CRICTL_VERSION}" \
    "sigs.k8s.io/cri-tools/cmd/crictl@${CRICTL_VERSION}"
}
key_crictl() { key crictl "${CRICTL_VERSION}" "$(declare -f build_crictl)" "${GO_VERSION_LINE}"; }

build_etcd() {
  local mod="${ROOT}/hack/tools/kind-etcd"
  grep -q "go.etcd.io/etcd/server/v3 ${ETCD_VERSION}\$" "${mod}/go.mod" ||
    die "hack/tools/kind-etcd/go.mod does not require etcd ${ETCD_VERSION}" "edit its require line to ${ETCD_VERSION} and run go mod tidy there"
  (cd "${mod}" && logged etcd "check that the Go module proxy is reachable" env CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w" -o "$1/etcd" .)
}
key_etcd() {
  key etcd "${ETCD_VERSION}" "$(declare -f build_etcd)" "${GO_VERSION_LINE}" \
    "${ROOT}/hack/tools/kind-etcd/go.mod" "${ROOT}/hack/tools/kind-etcd/go.sum" "${ROOT}/hack/tools/kind-etcd/main.go"
}

# build_pause compiles the pause container's C source, which ships in the k8s.io/kubernetes module.
build_pause() {
  local src
  src="$(module_dir "k8s.io/kubernetes@v${K8S_VERSION}")/build/pause/linux/pause.c"
  [[ -f "${src}" ]] || die "${src} is missing" "check K8S_VERSION in hack/kind/versions.sh"
  logged pause "install gcc and libc6-dev (apt-get install gcc libc6-dev)" \
    gcc -Os -static -Wall -Werror -DVERSION="v${PAUSE_TAGS[0]}" -o "$1/pause" "${src}"
  logged pause "check that gcc produced a static binary" strip "$1/pause"
}
key_pause() { key pause "${K8S_VERSION}" "${PAUSE_TAGS[*]}" "$(declare -f build_pause)"; }

build_coredns() {
  logged coredns "check that the Go module proxy is reachable" env GOBIN="$1" CGO_ENABLED=0 go install -trimpath \
    -ldflags "-s -w" "github.com/coredns/coredns@${COREDNS_VERSION}"
}
key_coredns() { key coredns "${COREDNS_VERSION}" "$(declare -f build_coredns)" "${GO_VERSION_LINE}"; }

# build_kubernetes builds the seven commands in one go build from hack/tools/kube, the module envtest's
# kube-apiserver and kubectl come from, so that they share the Go build cache. cgo stays at its default for
# the same reason: the binaries then need glibc (libc.so.6 and the loader), which the images provide.
build_kubernetes() {
  local mod="${ROOT}/hack/tools/kube" cmds=() c
  grep -q "k8s.io/kubernetes v${K8S_VERSION}\$" "${mod}/go.mod" ||
    die "hack/tools/kube/go.mod does not pin k8s.io/kubernetes v${K8S_VERSION}" "run hack/gen-kube-tools-mod.sh ${K8S_VERSION}"
  for c in "${KUBE_COMMANDS[@]}"; do cmds+=("k8s.io/kubernetes/cmd/${c}"); done
  (cd "${mod}" && logged kubernetes "check that the Go module proxy is reachable and that the machine has ~3 GB of free memory" \
    go build -trimpath -ldflags "$(kube_ldflags "${K8S_VERSION}")" -o "$1/" "${cmds[@]}")
  "$1/kubeadm" version -o short | grep -qx "v${K8S_VERSION}" || die "kubeadm does not report v${K8S_VERSION}" "check kube_ldflags"
}
KUBE_COMMANDS=(kubeadm kubelet kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy)
key_kubernetes() {
  key kubernetes "${K8S_VERSION}" "${KUBE_COMMANDS[*]}" "$(declare -f build_kubernetes kube_ldflags)" "${GO_VERSION_LINE}" \
    "${ROOT}/hack/tools/kube/go.mod" "${ROOT}/hack/tools/kube/go.sum"
}

# The step functions: each sets <NAME>_DIR to its artefact directory.
containerd_step() { artefact containerd "$(key_containerd)" build_containerd; CONTAINERD_DIR=${ART}; }
crictl_step() { artefact crictl "$(key_crictl)" build_crictl; CRICTL_DIR=${ART}; }
etcd_step() { artefact etcd "$(key_etcd)" build_etcd; ETCD_DIR=${ART}; }
pause_step() { artefact pause "$(key_pause)" build_pause; PAUSE_DIR=${ART}; }
coredns_step() { artefact coredns "$(key_coredns)" build_coredns; COREDNS_DIR=${ART}; }
kubernetes_step() { artefact kubernetes "$(key_kubernetes)" build_kubernetes; KUBE_DIR=${ART}; }

# kind_step installs the kind CLI into bin/kind, as the Makefile installs its other tools.
kind_step() {
  [[ -x "${ROOT}/bin/kind-${KIND_VERSION}" ]] && STEP_RESULT=cached
  logged kind "check that the Go module proxy is reachable" \
    "${ROOT}/hack/go-install-tool.sh" "${ROOT}/bin/kind" sigs.k8s.io/kind "${KIND_VERSION}"
}
