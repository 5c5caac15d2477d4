# Makefile of cronjob-operator. Targets are thin: longer logic lives in hack/. `make help` lists them.

# The release this tree builds, without the "v": one version for the manager and plugin binaries (--version,
# cronjob_operator_build_info), the image tag, dist/install.yaml, the chart's version and appVersion and the
# OLM bundle. The release workflow builds a tag vX.Y.Z with VERSION=X.Y.Z and refuses a tag whose version is
# not this one; bump it in the commit that prepares a release.
VERSION ?= 0.2.0
# The image repository releases are pushed to, and the image to build and deploy: never a moving tag.
IMAGE_REPO ?= ghcr.io/cronjob-operator/cronjob-operator
IMG ?= $(IMAGE_REPO):v$(VERSION)
# The git commit the binaries are stamped with (controllers/version.Revision), "-modified" when the tree
# differs from it; empty outside a git checkout.
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git rev-parse HEAD >/dev/null 2>&1 && ! git diff --quiet HEAD -- 2>/dev/null && echo -modified)
# The Go release of the shipped binaries and of govulncheck's scan: go.mod's toolchain line. The machine's own
# go (1.26 here) builds and runs the tests; GOTOOLCHAIN=$(RELEASE_GO) makes the go command fetch this one
# from the Go module proxy once (76 MB), so its standard library's fixes are in what ships.
RELEASE_GO ?= $(shell sed -n 's/^toolchain //p' go.mod)
# Linker flags of every released binary: stripped, stamped with VERSION and REVISION.
VERSION_PKG := github.com/cronjob-operator/cronjob-operator/controllers/version
GO_LDFLAGS ?= -s -w -X $(VERSION_PKG).Version=$(VERSION) -X $(VERSION_PKG).Revision=$(REVISION)
# Kubernetes version of the envtest control plane and of kubectl; hack/tools/kube/go.mod pins the same one.
ENVTEST_K8S_VERSION ?= 1.37.2
# Directory with kube-apiserver, etcd and kubectl built by hack/envtest-assets.sh.
HOST_ARCH := $(shell go env GOARCH)
ENVTEST_ASSETS ?= $(abspath bin/k8s/$(ENVTEST_K8S_VERSION)-linux-$(HOST_ARCH))
# kubectl used by install/deploy; the one built by envtest-assets unless given.
KUBECTL ?= $(ENVTEST_ASSETS)/kubectl
# Container tool used by docker-build and docker-push.
CONTAINER_TOOL ?= docker

SHELL = /usr/bin/env bash -o errexit -o nounset -o pipefail
.SHELLFLAGS = -c

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
# The crd generator keeps every field description (no maxDescLen): the API godoc is the CRD's documentation.
# hack/crdpatch then drops the immutability (transition) rules copied from batch/v1 JobSpec into jobTemplate.
# RBAC comes in two roles, from two sets of markers: manager-role (config/rbac/role.yaml, from controllers/)
# is what the controller needs in every namespace it watches, and becomes Roles in config/namespaced;
# manager-own-role (own_role.yaml, from the main package) covers the manager's own objects: its Lease, its
# webhook certificate Secret and its webhook configurations, by name.
manifests: controller-gen ## Generate the CRD (config/crd/bases), the webhook configurations and the manager's RBAC (config/rbac/role.yaml, own_role.yaml).
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd:generateEmbeddedObjectMeta=true webhook paths="./api/...;./controllers/..." output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=manager-own-role,fileName=own_role.yaml paths="./"
	go run ./hack/crdpatch config/crd/bases/batch.cronjob-operator.dev_cronjobs.yaml

.PHONY: generate
generate: controller-gen ## Generate DeepCopy methods (zz_generated.deepcopy.go) and the holiday tables (controllers/calendar/holidays_gen.go, from rickar/cal).
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."
	go generate ./controllers/calendar/

.PHONY: fmt
fmt: ## Run go fmt (the operator's module and bench's).
	go fmt ./...
	cd bench && go fmt ./...

.PHONY: vet
vet: ## Run go vet (the operator's module and bench's).
	go vet ./...
	cd bench && go vet ./...

