#!/usr/bin/env bash
# mutation-kube.sh runs gremlins with the settings of `make mutation` over the built-in CronJob controller's
# package (k8s.io/kubernetes pkg/controller/cronjob, the version of hack/tools/kube), to compare its score
# with ours. The package is copied into a temporary module that uses hack/tools/kube's go.mod and go.sum
# (they resolve every dependency of k8s.io/kubernetes), so it builds as it does in Kubernetes.
#
# Usage: GREMLINS=bin/gremlins hack/mutation-kube.sh [GREMLINS_FLAGS...]   (e.g. --dry-run; writes
#        bin/mutation/kube-cronjob.{log,json})
set -o errexit -o nounset -o pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
gremlins=$(cd "$(dirname "${GREMLINS:-bin/gremlins}")" && pwd)/$(basename "${GREMLINS:-bin/gremlins}")
out=${root}/${MUTATION_OUTPUT:-bin/mutation}
version=$(go list -m -modfile=hack/tools/kube/go.mod -f '{{.Version}}' k8s.io/kubernetes)
mkdir -p "${out}"

# The module cache holds the package once hack/tools/kube's dependencies are downloaded (make envtest-assets).
(cd hack/tools/kube && go mod download k8s.io/kubernetes)
src=$(go env GOMODCACHE)/k8s.io/kubernetes@${version}/pkg/controller/cronjob
mod=$(mktemp -d)
trap 'rm -rf "${mod}"' EXIT
mkdir "${mod}/cronjob"
cp "${src}"/*.go "${mod}/cronjob/"
chmod -R u+w "${mod}"
# gremlins takes the module path from the first line of go.mod, so the module line goes first.
{ echo "module kubecronjobmutation"; grep -v -e '^module ' -e '^//' hack/tools/kube/go.mod; } > "${mod}/go.mod"
cp hack/tools/kube/go.sum "${mod}/"

echo "mutation: gremlins unleash k8s.io/kubernetes@${version}/pkg/controller/cronjob (log: ${out}/kube-cronjob.log)"
start=$(date +%s)
(cd "${mod}" && GOFLAGS="${GOFLAGS:-} -count=1" "${gremlins}" unleash --config "${root}/test/mutation/gremlins.yaml" \
  --output "${out}/kube-cronjob.json" "$@" ./cronjob) 2>&1 | tee "${out}/kube-cronjob.log"
echo "mutation: took $(( $(date +%s) - start )) s"
MUTATION_SUMMARY_ONLY=1 hack/mutation.sh kube-cronjob
