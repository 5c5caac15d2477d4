package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// KustomizeDefaultWith renders config/default with some of its optional parts on, as a user turns them on:
// the line `#- ../<part>` of config/default/kustomization.yaml uncommented, for each part (for example
// "network-policy", "policies/manual-runs", "flowcontrol"), in a copy of config/ in a temporary directory
// that is removed before it returns. It returns an error if config/default has no such line for a part, or
// as Kustomize does.
func KustomizeDefaultWith(ctx context.Context, parts ...string) ([]*unstructured.Unstructured, error) {
	tmp, err := os.MkdirTemp("", "config-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	config := filepath.Join(tmp, "config")
	if err := os.CopyFS(config, os.DirFS(filepath.Join(repoRoot(), "config"))); err != nil {
		return nil, fmt.Errorf("copying config/: %w", err)
	}
	file := filepath.Join(config, "default", "kustomization.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	for _, part := range parts {
		i := slices.Index(lines, "#- ../"+part)
		if i < 0 {
			return nil, fmt.Errorf("config/default/kustomization.yaml has no line %q to uncomment", "#- ../"+part)
		}
		lines[i] = strings.TrimPrefix(lines[i], "#")
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		return nil, err
	}
	return kustomizeBuild(ctx, filepath.Join(config, "default"), "config/default with "+strings.Join(parts, ", "))
}
