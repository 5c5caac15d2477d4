# common.sh: paths, logging, step timing and cache keys shared by the scripts in hack/kind.
# shellcheck shell=bash disable=SC2034

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KIND_DIR="${ROOT}/hack/kind"
# shellcheck source=hack/kind/versions.sh
source "${KIND_DIR}/versions.sh"

# KIND_CACHE holds everything these scripts build or run: artefacts, the .deb cache, the private dockerd,
# logs and kubeconfigs. It is never inside the repository.
KIND_CACHE=${KIND_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cronjob-operator/kind}
ARTEFACTS="${KIND_CACHE}/artefacts"
LOGS="${KIND_CACHE}/logs"
INPUTS_LABEL=dev.cronjob-operator.inputs
PROG=$(basename "$0" .sh)

log() { echo "${PROG}: $*" >&2; }

# die prints what went wrong and what to do about it, then exits.
die() {
  local msg=$1 fix=${2:-}
  echo "${PROG}: ERROR: ${msg}" >&2
  [[ -z "${fix}" ]] || echo "${PROG}: to fix: ${fix}" >&2
  exit 1
}

# logged NAME FIX CMD... runs CMD with its output appended to ${LOGS}/NAME.log. On failure it shows the end of
# the log and dies with FIX as the advice.
logged() {
  local name=$1 fix=$2; shift 2
  mkdir -p "${LOGS}"
  local file="${LOGS}/${name}.log"
  echo "+ $*" >> "${file}"
  if ! "$@" >> "${file}" 2>&1; then
    echo "----- output of the failed command (the end of ${file})" >&2
    awk '/^\+ / {out = ""} {out = out $0 "\n"} END {printf "%s", out}' "${file}" | tail -n 30 >&2
    echo "-----" >&2
    die "${name}: '$*' failed (full log: ${file})" "${fix}"
  fi
}

# key prints a short hash of its arguments: the versions and script text (declare -f) an artefact is made
# from, and the contents of any argument that is the absolute path of a file.
key() {
  local a
  for a in "$@"; do
    if [[ "${a}" == /* && -f "${a}" ]]; then cat "${a}"; else printf '%s\n' "${a}"; fi
  done | sha256sum | cut -c1-16
}

# STEP_RESULT is set by each step function to what it did: "cached" or "built".
STEP_RESULT=
# step NAME FUNC ARGS... runs a step, prints its duration and records it in ${LOGS}/timings.txt.
step() {
  local name=$1; shift
  local start=$SECONDS
  STEP_RESULT=built
  "$@"
  local took=$((SECONDS - start))
  mkdir -p "${LOGS}"
  printf '%s %-12s %-7s %5ss\n' "$(date -u +%FT%TZ)" "${name}" "${STEP_RESULT}" "${took}" >> "${LOGS}/timings.txt"
  log "$(printf '%-12s %-7s %4ss' "${name}" "${STEP_RESULT}" "${took}")"
}

# artefact NAME KEY BUILD_FUNC sets ART to ${ARTEFACTS}/NAME-KEY, building it first with BUILD_FUNC DIR when it
# is missing. BUILD_FUNC writes into a temporary directory that becomes ART only when it succeeds.
artefact() {
  local name=$1 k=$2 build=$3
  ART="${ARTEFACTS}/${name}-${k}"
  if [[ -f "${ART}/.done" ]]; then STEP_RESULT=cached; return 0; fi
  local tmp="${ART}.tmp"
  rm -rf "${tmp}" && mkdir -p "${tmp}"
  "${build}" "${tmp}"
  touch "${tmp}/.done"
  rm -rf "${ART}" && mv "${tmp}" "${ART}"
  # Older builds of the same artefact are no longer referenced by any key.
  find "${ARTEFACTS}" -maxdepth 1 -name "${name}-*" ! -name "${name}-${k}" -exec rm -rf {} +
}

# image_has_key IMAGE KEY succeeds when IMAGE exists and carries KEY in its inputs label.
image_has_key() {
  local got
  got=$(docker image inspect -f "{{ index .Config.Labels \"${INPUTS_LABEL}\" }}" "$1" 2>/dev/null) || return 1
  [[ "${got}" == "$2" ]]
}

# go_env NAME prints a go env value, checking that Go is there at all.
go_env() {
  command -v go >/dev/null || die "go is not on PATH" "install Go 1.26 (see README.md, Quick start)"
  go env "$1"
}

# module_dir MODULE@VERSION downloads a module into the module cache and prints its directory.
module_dir() {
  local dir
  dir=$(cd / && GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  [[ -n "${dir}" && -d "${dir}" ]] || die "could not download Go module $1" "check that the Go module proxy ($(go env GOPROXY)) is reachable"
  echo "${dir}"
}

# cap_missing NUMBER succeeds when the capability NUMBER is missing from this process's bounding set.
cap_missing() {
  local bnd
  bnd=$(awk '/^CapBnd:/ {print $2}' /proc/self/status)
  (( (16#${bnd} >> $1 & 1) == 0 ))
}
CAP_SYS_RESOURCE=24

# KUBECTL is the kubectl of the node image's Kubernetes version, copied out of the node image (so that it
# exists on the online path too) by ensure_kubectl.
KUBECTL="${KIND_CACHE}/bin/kubectl-v${K8S_VERSION}"
ensure_kubectl() {
  [[ -x "${KUBECTL}" ]] && return 0
  local cid
  cid=$(docker create "${NODE_IMAGE}") || die "no ${NODE_IMAGE} to copy kubectl from" "run hack/kind/node-image.sh"
  mkdir -p "$(dirname "${KUBECTL}")"
  docker cp -q "${cid}:/usr/bin/kubectl" "${KUBECTL}.tmp" && mv "${KUBECTL}.tmp" "${KUBECTL}"
  docker rm "${cid}" >/dev/null
}

# kubectl's discovery and HTTP caches go to the cache too, so that nothing of ours lands in ~/.kube.
export KUBECACHEDIR="${KIND_CACHE}/kubectl-cache"