# lint checks every package of the operator's module with the e2e, e2e_faults and lifecycle build tags
# (.golangci.yml), so the e2e suites, the fault points and the lifecycle specs are linted too; bench is a module
# of its own (bench/go.mod), as are the tools modules under hack/tools, and ./... enters none of them: make vet
# and make fmt check bench, golangci-lint does not.
.PHONY: lint
lint: golangci-lint ## Run golangci-lint (.golangci.yml: the kubebuilder set, the clock rule, gofmt and goimports).
	$(GOLANGCI_LINT) config verify
	$(GOLANGCI_LINT) run ./...

.PHONY: lint-fix
lint-fix: golangci-lint ## Run golangci-lint and apply the fixes it can (formatting, modernize, ...).
	$(GOLANGCI_LINT) run --fix ./...

.PHONY: verify
verify: lint ## Lint, then check that make manifests/generate/fmt and go mod tidy change nothing (hack/verify.sh).
	MAKE="$(MAKE)" hack/verify.sh

# kube-score: scores the rendered config/default, as shipped and with its NetworkPolicies enabled, with the
# image set to KUBE_SCORE_IMG (a versioned stand-in for IMG; hack/kube-score.sh, README "Security").
KUBE_SCORE_IMG ?= $(IMG)

.PHONY: kube-score
kube-score: kustomize kube-score-tool ## Score the manifests of make deploy with kube-score; fails on a critical finding (reports in bin/kube-score-report/).
	KUSTOMIZE="$(KUSTOMIZE)" KUBE_SCORE="$(KUBE_SCORE)" IMG="$(KUBE_SCORE_IMG)" hack/kube-score.sh

# govulncheck (hack/govulncheck.sh) checks the operator's module (with cmd/kubectl-cjo) and bench's against the Go
# vulnerability database: the one GOVULNDB names, else https://vuln.go.dev when it answers, else offline, one
# built from VULNDB_VERSION of golang.org/x/vulndb (the database's source module, from the Go module proxy; a
# newer pseudo-version is a newer snapshot). The database used and its date are printed.
VULNDB_VERSION ?= v0.0.0-20261105234957-e22db6528018

.PHONY: govulncheck
govulncheck: govulncheck-tool ## Run govulncheck on the operator and bench; fails when their code calls a vulnerable symbol (GOVULNDB=offline|URL).
	GOTOOLCHAIN=$(RELEASE_GO) GOVULNCHECK="$(GOVULNCHECK)" VULNDB_VERSION="$(VULNDB_VERSION)" hack/govulncheck.sh

.PHONY: test
test: manifests generate fmt vet envtest-assets kustomize ## Run all tests (unit and envtest) with coverage in cover.out, then bench's unit tests.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" KUSTOMIZE="$(KUSTOMIZE)" go test ./... -coverpkg=./api/...,./controllers/... -coverprofile cover.out
	cd bench && go test ./...

.PHONY: test-slow
test-slow: manifests generate envtest-assets ## Run the envtest specs labelled slow (a simulated day of a minutely CronJob: ~40 s).
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test ./test/integration/ -count=1 -v -args -ginkgo.label-filter=slow

# test-lifecycle: the specs that need Jobs that really run (test/lifecycle, build tag lifecycle): the Job
# controller, garbage collector and TTL-after-finished controller of kube-controller-manager, kube-scheduler
# and a KWOK node, around envtest (test/cluster, as make run).
.PHONY: test-lifecycle
test-lifecycle: manifests generate lifecycle-assets ## Run the lifecycle specs: Replace, history, TTL, Forbid and failures with real Jobs and simulated Pods (~1 min).
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test -tags lifecycle ./test/lifecycle/ -count=1 -v $(LIFECYCLE_ARGS)

