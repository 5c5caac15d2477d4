package framework

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
)

// repoRoot returns the root of this repository, found from the location of this source file so that no
// test depends on the working directory.
func repoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("framework: cannot find the path of paths.go")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// DefaultCRDPaths returns the directory of the generated CRDs (config/crd/bases, written by
// `make manifests`).
func DefaultCRDPaths() []string {
	return []string{filepath.Join(repoRoot(), "config", "crd", "bases")}
}

// DefaultWebhookPaths returns the generated webhook configurations (config/webhook/manifests.yaml,
// written by `make manifests`). It names the file, not the directory: the directory also holds the
// kustomize files of the deployment, which are no webhook configurations.
func DefaultWebhookPaths() []string {
	return []string{filepath.Join(repoRoot(), "config", "webhook", "manifests.yaml")}
}

// BinaryAssetsDir is binaryAssetsDir, for suites that start an envtest.Environment of their own.
func BinaryAssetsDir() (string, error) { return binaryAssetsDir() }

// binaryAssetsDir returns the directory of kube-apiserver and etcd: $KUBEBUILDER_ASSETS when set (envtest
// reads it itself and "" leaves it to envtest), else the newest bin/k8s/<version>-<os>-<arch> that
// `make envtest-assets` built.
func binaryAssetsDir() (string, error) {
	if os.Getenv("KUBEBUILDER_ASSETS") != "" {
		return "", nil
	}
	pattern := filepath.Join(repoRoot(), "bin", "k8s", fmt.Sprintf("*-%s-%s", runtime.GOOS, runtime.GOARCH))
	dirs, err := filepath.Glob(pattern)
	if err != nil || len(dirs) == 0 {
		return "", fmt.Errorf("no envtest binaries: set KUBEBUILDER_ASSETS or run `make envtest-assets` (looked for %s)", pattern)
	}
	sort.Strings(dirs)
	return dirs[len(dirs)-1], nil
}
