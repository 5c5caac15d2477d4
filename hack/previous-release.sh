#!/usr/bin/env bash
# previous-release.sh builds what the kind upgrade spec (e2e/upgrade_test.go) starts from: the release before
# API v2, from its commit in this repository's history. It exports that commit's tree into
# bin/previous-release/src (the spec renders its config/e2e from there) and builds its manager image as
# `make e2e-images` builds the current one (static binary with the e2e_faults tag, FROM scratch, offline).
# Cached: a second run with the image present and the tree exported does nothing.
#
# Usage: hack/previous-release.sh
# Environment:
#   PREVIOUS_RELEASE   the commit (or tag) of the previous release (default: the Makefile's)
#   PREVIOUS_IMAGE     the image to build (default cronjob-operator.local/manager:previous)
#   CONTAINER_TOOL (docker), GOARCH
# A shallow clone lacks the commit: the script says so and fails (git fetch --unshallow first).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
: "${PREVIOUS_RELEASE:?set PREVIOUS_RELEASE to the commit of the previous release}"
PREVIOUS_IMAGE=${PREVIOUS_IMAGE:-cronjob-operator.local/manager:previous}
CONTAINER_TOOL=${CONTAINER_TOOL:-docker}
OUT=${ROOT}/bin/previous-release

if ! rev=$(git rev-parse --verify --quiet "${PREVIOUS_RELEASE}^{commit}"); then
  echo "previous-release: commit ${PREVIOUS_RELEASE} is not in this clone (a shallow clone?): run git fetch --unshallow" >&2
  exit 1
fi
if [[ -f "${OUT}/${rev}.done" ]] && "${CONTAINER_TOOL}" image inspect "${PREVIOUS_IMAGE}" >/dev/null 2>&1; then
  echo "previous-release: ${PREVIOUS_IMAGE} and ${OUT}/src of ${rev:0:12} are there"
  exit 0
fi

start=$(date +%s)
src="${OUT}/src"
rm -rf "${OUT}"
mkdir -p "${src}"
git archive "${rev}" | tar -x -C "${src}"
echo "previous-release: building the manager of ${rev:0:12}"
(
  cd "${src}"
  CGO_ENABLED=0 GOOS=linux GOARCH="${GOARCH:-$(go env GOARCH)}" go build -trimpath -ldflags "-s -w" -tags e2e_faults -o bin/image/manager .
  "${CONTAINER_TOOL}" build -q -t "${PREVIOUS_IMAGE}" .
)
rm -rf "${src}/bin"
touch "${OUT}/${rev}.done"
echo "previous-release: ${PREVIOUS_IMAGE} of ${rev:0:12} built in $(( $(date +%s) - start )) s"
