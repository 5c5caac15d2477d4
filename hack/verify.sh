#!/usr/bin/env bash
# verify.sh fails when the committed tree is not what the generators produce: it runs
# `make manifests generate fmt` (generated code, CRD, RBAC and formatting) and checks that nothing changed
# or appeared, then checks that `go mod tidy` would change neither go.mod nor go.sum. `make verify` runs it
# after `make lint`. Run it on a clean tree: any uncommitted change counts as a difference.
#
# Usage: hack/verify.sh   (MAKE names the make to call; default make)
set -o errexit -o nounset -o pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

rc=0

"${MAKE:-make}" manifests generate fmt
changes=$(git status --porcelain --untracked-files=all)
if [[ -n "${changes}" ]]; then
  echo "verify: files differ from what make manifests generate fmt produce; run them and commit the result:" >&2
  echo "${changes}" >&2
  git --no-pager diff --stat >&2
  rc=1
fi

# go mod tidy -diff prints the changes tidy would make and exits non-zero, without writing go.mod or go.sum.
if ! tidy=$(go mod tidy -diff 2>&1); then
  echo "verify: go.mod/go.sum are not tidy; run go mod tidy and commit the result:" >&2
  echo "${tidy}" >&2
  rc=1
fi

[[ ${rc} -eq 0 ]] && echo "verify: generated files, formatting and go.mod/go.sum are as committed"
exit "${rc}"
