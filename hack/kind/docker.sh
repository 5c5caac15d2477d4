#!/usr/bin/env bash
# docker.sh makes a Docker engine that can run privileged containers (as kind's nodes are) available, and
# tells the caller which DOCKER_HOST to use.
#
# It uses the engine that DOCKER_HOST (or the default socket) names when `docker info` answers and a
# privileged container runs on it. Otherwise it starts a private dockerd for this project: Debian's docker.io
# (installed with apt-get when dockerd is missing), run as root in the background with its own data root,
# exec root, socket and pidfile under ${KIND_CACHE}/docker, no default bridge, no iptables rules (the host's
# firewall is not touched) and an address pool of 172.30.0.0/16, clear of the usual 172.17.0.0/16. When root's
# capability bounding set lacks CAP_SYS_RESOURCE, the daemon's default runtime is files/runc-capfilter, which
# drops the capabilities the host cannot grant (Docker 20.10 asks for them for --privileged containers).
# A second call finds the running daemon and reuses it.
#
# Usage:
#   eval "$(hack/kind/docker.sh env)"   make an engine available and export its DOCKER_HOST (the default)
#   hack/kind/docker.sh host            the same, printing only the DOCKER_HOST value
#   hack/kind/docker.sh status          tell whether the private dockerd runs
#   hack/kind/docker.sh stop            stop the private dockerd (its containers stop with it)
# Environment: KIND_CACHE_DIR (default ~/.cache/cronjob-operator/kind); DOCKER_HOST is tried first.
# Progress goes to stderr; only the result goes to stdout.
set -o errexit -o nounset -o pipefail

# shellcheck source=hack/kind/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

DOCKERD_DIR="${KIND_CACHE}/docker"
SOCK="${DOCKERD_DIR}/docker.sock"
PIDFILE="${DOCKERD_DIR}/docker.pid"
PRIVATE_HOST="unix://${SOCK}"
PROBE_IMAGE=cronjob-operator.local/probe:busybox

private_pid() {
  local pid
  pid=$(cat "${PIDFILE}" 2>/dev/null) || return 1
  [[ -n "${pid}" && -d "/proc/${pid}" && "$(cat "/proc/${pid}/comm" 2>/dev/null)" == dockerd ]] || return 1
  echo "${pid}"
}

private_running() {
  private_pid >/dev/null && DOCKER_HOST=${PRIVATE_HOST} docker info >/dev/null 2>&1
}

# apt_install PACKAGE... installs Debian packages without starting any service they ship.
apt_install() {
  log "installing $* with apt-get"
  local policy=/usr/sbin/policy-rc.d made=
  if [[ ! -e "${policy}" ]]; then
    printf '#!/bin/sh\nexit 101\n' > "${policy}" && chmod 755 "${policy}" && made=1
  fi
  local rc=0
  (apt-get install -y --no-install-recommends "$@" || { apt-get update && apt-get install -y --no-install-recommends "$@"; }) \
    > "${LOGS}/apt-docker.log" 2>&1 || rc=$?
  [[ -z "${made}" ]] || rm -f "${policy}"
  ((rc == 0)) || die "apt-get install $* failed (log: ${LOGS}/apt-docker.log)" "check that apt-get update works (Debian's mirror must be reachable)"
}

# probe HOST succeeds when a privileged container runs on the engine at HOST. Its image is Debian's static
# busybox, imported from the host, so no registry is needed.
probe() {
  local host=$1
  # ldd fails on a static executable: Debian's busybox package is dynamic, busybox-static is not.
  if [[ ! -x /bin/busybox ]] || ldd /bin/busybox >/dev/null 2>&1; then apt_install busybox-static; fi
  if ! DOCKER_HOST=${host} docker image inspect "${PROBE_IMAGE}" >/dev/null 2>&1; then
    local dir
    dir=$(mktemp -d)
    mkdir -p "${dir}/bin" && cp /bin/busybox "${dir}/bin/busybox" && ln -s busybox "${dir}/bin/true"
    tar -C "${dir}" -c . | DOCKER_HOST=${host} docker import - "${PROBE_IMAGE}" >/dev/null
    rm -rf "${dir}"
  fi
  DOCKER_HOST=${host} docker run --rm --privileged --network none "${PROBE_IMAGE}" /bin/true >/dev/null 2>"${LOGS}/docker-probe.log"
}