# test-hostile: the hostile-tenant suite (test/hostile, README there): bin/manager as a process with the shipped
# memory limit, one tenant flooding it (large Jobs, waiting manual runs, a catch-up), another measured; report
# in bin/hostile/report.{md,json}. HOSTILE_SCALE=short is CI's size (about 3 min); full (default) about 6 min.
HOSTILE_SCALE ?= full
.PHONY: test-hostile
test-hostile: build envtest-assets ## Run the hostile-tenant suite at HOSTILE_SCALE (full by default; ~6 min) against bin/manager.
	HOSTILE_SCALE=$(HOSTILE_SCALE) KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test ./test/hostile/ -count=1 -timeout 60m -v \
		-args -ginkgo.label-filter=hostile -ginkgo.v

.PHONY: test-hostile-short
test-hostile-short: ## The hostile-tenant suite at its CI size (HOSTILE_SCALE=short, about 3 min).
	$(MAKE) test-hostile HOSTILE_SCALE=short

# soak: the failure specs at volume and long fuzzing (hack/soak.sh, test/soak/README.md). SOAK_PHASES picks
# phases (default "envtest fuzz kind"); counts: SOAK_ENVTEST_KILLS (50), SOAK_KIND_KILLS (30),
# SOAK_KIND_HARD_KILLS (10), SOAK_FUZZ_EXECS (10000000) with SOAK_FUZZ_PARALLEL workers (1). Results:
# bin/soak/{envtest,fuzz,kind}.{json,md}.
.PHONY: soak
soak: manifests generate envtest-assets ## Soak: 50 envtest leader kills, fuzzing to 10M executions, 30 kind leader-pod kills (~1.5 h; root for kind).
	ENVTEST_ASSETS="$(ENVTEST_ASSETS)" MAKE="$(MAKE)" hack/soak.sh

.PHONY: soak-short
soak-short: ## The soak's envtest phase with 6 leader kills (CI; about a minute).
	$(MAKE) soak SOAK_PHASES=envtest SOAK_ENVTEST_KILLS=6

# kind e2e: the images, the cluster's name and the Ginkgo processes of `make e2e`.
E2E_MANAGER_IMAGE ?= cronjob-operator.local/manager:e2e
# The release before API v2 (issue 26), which the kind upgrade spec starts from: its image and its
# config/e2e are built from this commit (hack/previous-release.sh).
PREVIOUS_RELEASE ?= 9b225e6abe42e7c8baeac1e024acdaf308644746
E2E_PREVIOUS_IMAGE ?= cronjob-operator.local/manager:previous
E2E_CLUSTER ?= cronjob-operator-e2e
E2E_PROCS ?= 4
E2E_ARTIFACTS ?= $(abspath bin/e2e-artifacts)
# More Ginkgo flags, e.g. E2E_ARGS=--label-filter=conformance.
E2E_ARGS ?=

.PHONY: kind-image
kind-image: ## Make the kind node image (docker pull, or an offline build: ~10 min with warm Go caches, 45-60 cold; cached), the busybox image and bin/kind.
	eval "$$(hack/kind/docker.sh env)" && hack/kind/node-image.sh

.PHONY: kind-smoke
kind-smoke: ## Create a kind cluster from the node image, run a busybox Job in it, delete it (~70 s warm).
	eval "$$(hack/kind/docker.sh env)" && hack/kind/smoke.sh

.PHONY: e2e-images
e2e-images: ## Make the kind node image (pulled, or built offline: ~45-60 min cold, cached), the busybox image, the e2e manager image and the previous release's (the upgrade spec's).
	hack/kind/node-image.sh > bin/kind-node-image
	$(MAKE) docker-build IMG=$(E2E_MANAGER_IMAGE) GO_TAGS=e2e_faults
	PREVIOUS_RELEASE=$(PREVIOUS_RELEASE) PREVIOUS_IMAGE=$(E2E_PREVIOUS_IMAGE) CONTAINER_TOOL=$(CONTAINER_TOOL) hack/previous-release.sh

