#!/usr/bin/env bash
# deploy.sh applies or deletes config/default (or the overlay DEPLOY_CONFIG names, such as namespaced) with
# the manager image set to IMG. It edits a copy of config/
# in a temporary directory, so `kustomize edit set image` leaves the work tree clean.
#
# Usage: hack/deploy.sh apply|delete [extra kubectl flags]
# Environment: IMG (image), DEPLOY_CONFIG (directory under config/; default: default), KUSTOMIZE and
# KUBECTL (paths of the tools; default: from PATH).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KUSTOMIZE=${KUSTOMIZE:-kustomize}
KUBECTL=${KUBECTL:-kubectl}
IMG=${IMG:?IMG must name the manager image; make passes IMAGE_REPO:vVERSION}
DEPLOY_CONFIG=${DEPLOY_CONFIG:-default}

if [[ $# -lt 1 ]]; then
  echo "usage: $0 apply|delete [kubectl flags]" >&2
  exit 2
fi
action=$1
shift

tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT
cp -R "${ROOT}/config" "${tmp}/config"
(cd "${tmp}/config/manager" && "${KUSTOMIZE}" edit set image "controller=${IMG}")

case "${action}" in
  apply) "${KUSTOMIZE}" build "${tmp}/config/${DEPLOY_CONFIG}" | "${KUBECTL}" apply --server-side --force-conflicts "$@" -f - ;;
  delete) "${KUSTOMIZE}" build "${tmp}/config/${DEPLOY_CONFIG}" | "${KUBECTL}" delete "$@" -f - ;;
  *) echo "deploy.sh: unknown action ${action}; want apply or delete" >&2; exit 2 ;;
esac