start_private() {
  [[ $(id -u) -eq 0 ]] || die "no usable Docker engine, and starting a private dockerd needs root" "run as root, or point DOCKER_HOST at an engine that can run privileged containers"
  mkdir -p "${DOCKERD_DIR}" "${LOGS}"
  local pkgs=()
  command -v dockerd >/dev/null && command -v docker >/dev/null || pkgs+=(docker.io)
  command -v jq >/dev/null || pkgs+=(jq)
  ((${#pkgs[@]} == 0)) || apt_install "${pkgs[@]}"

  local runtime=""
  if cap_missing "${CAP_SYS_RESOURCE}"; then
    log "CAP_SYS_RESOURCE is missing from the capability bounding set: using the runc-capfilter runtime"
    install -m 0755 "${KIND_DIR}/files/runc-capfilter" "${DOCKERD_DIR}/runc-capfilter"
    runtime=$(printf '"runtimes": {"capfilter": {"path": "%s"}}, "default-runtime": "capfilter",' "${DOCKERD_DIR}/runc-capfilter")
  fi
  cat > "${DOCKERD_DIR}/daemon.json" <<JSON
{
  ${runtime}
  "data-root": "${DOCKERD_DIR}/data",
  "exec-root": "${DOCKERD_DIR}/run",
  "pidfile": "${PIDFILE}",
  "hosts": ["${PRIVATE_HOST}"],
  "bridge": "none",
  "iptables": false,
  "ip-masq": false,
  "cgroup-parent": "/cronjob-operator-docker",
  "storage-driver": "overlay2",
  "default-address-pools": [{"base": "172.30.0.0/16", "size": 24}]
}
JSON
  log "starting a private dockerd (log: ${DOCKERD_DIR}/dockerd.log)"
  rm -f "${SOCK}"
  setsid nohup dockerd --config-file "${DOCKERD_DIR}/daemon.json" >> "${DOCKERD_DIR}/dockerd.log" 2>&1 < /dev/null &
  local i
  for ((i = 0; i < 60; i++)); do
    if private_running; then return 0; fi
    if ((i > 3)) && ! kill -0 $! 2>/dev/null; then break; fi
    sleep 1
  done
  tail -n 20 "${DOCKERD_DIR}/dockerd.log" >&2
  die "the private dockerd did not start (log: ${DOCKERD_DIR}/dockerd.log)" "read the log; a stale ${DOCKERD_DIR}/run or a second dockerd on the same data root are the usual causes"
}

# ensure prints the DOCKER_HOST of a usable engine, starting the private one if needed.
ensure() {
  mkdir -p "${LOGS}"
  if private_running; then
    echo "${PRIVATE_HOST}"
    return 0
  fi
  local current=${DOCKER_HOST:-unix:///var/run/docker.sock}
  if [[ "${current}" != "${PRIVATE_HOST}" ]] && DOCKER_HOST=${current} docker info >/dev/null 2>&1; then
    if probe "${current}"; then
      log "using the Docker engine at ${current}"
      echo "${current}"
      return 0
    fi
    log "the Docker engine at ${current} cannot run a privileged container ($(tail -n 1 "${LOGS}/docker-probe.log")); starting a private one"
  fi
  start_private
  probe "${PRIVATE_HOST}" || die "a privileged container fails on the private dockerd: $(tail -n 3 "${LOGS}/docker-probe.log")" \
    "read ${DOCKERD_DIR}/dockerd.log; if the error names a capability, check CapBnd in /proc/self/status against files/runc-capfilter"
  log "private dockerd ready at ${PRIVATE_HOST}"
  echo "${PRIVATE_HOST}"
}

stop_private() {
  local pid
  if ! pid=$(private_pid); then log "the private dockerd is not running"; return 0; fi
  log "stopping the private dockerd (pid ${pid})"
  kill "${pid}"
  local i
  for ((i = 0; i < 60; i++)); do
    [[ -d "/proc/${pid}" ]] || return 0
    sleep 1
  done
  die "dockerd (pid ${pid}) did not stop within 60 s" "kill ${pid}"
}

case "${1:-env}" in
  env) echo "export DOCKER_HOST=$(ensure)" ;;
  host) ensure ;;
  status)
    if private_running; then echo "running: DOCKER_HOST=${PRIVATE_HOST} (pid $(private_pid))"; else echo "not running"; exit 1; fi ;;
  stop) stop_private ;;
  *) echo "usage: $0 [env|host|status|stop]" >&2; exit 2 ;;
esac
