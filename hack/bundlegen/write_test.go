package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWrite(t *testing.T) {
	b, err := makeBundle([]byte(smallBuild), testOptions)
	if err != nil {
		t.Fatalf("makeBundle() error = %v", err)
	}
	dir := t.TempDir()
	// A stale manifest and a file of the bundle directory's own.
	for name, data := range map[string]string{"manifests/stale.yaml": "kind: Gone\n", "README.md": "mine\n"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.write(dir); err != nil {
		t.Fatalf("write() error = %v", err)
	}
	var files []string
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	want := []string{
		"Dockerfile",
		"README.md",
		"manifests/cronjob-operator.clusterserviceversion.yaml",
		"manifests/example.dev_widgets.yaml",
		"manifests/op-controller-manager_policy_v1_poddisruptionbudget.yaml",
		"manifests/op-metrics-service_v1_service.yaml",
		"manifests/op-widget-editor-role_rbac.authorization.k8s.io_v1_clusterrole.yaml",
		"metadata/annotations.yaml",
	}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("files (-want,+got):\n%s", diff)
	}

	read := func(name string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	csv := read("manifests/cronjob-operator.clusterserviceversion.yaml")
	for _, absent := range []string{"creationTimestamp", "status:", "namespace:"} {
		if strings.Contains(csv, absent) {
			t.Errorf("the CSV has %q", absent)
		}
	}
	if !strings.HasPrefix(csv, generatedHeader) {
		t.Errorf("the CSV does not start with %q", generatedHeader)
	}
	wantAnnotations := generatedHeader + `annotations:
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: cronjob-operator
  operators.operatorframework.io.bundle.channels.v1: stable
  operators.operatorframework.io.bundle.channel.default.v1: stable
`
	if diff := cmp.Diff(wantAnnotations, read("metadata/annotations.yaml")); diff != "" {
		t.Errorf("annotations.yaml (-want,+got):\n%s", diff)
	}
	dockerfile := read("Dockerfile")
	for _, line := range []string{"FROM scratch\n", "LABEL operators.operatorframework.io.bundle.package.v1=cronjob-operator\n", "COPY manifests /manifests/\n", "COPY metadata /metadata/\n"} {
		if !strings.Contains(dockerfile, line) {
			t.Errorf("the Dockerfile lacks %q:\n%s", line, dockerfile)
		}
	}
	if got := read("manifests/example.dev_widgets.yaml"); strings.Contains(got, "acceptedNames") || !strings.Contains(got, "served: false") {
		t.Errorf("the CRD is not the build's:\n%s", got)
	}
}
