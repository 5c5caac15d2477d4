#!/usr/bin/env bash
# release.sh builds every artefact of a release into bin/release/, publishing nothing (make release-snapshot;
# the release workflow runs it on a tag, then publishes what it built):
#   manager-linux-{amd64,arm64}      the static manager binaries, stamped with VERSION and REVISION
#   image/, image.tar                 the multi-platform manager image as an OCI layout (hack/imagebuild)
#   install.yaml                      dist/install.yaml
#   cronjob-operator-VERSION.tgz      the Helm chart (helm package dist/chart)
#   bundle-VERSION.tar.gz             the OLM bundle (dist/bundle), when there is one
#   kubectl-cjo_vVERSION_OS_ARCH.*    kubectl-cjo's archives (make plugin-release) for the six platforms, or
#                                     PLUGIN_PLATFORMS (a shortened snapshot, as CI's)
#   cjo.yaml                          the krew manifest, checked by krew (make krew-validate; all six only)
#   release-notes.md                  CHANGELOG.md's section of vVERSION
#   checksums.txt                     sha256 of every file above (sha256sum -c)
# It first checks that the tree is of VERSION: install.yaml's image, the chart's version and appVersion, the
# bundle's version, the manager's --version and a CHANGELOG section all say it. A release is prepared by a
# commit that sets VERSION in the Makefile and runs make config-image build-installer chart bundle; make
# verify keeps dist/ and the Makefile in step.
#
# Usage: hack/release.sh   Environment: VERSION, REVISION, IMAGE_REPO, GO_LDFLAGS (make passes them), HELM,
# MAKE, OUT (default bin/release), RELEASE_TAG (set by the release workflow: an "(unreleased)" CHANGELOG
# section is refused), PLUGIN_PLATFORMS (default: all six), MANAGER_ARCHES (default: amd64 arm64).
set -o errexit -o nounset -o pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${VERSION:?VERSION is the release, without the v}" "${IMAGE_REPO:?}" "${GO_LDFLAGS:?}"
REVISION=${REVISION:-}
HELM=${HELM:-helm}
MAKE=${MAKE:-make}
OUT=${OUT:-bin/release}
IMG="${IMAGE_REPO}:v${VERSION}"

fail() { echo "release: $*" >&2; exit 1; }
step() { echo "release: $*"; }

step "checking that the tree is of v${VERSION}"
grep -qE "^ +image: ${IMG}\$" dist/install.yaml || fail "dist/install.yaml does not deploy ${IMG}: run make config-image build-installer chart bundle VERSION=${VERSION} and commit"
grep -qx "version: ${VERSION}" dist/chart/Chart.yaml || fail "dist/chart/Chart.yaml is not version ${VERSION}: run make chart VERSION=${VERSION} and commit"
grep -qx "appVersion: \"v${VERSION}\"" dist/chart/Chart.yaml || fail "dist/chart/Chart.yaml's appVersion is not v${VERSION}"
if [[ -d dist/bundle ]]; then
  grep -rqE "^  version: ${VERSION}\$" dist/bundle/manifests/*.clusterserviceversion.yaml || fail "dist/bundle's ClusterServiceVersion is not version ${VERSION}: run make bundle VERSION=${VERSION} and commit"
fi
if [[ -n "${RELEASE_TAG:-}" ]] && grep -qx "## v${VERSION} (unreleased)" CHANGELOG.md; then
  fail "CHANGELOG.md's section of v${VERSION} still says (unreleased): date it in the commit that prepares the release"
fi
notes=$(awk -v h="## v${VERSION}" '$0 == h || index($0, h " ") == 1 {on=1; next} on && /^## /{exit} on' CHANGELOG.md)
[[ -n "${notes//[[:space:]]/}" ]] || fail "CHANGELOG.md has no section \"## v${VERSION}\""

rm -rf "${OUT}"
mkdir -p "${OUT}"
printf '# cronjob-operator v%s\n%s\n' "${VERSION}" "${notes}" > "${OUT}/release-notes.md"

MANAGER_ARCHES=${MANAGER_ARCHES:-amd64 arm64}
step "building the manager for ${MANAGER_ARCHES}"
for arch in ${MANAGER_ARCHES}; do
  CGO_ENABLED=0 GOOS=linux GOARCH="${arch}" go build -trimpath -ldflags "${GO_LDFLAGS}" -o "${OUT}/manager-linux-${arch}" .
done
host_arch=$(go env GOARCH)
if [[ -x "${OUT}/manager-linux-${host_arch}" && $(go env GOOS) == linux ]]; then
  got=$("${OUT}/manager-linux-${host_arch}" --version)
  [[ "${got}" == "cronjob-operator ${VERSION} "* ]] || fail "the manager says \"${got}\", not version ${VERSION}"
  step "manager --version: ${got}"
fi

step "assembling the image ${IMG} for linux/{${MANAGER_ARCHES// /,}} (OCI layout)"
created=$(git log -1 --format=%cI 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
binaries=()
for arch in ${MANAGER_ARCHES}; do binaries+=(-binary "linux/${arch}=${OUT}/manager-linux-${arch}"); done
go run ./hack/imagebuild -version "${VERSION}" -revision "${REVISION}" -created "${created}" "${binaries[@]}" -out "${OUT}/image"

step "install.yaml, the chart and the bundle"
cp dist/install.yaml "${OUT}/install.yaml"
"${HELM}" package dist/chart --destination "${OUT}" >/dev/null
[[ -f "${OUT}/cronjob-operator-${VERSION}.tgz" ]] || fail "helm package wrote no cronjob-operator-${VERSION}.tgz"
if [[ -d dist/bundle ]]; then
  tar --sort=name --mtime="${created}" --owner=0 --group=0 --numeric-owner -C dist/bundle -czf "${OUT}/bundle-${VERSION}.tar.gz" .
fi

if [[ -z "${PLUGIN_PLATFORMS:-}" ]]; then
  step "kubectl-cjo's archives for the six platforms, the krew manifest, checked by krew"
  "${MAKE}" --no-print-directory krew-validate VERSION="${VERSION}" RELEASE_DIR="${OUT}"
else
  # A shortened snapshot (CI): the krew manifest needs all six archives; go test ./hack/pluginrelease checks
  # one made from fake archives with krew's own validation.
  step "kubectl-cjo's archives for ${PLUGIN_PLATFORMS} (no krew manifest: it needs all six)"
  "${MAKE}" --no-print-directory plugin-release VERSION="${VERSION}" RELEASE_DIR="${OUT}" PLUGIN_PLATFORMS="${PLUGIN_PLATFORMS}"
fi

step "checksums"
(cd "${OUT}" && find . -maxdepth 2 -type f ! -name checksums.txt ! -path './image/*' -printf '%P\n' | LC_ALL=C sort | xargs sha256sum > checksums.txt)
echo
echo "release: v${VERSION} built into ${OUT}/ (nothing published):"
(cd "${OUT}" && ls -1sh --ignore=image)