.PHONY: e2e
e2e: manifests generate kustomize kubectl ginkgo helm ## Run the kind e2e and chaos suites (needs root for Docker). KEEP_CLUSTER=1 keeps the cluster.
	eval "$$(hack/kind/docker.sh env)" && $(MAKE) e2e-images && \
	E2E_NODE_IMAGE="$$(cat bin/kind-node-image)" E2E_MANAGER_IMAGE=$(E2E_MANAGER_IMAGE) E2E_PREVIOUS_IMAGE=$(E2E_PREVIOUS_IMAGE) E2E_CLUSTER=$(E2E_CLUSTER) \
	E2E_ARTIFACTS=$(E2E_ARTIFACTS) KIND=$(LOCALBIN)/kind KUSTOMIZE=$(KUSTOMIZE) KUBECTL=$(KUBECTL) HELM=$(HELM) \
	$(GINKGO) -tags e2e --procs=$(E2E_PROCS) --timeout=60m --poll-progress-after=120s -v \
		--junit-report=junit.xml --output-dir=$(E2E_ARTIFACTS) $(E2E_ARGS) ./e2e

# check-monitoring checks config/prometheus with promtool (hack/check-monitoring.sh): the rule groups extracted
# from the PrometheusRule pass `promtool check rules`, and the unit tests of every alert in
# config/prometheus/tests pass `promtool test rules`; and config/kube-state-metrics with KSM (check-ksm).
.PHONY: check-monitoring
check-monitoring: promtool check-ksm ## Check the alerting rules with promtool (config/prometheus) and the kube-state-metrics configuration with KSM.
	PROMTOOL=$(PROMTOOL) hack/check-monitoring.sh

# check-ksm tests config/kube-state-metrics with kube-state-metrics' own code, in the module hack/tools/ksm
# (KSM pinned in its go.mod, its dependencies kept out of the operator's): the exact metric lines KSM writes
# for the samples of config/samples with a status, and the ClusterRole.
.PHONY: check-ksm
check-ksm: ## Test the kube-state-metrics configuration (config/kube-state-metrics) with KSM itself.
	cd hack/tools/ksm && go test ./...

.PHONY: test-unit
test-unit: generate ## Run the tests that need no control plane (./api/... ./controllers/...).
	go test ./api/... ./controllers/...

.PHONY: mutation
mutation: gremlins ## Mutation testing of every package of controllers/ and api/ with its own unit tests (gremlins; not in CI; 45 min on 2 busy cores, test/mutation/README.md).
	GREMLINS=$(GREMLINS) hack/mutation.sh

.PHONY: bench-assets
bench-assets: ## Build kube-apiserver, etcd and kube-controller-manager (the peer of make bench) into bin/k8s/ (cached, like envtest-assets).
	ENVTEST_K8S_VERSION="$(ENVTEST_K8S_VERSION)" ENVTEST_EXTRA_BINARIES=kube-controller-manager hack/envtest-assets.sh

# bench and bench-quick compare ours with the built-in CronJob controller on one envtest control plane and
# write bench/results/<UTC start>-<mode>/{report.md,skew.png,results.json}; BENCH_ARGS adds flags
# (bin/bench -h), e.g. BENCH_ARGS="-scenarios=burst -burst-size=2000". The command is built in its own
# module, bench/go.mod, which takes the operator's packages from this checkout.
BENCH_MODE ?= full
.PHONY: bench
bench: build bench-assets ## Benchmark ours against kube-controller-manager's CronJob controller at full size (about 4 h; bench/README.md).
	cd bench && go build -o ../bin/bench .
	bin/bench -mode=$(BENCH_MODE) -assets "$(ENVTEST_ASSETS)" $(BENCH_ARGS)

.PHONY: bench-quick
bench-quick: ## A smoke run of make bench: single and a burst of 500, one minute each (under 5 min).
	$(MAKE) bench BENCH_MODE=quick

.PHONY: bench-micro
bench-micro: ## Go micro-benchmarks of the schedule math, with allocations.
	go test ./controllers/... -run '^$$' -bench . -benchmem

.PHONY: lifecycle-assets
lifecycle-assets: ## Build envtest's binaries plus kube-controller-manager, kube-scheduler and kwok (test/cluster: make run, make test-lifecycle) into bin/k8s/ (cached).
	ENVTEST_K8S_VERSION="$(ENVTEST_K8S_VERSION)" ENVTEST_EXTRA_BINARIES="kube-controller-manager kube-scheduler kwok" hack/envtest-assets.sh

