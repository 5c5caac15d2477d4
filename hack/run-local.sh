#!/usr/bin/env bash
# run-local.sh runs the operator against a throwaway local control plane: it builds bin/manager and
# bin/localcluster (hack/localcluster), which starts kube-apiserver and etcd with envtest, installs the CRDs,
# starts kube-controller-manager, kube-scheduler and a KWOK node (test/cluster), creates config/samples/ and
# runs the manager until Ctrl-C. `make run` calls it when KUBECONFIG is unset.
#
# The manager logs for a human here: --zap-encoder=console comes before the flags given, so that
# --zap-encoder=json among them wins (the last value of a flag counts). Its default, in a cluster, is JSON.
#
# Usage: hack/run-local.sh [manager flags...]       e.g. hack/run-local.sh --zap-log-level=debug
# Environment:
#   ENVTEST_ASSETS       directory with kube-apiserver, etcd, kubectl, kube-controller-manager, kube-scheduler
#                        and kwok (default bin/k8s/1.37.2-linux-<arch>, built by `make lifecycle-assets`)
#   LOCALCLUSTER_FLAGS   extra flags of bin/localcluster (see bin/localcluster -h), e.g. "-stop-timeout=30s"
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
ASSETS=${ENVTEST_ASSETS:-${ROOT}/bin/k8s/${ENVTEST_K8S_VERSION:-1.37.2}-linux-$(go env GOARCH)}

for b in kube-apiserver etcd kubectl kube-controller-manager kube-scheduler kwok; do
  if [[ ! -x "${ASSETS}/${b}" ]]; then
    echo "run-local: ${ASSETS}/${b} is missing; run 'make lifecycle-assets' first" >&2
    exit 1
  fi
done

echo "run-local: building bin/manager and bin/localcluster"
CGO_ENABLED=0 go build -o bin/manager .
go build -o bin/localcluster ./hack/localcluster

# exec: signals sent to this script reach localcluster, which stops the manager and the control plane.
# localcluster runs the manager with its own flags, then those after --.
# shellcheck disable=SC2086 # LOCALCLUSTER_FLAGS is a list of flags.
exec bin/localcluster --assets "${ASSETS}" ${LOCALCLUSTER_FLAGS:-} -- --zap-encoder=console "$@"
