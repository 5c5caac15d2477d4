package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Kustomize renders the kustomization in dir, a path relative to the repository's root (for example
// "config/default"), with the kustomize binary of $KUSTOMIZE, else the newest bin/kustomize-<version> that
// `make kustomize` installed, and returns its objects in the order rendered. It returns an error if no
// kustomize is found, the build fails or its output is not YAML objects.
func Kustomize(ctx context.Context, dir string) ([]*unstructured.Unstructured, error) {
	return kustomizeBuild(ctx, filepath.Join(repoRoot(), dir), dir)
}

// kustomizeBuild is Kustomize of the kustomization in the absolute path abs, named dir in errors.
func kustomizeBuild(ctx context.Context, abs, dir string) ([]*unstructured.Unstructured, error) {
	bin, err := kustomizeBinary()
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "build", abs)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w: %s", dir, err, stderr.String())
	}
	var objs []*unstructured.Unstructured
	dec := yaml.NewYAMLOrJSONDecoder(&stdout, 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("decoding the output of kustomize build %s: %w", dir, err)
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
}

func kustomizeBinary() (string, error) {
	if bin := os.Getenv("KUSTOMIZE"); bin != "" {
		return bin, nil
	}
	pattern := filepath.Join(repoRoot(), "bin", "kustomize-*")
	bins, err := filepath.Glob(pattern)
	if err != nil || len(bins) == 0 {
		return "", fmt.Errorf("no kustomize: set KUSTOMIZE or run `make kustomize` (looked for %s)", pattern)
	}
	sort.Strings(bins)
	return bins[len(bins)-1], nil
}

// ApplyRBAC creates the Namespaces, ServiceAccounts, Roles, ClusterRoles and their bindings among objs
// (from Kustomize), in that order, and skips every other object. An object that already exists is left as
// it is. What it created, Namespaces apart (envtest cannot delete them), is deleted when the spec, or the
// Ordered container whose BeforeAll called it, ends (ginkgo.DeferCleanup), so that no grant outlives the
// spec that made it. It returns the first error of a create.
func ApplyRBAC(ctx context.Context, c client.Client, objs []*unstructured.Unstructured) error {
	var created []client.Object
	ginkgo.DeferCleanup(func(ctx context.Context) {
		for _, o := range slices.Backward(created) {
			gomega.Expect(client.IgnoreNotFound(c.Delete(ctx, o))).To(gomega.Succeed(), "deleting %s %s", o.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(o))
		}
	})
	for _, kinds := range [][]string{{"Namespace"}, {"ServiceAccount", "ClusterRole", "Role"}, {"ClusterRoleBinding", "RoleBinding"}} {
		for _, o := range objs {
			if !slices.Contains(kinds, o.GetKind()) {
				continue
			}
			obj := o.DeepCopy()
			err := c.Create(ctx, obj)
			switch {
			case apierrors.IsAlreadyExists(err):
			case err != nil:
				return fmt.Errorf("creating %s %s: %w", o.GetKind(), client.ObjectKeyFromObject(o), err)
			case o.GetKind() != "Namespace":
				created = append(created, obj)
			}
		}
	}
	return nil
}