.PHONY: envtest-assets
envtest-assets: ## Build kube-apiserver, etcd and kubectl into bin/k8s/ (cached in ~/.cache; cold: ~6 min on 2 cores).
	ENVTEST_K8S_VERSION="$(ENVTEST_K8S_VERSION)" hack/envtest-assets.sh

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary into bin/manager (static, CGO_ENABLED=0).
	CGO_ENABLED=0 go build -ldflags "-X $(VERSION_PKG).Version=$(VERSION) -X $(VERSION_PKG).Revision=$(REVISION)" -o bin/manager .

.PHONY: plugin
plugin: ## Build the kubectl plugin into bin/kubectl-cjo (static); with bin/ on PATH it is `kubectl cjo`.
	CGO_ENABLED=0 go build -trimpath -ldflags "$(GO_LDFLAGS)" -o bin/kubectl-cjo ./cmd/kubectl-cjo

# run: with KUBECONFIG set, install the CRD there and run the controller against it; otherwise start a
# throwaway local control plane with the sample CronJob (hack/run-local.sh). RUN_ARGS go to the manager.
# Both log for a human, with --zap-encoder=console (the manager's default, in a cluster, stays JSON); it comes
# before RUN_ARGS, so RUN_ARGS=--zap-encoder=json wins (the last value of a flag counts).
.PHONY: run
run: manifests generate fmt vet $(if $(KUBECONFIG),install,lifecycle-assets) ## Run the controller here: against KUBECONFIG if set, else in a local control plane; console logs.
	$(if $(KUBECONFIG),go run . --zap-encoder=console $(RUN_ARGS),ENVTEST_ASSETS="$(ENVTEST_ASSETS)" hack/run-local.sh $(RUN_ARGS))

# Build tags of the image's manager binary; the e2e image adds e2e_faults (controllers/faults).
GO_TAGS ?=

.PHONY: docker-build
docker-build: ## Build the manager image IMG offline: a static binary built here, in the Dockerfile's prebuilt stage (FROM scratch); GO_TAGS adds build tags.
	CGO_ENABLED=0 GOOS=linux GOARCH=$(HOST_ARCH) go build -trimpath -ldflags "$(GO_LDFLAGS)" -tags "$(GO_TAGS)" -o bin/image/manager .
	$(CONTAINER_TOOL) build --target prebuilt --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMG) .

.PHONY: docker-build-source
docker-build-source: ## Build the manager image IMG from source in the Go toolchain image (the Dockerfile's default stage; needs a registry and BuildKit).
	$(CONTAINER_TOOL) build --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the container image IMG.
	$(CONTAINER_TOOL) push $(IMG)

##@ Deployment

# build-installer and chart write the install artefacts from config/, with the manager image IMG
# (hack/dist.sh); both are committed and make verify checks them with the default IMG.
.PHONY: config-image
config-image: kustomize ## Pin config/manager's image to the release's ($(IMAGE_REPO):v$(VERSION)); make verify checks it.
	cd config/manager && "$(KUSTOMIZE)" edit set image "controller=$(IMAGE_REPO):v$(VERSION)"

.PHONY: build-installer
build-installer: manifests kustomize ## Write dist/install.yaml (kustomize build config/default: CRD, RBAC, manager with image IMG, webhooks).
	KUSTOMIZE="$(KUSTOMIZE)" IMG="$(IMG)" hack/dist.sh installer

.PHONY: chart
chart: manifests kustomize ## Generate the Helm chart dist/chart from config/ (hack/chartgen), for image IMG; rerun after any change to config/.
	KUSTOMIZE="$(KUSTOMIZE)" IMG="$(IMG)" VERSION="$(VERSION)" hack/dist.sh chart

.PHONY: helm-lint
helm-lint: helm kustomize ## helm lint and helm template of dist/chart (default values, every option on); renderings checked against config/'s builds.
	HELM="$(HELM)" KUSTOMIZE="$(KUSTOMIZE)" hack/helm-lint.sh

ignore-not-found ?= false

