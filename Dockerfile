# The manager image: the static manager binary on an empty base (FROM scratch), run as a non-root user. It
# needs no CA bundle (in a cluster the manager reads the API server's CA from its service account) and no
# zoneinfo (the time zone database is embedded through time/tzdata). Two ways to build it from this file:
#
#   docker build .                          the release stage (the last, so the default): builds the manager
#                                           from source in the Go toolchain image; needs a registry for
#                                           golang:<GO_VERSION> and BuildKit (Docker's default builder since
#                                           23.0). Multi-arch: docker buildx build --platform
#                                           linux/amd64,linux/arm64 . (the Go stage cross-compiles).
#   docker build --target prebuilt .        (make docker-build) copies bin/image/manager, built on the host:
#                                           no registry, and the legacy builder is enough, because this stage
#                                           comes first and stands alone.
#
# VERSION and REVISION label the image and stamp the binary (--version, cronjob_operator_build_info); the
# Makefile passes both. make release-snapshot builds the same image for amd64 and arm64 without Docker
# (hack/imagebuild).

# The Go toolchain of the release stage's build: the one go.mod's toolchain line names.
ARG GO_VERSION=1.27.3

# ---- base: what both images share (labels, user, entrypoint) ----
FROM scratch AS base
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="cronjob-operator" \
      org.opencontainers.image.description="A Kubernetes CronJob operator (batch.cronjob-operator.dev)" \
      org.opencontainers.image.source="https://github.com/cronjob-operator/cronjob-operator" \
      org.opencontainers.image.url="https://github.com/cronjob-operator/cronjob-operator" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
USER 65532:65532
ENTRYPOINT ["/manager"]

# ---- prebuilt: the offline path ----
FROM base AS prebuilt
COPY bin/image/manager /manager

# ---- build: the manager from source, for the target platform ----
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
ARG REVISION=unknown
WORKDIR /src
# The module download is a layer of its own, reused while go.mod and go.sum stay the same.
COPY go.mod go.sum ./
RUN go mod download
COPY *.go ./
COPY api/ api/
COPY controllers/ controllers/
# -buildvcs=false: the context has no .git; REVISION stamps the commit instead.
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/cronjob-operator/cronjob-operator/controllers/version.Version=${VERSION} -X github.com/cronjob-operator/cronjob-operator/controllers/version.Revision=${REVISION}" \
      -o /out/manager .

# ---- release: the default target ----
FROM base AS release
COPY --from=build /out/manager /manager
