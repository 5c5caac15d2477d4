#!/usr/bin/env bash
# go-install-tool.sh installs a pinned Go tool into bin/ under a versioned name and points an unversioned
# symlink at it, like kubebuilder's go-install-tool macro: bin/controller-gen -> controller-gen-v0.23.0.
# A changed version in the Makefile installs the new binary next to the old one and moves the symlink.
#
# Usage: hack/go-install-tool.sh BIN_PATH PACKAGE VERSION
#   e.g. hack/go-install-tool.sh bin/controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen v0.23.0
set -o errexit -o nounset -o pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 BIN_PATH PACKAGE VERSION" >&2
  exit 2
fi
bin=$1 package=$2 version=$3
dir=$(mkdir -p "$(dirname "${bin}")" && cd "$(dirname "${bin}")" && pwd)
name=$(basename "${bin}")
versioned="${dir}/${name}-${version}"

if [[ ! -x "${versioned}" ]]; then
  echo "go-install-tool: installing ${package}@${version}"
  tmp=$(mktemp -d "${dir}/.go-install.XXXXXX")
  trap 'rm -rf "${tmp}"' EXIT
  GOBIN="${tmp}" GOFLAGS="${GOFLAGS:-} -trimpath" go install "${package}@${version}"
  # go install names the binary after the last path element that is not a major-version suffix (kustomize/v5).
  built=$(find "${tmp}" -maxdepth 1 -type f -perm -u+x | head -n 1)
  [[ -n "${built}" ]] || { echo "go-install-tool: go install produced no binary" >&2; exit 1; }
  mv "${built}" "${versioned}"
fi
ln -sfn "${name}-${version}" "${dir}/${name}"