.PHONY: install
install: manifests kustomize kubectl ## Install the CRD into the cluster of KUBECONFIG (server-side apply).
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply --server-side --force-conflicts -f -

.PHONY: uninstall
uninstall: manifests kustomize kubectl ## Uninstall the CRD (and so every CronJob). ignore-not-found=true to ignore missing objects.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

.PHONY: deploy
deploy: manifests kustomize kubectl ## Deploy the controller with image IMG (server-side apply of config/default).
	KUSTOMIZE="$(KUSTOMIZE)" KUBECTL="$(KUBECTL)" IMG="$(IMG)" hack/deploy.sh apply

.PHONY: undeploy
undeploy: kustomize kubectl ## Undeploy the controller. ignore-not-found=true to ignore missing objects.
	KUSTOMIZE="$(KUSTOMIZE)" KUBECTL="$(KUBECTL)" IMG="$(IMG)" hack/deploy.sh delete --ignore-not-found=$(ignore-not-found)

##@ Release

# The manager's platforms in release-snapshot (the image's); PLUGIN_PLATFORMS (below) the plugin's. CI builds
# a shortened snapshot (.ci/run); a release builds all of them.
MANAGER_ARCHES ?= amd64 arm64

.PHONY: release-snapshot
release-snapshot: helm ## Build every release artefact of VERSION into bin/release/ (binaries, multi-arch OCI image, install.yaml, chart, bundle, plugin, notes, checksums); nothing is published.
	GOTOOLCHAIN=$(RELEASE_GO) VERSION="$(VERSION)" REVISION="$(REVISION)" IMAGE_REPO="$(IMAGE_REPO)" GO_LDFLAGS="$(GO_LDFLAGS)" HELM="$(HELM)" MAKE="$(MAKE)" \
		PLUGIN_PLATFORMS="$(PLUGIN_PLATFORMS)" MANAGER_ARCHES="$(MANAGER_ARCHES)" RELEASE_TAG="$(RELEASE_TAG)" hack/release.sh

# bundle writes the OLM bundle dist/bundle (hack/dist.sh bundle, hack/bundlegen): the ClusterServiceVersion from
# config/manifests (its hand-written base, config/default and the samples), the CRDs, metadata/annotations.yaml
# and the bundle image's Dockerfile, for VERSION and the manager image BUNDLE_MANAGER_IMG: the release's, never a
# moving tag (bundlegen refuses latest). It is committed, and make verify checks it with the defaults.
# bundle-validate runs the operator-framework validators, the bundle format check and the scorecard's basic and
# OLM tests (as Go code: hack/bundlegen/scorecard.go) on it; go test ./hack/bundlegen (make test) does too.
BUNDLE_MANAGER_IMG ?= $(IMG)

.PHONY: bundle
bundle: manifests kustomize ## Write the OLM bundle dist/bundle for VERSION and BUNDLE_MANAGER_IMG (CSV, CRDs, metadata, bundle Dockerfile).
	KUSTOMIZE="$(KUSTOMIZE)" IMG="$(BUNDLE_MANAGER_IMG)" VERSION="$(VERSION)" hack/dist.sh bundle

.PHONY: bundle-validate
bundle-validate: ## Validate dist/bundle: operator-framework validators, bundle format, scorecard basic and OLM tests.
	go run ./hack/bundlegen -validate dist/bundle
# Where the release's files are downloaded from: the krew manifest's URIs.
RELEASE_URL ?= https://github.com/cronjob-operator/cronjob-operator/releases/download/v$(VERSION)
# The release's files (the plugin's archives, checksums.txt, the krew manifest cjo.yaml).
RELEASE_DIR ?= bin/release

# plugin-release: six reproducible archives (linux, darwin, windows × amd64, arm64; hack/plugin-release.sh):
# the same clean commit and Go version give the same checksums.txt. PLUGIN_PLATFORMS builds fewer
# ("linux/amd64 windows/amd64", as CI does: the cold cross builds of all six take many minutes); the krew
# manifest needs all six.
PLUGIN_PLATFORMS ?=
.PHONY: plugin-release
plugin-release: ## Build the plugin for every platform (or PLUGIN_PLATFORMS), stamped vVERSION, into RELEASE_DIR (bin/release): archives with LICENSE, checksums.txt.
	VERSION=$(VERSION) GO_LDFLAGS="$(GO_LDFLAGS)" OUT=$(RELEASE_DIR) PLATFORMS="$(PLUGIN_PLATFORMS)" hack/plugin-release.sh

