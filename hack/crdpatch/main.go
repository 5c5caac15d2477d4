// Command crdpatch removes the transition rules (CEL rules that use oldSelf, such as "field is immutable")
// that controller-gen copies from batch/v1 JobSpec into spec.jobTemplate of the CronJob CRD.
//
// Those rules protect a running Job; in a CronJob the template is only a blueprint for future Jobs, and
// users must be able to edit it, as they can in batch/v1 CronJob. `make manifests` runs this after
// controller-gen. Usage: crdpatch FILE (rewritten in place).
package main

import (
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crdpatch CRD.yaml")
		os.Exit(2)
	}
	if err := patchFile(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "crdpatch:", err)
		os.Exit(1)
	}
}

func patchFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var crd map[string]any
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	versions, _ := dig(crd, "spec", "versions").([]any)
	removed := 0
	for _, v := range versions {
		tmpl, ok := dig(v, "schema", "openAPIV3Schema", "properties", "spec", "properties", "jobTemplate").(map[string]any)
		if !ok {
			return fmt.Errorf("%s: no spec.jobTemplate in the schema", path)
		}
		removed += dropTransitionRules(tmpl)
	}
	out, err := yaml.Marshal(crd)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append([]byte("---\n"), out...), 0o644); err != nil {
		return err
	}
	fmt.Printf("crdpatch: removed %d oldSelf rules from spec.jobTemplate in %s\n", removed, path)
	return nil
}

// dropTransitionRules walks a schema and removes every x-kubernetes-validations rule that uses oldSelf.
func dropTransitionRules(node any) int {
	removed := 0
	switch n := node.(type) {
	case map[string]any:
		if rules, ok := n["x-kubernetes-validations"].([]any); ok {
			kept := rules[:0]
			for _, r := range rules {
				if rule, _ := r.(map[string]any)["rule"].(string); strings.Contains(rule, "oldSelf") {
					removed++
					continue
				}
				kept = append(kept, r)
			}
			if len(kept) == 0 {
				delete(n, "x-kubernetes-validations")
			} else {
				n["x-kubernetes-validations"] = kept
			}
		}
		for _, child := range n {
			removed += dropTransitionRules(child)
		}
	case []any:
		for _, child := range n {
			removed += dropTransitionRules(child)
		}
	}
	return removed
}

func dig(node any, keys ...string) any {
	for _, k := range keys {
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[k]
	}
	return node
}
