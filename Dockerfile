# The manager image: the static manager binary on an empty base, run as a non-root user. `make docker-build`
# builds the binary on the host first (CGO off, the time zone database embedded through time/tzdata), so
# the image needs no base image from a registry and builds offline. In a cluster the manager needs no CA
# bundle of its own: it reads the API server's CA from its service account.
FROM scratch
COPY bin/image/manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