.PHONY: krew-manifest
krew-manifest: plugin-release ## Write the krew manifest RELEASE_DIR/cjo.yaml (from hack/pluginrelease/cjo.yaml.tmpl) with the archives' URIs and SHA-256.
	go run ./hack/pluginrelease krew-manifest -version $(VERSION) -archives $(RELEASE_DIR) -download-url $(RELEASE_URL) -o $(RELEASE_DIR)/cjo.yaml

# krew-validate checks cjo.yaml with krew's own validate-krew-manifest, then installs each platform's archive
# with krew (--archive, KREW_OS and KREW_ARCH: offline, into a throwaway KREW_ROOT).
.PHONY: krew-validate
krew-validate: krew-manifest krew-tools ## Check RELEASE_DIR/cjo.yaml with krew's validation and a krew install of every platform's archive.
	go run ./hack/pluginrelease krew-validate -version $(VERSION) -manifest $(RELEASE_DIR)/cjo.yaml -archives $(RELEASE_DIR) \
		-validate-krew-manifest $(VALIDATE_KREW_MANIFEST) -krew $(KREW)

##@ Dependencies

LOCALBIN ?= $(abspath bin)

CONTROLLER_TOOLS_VERSION ?= v0.23.0
GOLANGCI_LINT_VERSION ?= v2.15.0
# v5.8.3 is newer but needs Go 1.27; this module and the Dockerfile use Go 1.26.
KUSTOMIZE_VERSION ?= v5.8.2
GREMLINS_VERSION ?= v0.6.0
GOVULNCHECK_VERSION ?= v1.9.0
# kube-score is built from its own module, hack/tools/kube-score, whose go.mod pins the version.
KUBE_SCORE_VERSION := $(shell awk '$$1 == "require" && $$2 == "github.com/zegl/kube-score" { print $$3 }' hack/tools/kube-score/go.mod)

GINKGO_VERSION ?= $(shell go list -m -f '{{.Version}}' github.com/onsi/ginkgo/v2)
# helm is built from its own tools module (hack/tools/helm), which pins it and its dependencies.
HELM_VERSION ?= $(shell awk '$$1 == "require" && $$2 == "helm.sh/helm/v4" { print $$3 }' hack/tools/helm/go.mod)

CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
GINKGO ?= $(LOCALBIN)/ginkgo-$(GINKGO_VERSION)
KUSTOMIZE ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
GREMLINS ?= $(LOCALBIN)/gremlins-$(GREMLINS_VERSION)
# govulncheck is built with the release toolchain whose standard library it checks: one built with an older
# Go cannot type-check a newer standard library's source.
GOVULNCHECK ?= $(LOCALBIN)/govulncheck-$(RELEASE_GO)-$(GOVULNCHECK_VERSION)
KUBE_SCORE ?= $(LOCALBIN)/kube-score-$(KUBE_SCORE_VERSION)
HELM ?= $(LOCALBIN)/helm-$(HELM_VERSION)
# promtool's version is the github.com/prometheus/prometheus of hack/tools/promtool/go.mod.
PROMTOOL ?= $(LOCALBIN)/promtool
# krew and its validate-krew-manifest are built from their own module, hack/tools/krew, whose go.mod pins krew.
KREW_VERSION := $(shell awk '$$1 == "require" && $$2 == "sigs.k8s.io/krew" { print $$3 }' hack/tools/krew/go.mod)
KREW ?= $(LOCALBIN)/krew-$(KREW_VERSION)
VALIDATE_KREW_MANIFEST ?= $(LOCALBIN)/validate-krew-manifest-$(KREW_VERSION)

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Install controller-gen into bin/ if needed.
$(CONTROLLER_GEN):
	hack/go-install-tool.sh $(LOCALBIN)/controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen $(CONTROLLER_TOOLS_VERSION)

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Install kustomize into bin/ if needed.
$(KUSTOMIZE):
	hack/go-install-tool.sh $(LOCALBIN)/kustomize sigs.k8s.io/kustomize/kustomize/v5 $(KUSTOMIZE_VERSION)

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Install golangci-lint into bin/ if needed (built from the Go module proxy: minutes when cold).
$(GOLANGCI_LINT):
	hack/go-install-tool.sh $(LOCALBIN)/golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint $(GOLANGCI_LINT_VERSION)

