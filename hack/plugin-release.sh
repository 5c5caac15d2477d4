#!/usr/bin/env bash
# plugin-release.sh builds the release of the kubectl plugin kubectl-cjo into OUT: for each platform of
# hack/pluginrelease (`go run ./hack/pluginrelease platforms`), or of PLATFORMS, a static binary
# stamped with the release and the commit, packed with LICENSE into kubectl-cjo_v<VERSION>_<os>_<arch>.tar.gz
# (.zip on Windows), then OUT/checksums.txt over the archives (`sha256sum -c checksums.txt` in OUT).
#
# The archives are reproducible: the same commit, checked out clean, and the same Go version give the same
# bytes. The binaries are built with -trimpath and GO_LDFLAGS (the version and the commit, and whether the tree
# was modified are in their build info: a modified tree gives other binaries), without cgo; every file in the
# archives is dated SOURCE_DATE_EPOCH, the commit's time by default.
#
# Usage: hack/plugin-release.sh
# Outside a git checkout REVISION is empty and the binaries carry no revision, which the script warns about.
#
# Environment: VERSION (the release without its v, required), GO_LDFLAGS (required), OUT (default bin/release), BUILD_DIR (the
# binaries, default bin/plugin-release), SOURCE_DATE_EPOCH (default: the commit's time), PLATFORMS (os/arch
# separated by spaces, default all six; the krew manifest needs all six).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
VERSION=${VERSION:?VERSION is required, e.g. 0.2.0}
OUT=${OUT:-bin/release}
BUILD_DIR=${BUILD_DIR:-bin/plugin-release}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
PLATFORMS=${PLATFORMS:-$(go run ./hack/pluginrelease platforms)}
# The linker flags of every released binary (make passes them): VERSION and REVISION stamped into
# controllers/version, which `kubectl cjo version` prints.
GO_LDFLAGS=${GO_LDFLAGS:?GO_LDFLAGS must stamp the version; make passes it}

rm -rf "${BUILD_DIR}"
mkdir -p "${OUT}"
rm -f "${OUT}"/kubectl-cjo_v*
for platform in ${PLATFORMS}; do
  os=${platform%/*} arch=${platform#*/}
  bin=kubectl-cjo
  [[ "${os}" != windows ]] || bin=kubectl-cjo.exe
  start=$(date +%s)
  CGO_ENABLED=0 GOOS=${os} GOARCH=${arch} go build -trimpath -ldflags "${GO_LDFLAGS}" \
    -o "${BUILD_DIR}/${os}_${arch}/${bin}" ./cmd/kubectl-cjo
  echo "plugin-release: built ${os}/${arch} in $(( $(date +%s) - start )) s"
done
if [[ "${GO_LDFLAGS}" != *"version.Revision="[0-9a-f]* ]]; then
  echo "plugin-release: warning: the binaries carry no revision (REVISION is empty outside a git checkout)" >&2
fi

go run ./hack/pluginrelease archives -version "${VERSION}" -bin-dir "${BUILD_DIR}" -license LICENSE \
  -mtime "${SOURCE_DATE_EPOCH}" -out "${OUT}" -platforms "${PLATFORMS}"
go run ./hack/pluginrelease checksums -o "${OUT}/checksums.txt" "${OUT}"/kubectl-cjo_v"${VERSION}"_*
cat "${OUT}/checksums.txt"
