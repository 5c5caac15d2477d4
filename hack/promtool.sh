#!/usr/bin/env bash
# promtool.sh builds promtool (github.com/prometheus/prometheus/cmd/promtool, the version that
# hack/tools/promtool/go.mod pins) from the Go module proxy into bin/promtool-VERSION, with a bin/promtool
# symlink. It is built with the tag remove_all_sd (no service-discovery plugins: promtool only checks and
# tests rules here) and cached in ~/.cache/cronjob-operator/promtool under a hash of its inputs, so a fresh
# clone on a warm machine copies it in a second.
#
# Usage: hack/promtool.sh BIN_DIR
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=$(mkdir -p "${1:?usage: $0 BIN_DIR}" && cd "$1" && pwd)
MOD="${ROOT}/hack/tools/promtool"
version=$(awk '$1 == "github.com/prometheus/prometheus" {print $2; exit} $1 == "require" && $2 == "github.com/prometheus/prometheus" {print $3; exit}' "${MOD}/go.mod")
[[ -n "${version}" ]] || { echo "promtool: no github.com/prometheus/prometheus in ${MOD}/go.mod" >&2; exit 1; }
versioned="${BIN}/promtool-${version}"

if [[ ! -x "${versioned}" ]]; then
  key=$( (cat "${BASH_SOURCE[0]}" "${MOD}/go.mod" "${MOD}/go.sum" "${MOD}/tools.go"; go version) | sha256sum | cut -c1-16)
  cache="${XDG_CACHE_HOME:-${HOME}/.cache}/cronjob-operator/promtool/${version}-${key}"
  if [[ ! -x "${cache}/promtool" ]]; then
    echo "promtool: building promtool ${version} from the Go module proxy (minutes with cold Go caches)"
    start=$(date +%s)
    mkdir -p "${cache}"
    (cd "${MOD}" && go build -trimpath -tags remove_all_sd -ldflags "-s -w" -o "${cache}/promtool.tmp" github.com/prometheus/prometheus/cmd/promtool)
    mv "${cache}/promtool.tmp" "${cache}/promtool"
    echo "promtool: built in $(( $(date +%s) - start )) s"
  fi
  cp "${cache}/promtool" "${versioned}"
fi
ln -sfn "promtool-${version}" "${BIN}/promtool"