.PHONY: ginkgo
ginkgo: $(GINKGO) ## Install the Ginkgo CLI (the version of go.mod) into bin/ if needed.
$(GINKGO):
	hack/go-install-tool.sh $(LOCALBIN)/ginkgo github.com/onsi/ginkgo/v2/ginkgo $(GINKGO_VERSION)

.PHONY: gremlins
gremlins: $(GREMLINS) ## Install gremlins (mutation testing) into bin/ if needed.
$(GREMLINS):
	hack/go-install-tool.sh $(LOCALBIN)/gremlins github.com/go-gremlins/gremlins/cmd/gremlins $(GREMLINS_VERSION)

.PHONY: govulncheck-tool
govulncheck-tool: $(GOVULNCHECK) ## Install govulncheck into bin/ if needed.
$(GOVULNCHECK):
	GOTOOLCHAIN=$(RELEASE_GO) hack/go-install-tool.sh $(LOCALBIN)/govulncheck-$(RELEASE_GO) golang.org/x/vuln/cmd/govulncheck $(GOVULNCHECK_VERSION)

.PHONY: kube-score-tool
kube-score-tool: $(KUBE_SCORE) ## Build kube-score from hack/tools/kube-score into bin/ if needed (cold: 1-3.5 min).
$(KUBE_SCORE): hack/tools/kube-score/go.mod hack/tools/kube-score/go.sum
	cd hack/tools/kube-score && go build -trimpath -o $(KUBE_SCORE) github.com/zegl/kube-score/cmd/kube-score
	ln -sfn $(notdir $(KUBE_SCORE)) $(LOCALBIN)/kube-score
# helm: a cold build (empty GOCACHE, modules in the module cache) took 8.5 min on 2 shared cores under load
# (341 CPU-seconds: about 3 min on 2 idle cores) and peaks at 1.1 GB RSS.
.PHONY: helm
helm: $(HELM) ## Build helm (hack/tools/helm) into bin/ if needed.
$(HELM):
	cd hack/tools/helm && GOFLAGS="$${GOFLAGS:-} -trimpath" go build -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$(HELM_VERSION)" -o $(HELM) helm.sh/helm/v4/cmd/helm
	ln -sfn helm-$(HELM_VERSION) $(LOCALBIN)/helm
# promtool is built by hack/promtool.sh in its own module (hack/tools/promtool), cached in ~/.cache.
.PHONY: promtool
promtool: ## Install promtool (Prometheus' rule checker, built from the Go module proxy) into bin/ if needed.
	hack/promtool.sh $(LOCALBIN)

.PHONY: krew-tools
krew-tools: $(KREW) $(VALIDATE_KREW_MANIFEST) ## Build krew and validate-krew-manifest (hack/tools/krew) into bin/ if needed (cold: about 30 s).
$(KREW): hack/tools/krew/go.mod hack/tools/krew/go.sum
	cd hack/tools/krew && GOWORK=off go build -trimpath -o $(KREW) sigs.k8s.io/krew/cmd/krew
$(VALIDATE_KREW_MANIFEST): hack/tools/krew/go.mod hack/tools/krew/go.sum
	cd hack/tools/krew && GOWORK=off go build -trimpath -o $(VALIDATE_KREW_MANIFEST) sigs.k8s.io/krew/cmd/validate-krew-manifest

# kubectl builds kubectl with envtest-assets unless KUBECTL was given.
.PHONY: kubectl
kubectl: $(if $(filter file,$(origin KUBECTL)),envtest-assets)
