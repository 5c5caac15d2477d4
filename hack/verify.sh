#!/usr/bin/env bash
# verify.sh fails when the committed tree is not what the generators produce: it runs
# `make manifests generate fmt build-installer chart bundle` (generated code, CRD, RBAC, formatting and the
# install artefacts dist/install.yaml, dist/chart and the OLM bundle dist/bundle) and checks that nothing changed
# or appeared, then checks that `go mod tidy` would change neither go.mod nor go.sum, of the operator's module
# and of bench's (bench/go.mod). `make verify` runs it after `make lint`. Run it on a clean tree: any uncommitted change counts as a difference.
#
# Usage: hack/verify.sh   (MAKE names the make to call; default make)
set -o errexit -o nounset -o pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

rc=0

# config-image, build-installer, chart and bundle with the Makefile's default IMG, VERSION and
# BUNDLE_MANAGER_IMG: the committed config/manager and dist/ are built with them.
env -u IMG -u VERSION -u BUNDLE_MANAGER_IMG "${MAKE:-make}" manifests generate fmt config-image build-installer chart bundle
changes=$(git status --porcelain --untracked-files=all)
if [[ -n "${changes}" ]]; then
  echo "verify: files differ from what make manifests generate fmt build-installer chart bundle produce; run them and commit the result:" >&2
  echo "${changes}" >&2
  git --no-pager diff --stat >&2
  rc=1
fi

# go mod tidy -diff prints the changes tidy would make and exits non-zero, without writing go.mod or go.sum.
for dir in . bench hack/tools/krew hack/tools/ksm; do
  if ! tidy=$(cd "${dir}" && go mod tidy -diff 2>&1); then
    echo "verify: ${dir}/go.mod and ${dir}/go.sum are not tidy; run go mod tidy in ${dir} and commit the result:" >&2
    echo "${tidy}" >&2
    rc=1
  fi
done

# The Dockerfile's source build uses the release toolchain, go.mod's toolchain line.
toolchain=$(sed -n 's/^toolchain go//p' go.mod)
if ! grep -qx "ARG GO_VERSION=${toolchain}" Dockerfile; then
  echo "verify: the Dockerfile's GO_VERSION is not go.mod's toolchain go${toolchain}: set ARG GO_VERSION=${toolchain}" >&2
  rc=1
fi

[[ ${rc} -eq 0 ]] && echo "verify: generated files, dist/, formatting, the Dockerfile's Go and go.mod/go.sum (root, bench, the krew and ksm tools) are as committed"
exit "${rc}"
