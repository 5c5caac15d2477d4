//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// writeKubeconfig provisions an admin user (group system:masters) and writes a kubeconfig for it to path.
func writeKubeconfig(env *envtest.Environment, path string) error {
	user, err := env.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("adding admin user: %w", err)
	}
	data, err := user.KubeConfig()
	if err != nil {
		return fmt.Errorf("building admin kubeconfig: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing kubeconfig: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing kubeconfig: %w", err)
	}
	return nil
}

// createSamples creates every object of the YAML or JSON files in dir, except kustomization.yaml, in file
// name order. Objects without a namespace go to "default" (ignored for cluster-scoped kinds).
func createSamples(cfg *rest.Config, dir string) error {
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return fmt.Errorf("creating client: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	files, err := sampleFiles(dir)
	if err != nil {
		return err
	}
	for _, file := range files {
		objs, err := decodeFile(file)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if obj.GetNamespace() == "" {
				obj.SetNamespace("default")
			}
			err := c.Create(ctx, obj)
			if err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating %s %s/%s from %s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), file, err)
			}
			logf("created %s %s/%s from %s", obj.GetKind(), obj.GetNamespace(), obj.GetName(), file)
		}
	}
	return nil
}

// sampleFiles lists the manifests in dir, sorted, leaving out kustomization files.
func sampleFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading samples: %w", err)
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		ext := strings.ToLower(filepath.Ext(name))
		if e.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") || strings.HasPrefix(name, "kustomization.") {
			continue
		}
		files = append(files, filepath.Join(dir, name))
	}
	sort.Strings(files)
	return files, nil
}

// decodeFile decodes every document of a YAML (or JSON) file, skipping empty ones.
func decodeFile(path string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading sample: %w", err)
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var objs []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("decoding %s: %w", path, err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
}
