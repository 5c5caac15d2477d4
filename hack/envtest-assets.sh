#!/usr/bin/env bash
# envtest-assets.sh builds the binaries envtest needs (kube-apiserver, etcd) and kubectl from the Go module
# proxy, so that no download site is needed. Output: bin/k8s/<version>-linux-<arch>/{kube-apiserver,etcd,kubectl}.
#
# Built binaries are kept in a cache outside the work tree, keyed by a hash of every input (the tool modules'
# go.mod/go.sum, this script), so a fresh clone on a warm machine copies them in seconds and a changed input
# rebuilds. A cold build took 6.5 minutes on 2 idle cores (longer when they are busy); with a warm Go build
# cache a rebuild takes 15-25 s.
#
# Environment:
#   ENVTEST_K8S_VERSION   Kubernetes version (default 1.37.2; must match hack/tools/kube/go.mod)
#   ENVTEST_CACHE_DIR     cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/cronjob-operator/envtest)
#   ENVTEST_EXTRA_BINARIES  more commands of k8s.io/kubernetes/cmd to build alongside, e.g.
#                         kube-controller-manager for `make bench` (each is built once and cached), and
#                         kwok (sigs.k8s.io/kwok, from hack/tools/kwok, cached under a key of its own) for
#                         test/cluster (`make run`, `make test-lifecycle`)
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VERSION=${ENVTEST_K8S_VERSION:-1.37.2}
ARCH=$(go env GOARCH)
DEST="${ROOT}/bin/k8s/${VERSION}-linux-${ARCH}"
CACHE_ROOT=${ENVTEST_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cronjob-operator/envtest}
read -r -a EXTRA <<< "${ENVTEST_EXTRA_BINARIES:-}"
BINARIES=(kube-apiserver etcd kubectl)
KWOK=false
for b in "${EXTRA[@]}"; do
  if [[ "${b}" == kwok ]]; then KWOK=true; else BINARIES+=("${b}"); fi
done

if ! grep -q "k8s.io/kubernetes v${VERSION}\$" "${ROOT}/hack/tools/kube/go.mod"; then
  echo "envtest-assets: hack/tools/kube/go.mod does not pin k8s.io/kubernetes v${VERSION}; regenerate it with hack/gen-kube-tools-mod.sh ${VERSION}" >&2
  exit 1
fi

key=$( (cd "${ROOT}" && cat hack/envtest-assets.sh hack/tools/kube/go.mod hack/tools/kube/go.sum hack/tools/kube/tools.go \
  hack/tools/etcd/go.mod hack/tools/etcd/go.sum hack/tools/etcd/main.go; go version) | sha256sum | cut -c1-16)
CACHE="${CACHE_ROOT}/${VERSION}-linux-${ARCH}-${key}"

have_all() {
  local dir=$1 b
  for b in "${BINARIES[@]}"; do [[ -x "${dir}/${b}" ]] || return 1; done
  [[ -f "${dir}/.key" && "$(cat "${dir}/.key")" == "${key}" ]]
}

# ensure_kwok builds kwok into a cache of its own, keyed by hack/tools/kwok, and copies it into DEST.
ensure_kwok() {
  [[ "${KWOK}" == true ]] || return 0
  local kkey kcache start
  kkey=$( (cd "${ROOT}" && cat hack/tools/kwok/go.mod hack/tools/kwok/go.sum hack/tools/kwok/tools.go; go version) | sha256sum | cut -c1-16)
  kcache="${CACHE_ROOT}/kwok-linux-${ARCH}-${kkey}"
  if [[ ! -x "${kcache}/kwok" ]]; then
    echo "envtest-assets: building kwok from the Go module proxy (hack/tools/kwok; about 2 min with cold Go caches)"
    start=$(date +%s)
    rm -rf "${kcache}.tmp.$$" && mkdir -p "${kcache}.tmp.$$"
    (cd "${ROOT}/hack/tools/kwok" && go build -trimpath -ldflags "-s -w" -o "${kcache}.tmp.$$/kwok" sigs.k8s.io/kwok/cmd/kwok)
    rm -rf "${kcache}" && mv "${kcache}.tmp.$$" "${kcache}"
    echo "envtest-assets: built kwok in $(( $(date +%s) - start )) s into ${kcache}"
  fi
  if ! cmp -s "${kcache}/kwok" "${DEST}/kwok"; then
    cp "${kcache}/kwok" "${DEST}/kwok"
  fi
}

if have_all "${DEST}"; then
  ensure_kwok
  echo "envtest-assets: ${DEST#"${ROOT}/"} is up to date"
  exit 0
fi

# missing DIR prints the requested binaries that DIR lacks.
missing() {
  local dir=$1 b
  for b in "${BINARIES[@]}"; do [[ -x "${dir}/${b}" ]] || echo "${b}"; done
}

mapfile -t todo < <(missing "${CACHE}")
if ((${#todo[@]} > 0)); then
  echo "envtest-assets: building ${todo[*]} v${VERSION} from the Go module proxy (about 6 min with cold Go caches, 15-25 s warm)"
  start=$(date +%s)
  tmp="${CACHE}.tmp.$$"
  rm -rf "${tmp}" && mkdir -p "${tmp}"
  [[ ! -d "${CACHE}" ]] || cp -a "${CACHE}/." "${tmp}/"
  pkg=k8s.io/component-base/version
  cgo=k8s.io/client-go/pkg/version
  ldflags="-s -w"
  for p in ${pkg} ${cgo}; do
    ldflags+=" -X ${p}.gitVersion=v${VERSION} -X ${p}.gitMajor=${VERSION%%.*}"
    minor=${VERSION#*.}; minor=${minor%%.*}
    ldflags+=" -X ${p}.gitMinor=${minor} -X ${p}.gitTreeState=clean"
    ldflags+=" -X ${p}.gitCommit=0000000000000000000000000000000000000000 -X ${p}.buildDate=1970-01-01T00:00:00Z"
  done
  cmds=()
  for b in "${todo[@]}"; do [[ "${b}" == etcd ]] || cmds+=("k8s.io/kubernetes/cmd/${b}"); done
  ((${#cmds[@]} == 0)) || (cd "${ROOT}/hack/tools/kube" && go build -trimpath -ldflags "${ldflags}" -o "${tmp}/" "${cmds[@]}")
  [[ -x "${tmp}/etcd" ]] || (cd "${ROOT}/hack/tools/etcd" && go build -trimpath -ldflags "-s -w" -o "${tmp}/etcd" .)
  echo "${key}" > "${tmp}/.key"
  rm -rf "${CACHE}" && mv "${tmp}" "${CACHE}"
  echo "envtest-assets: built in $(( $(date +%s) - start )) s into ${CACHE}"
fi

rm -rf "${DEST}" && mkdir -p "${DEST}"
for b in "${BINARIES[@]}" .key; do cp "${CACHE}/${b}" "${DEST}/${b}"; done
ensure_kwok
"${DEST}/kube-apiserver" --version
echo "envtest-assets: ${DEST#"${ROOT}/"} ready"
