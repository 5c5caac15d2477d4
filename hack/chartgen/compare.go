package main

import (
	"fmt"

	"github.com/google/go-cmp/cmp"
)

// Labels and annotations Helm adds, and the label it changes: a rendering is compared without them.
var (
	helmLabels      = []string{"helm.sh/chart", "app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/managed-by"}
	helmAnnotations = []string{"helm.sh/resource-policy", "meta.helm.sh/release-name", "meta.helm.sh/release-namespace"}
)

// compareFiles fails when the objects of rendered (helm template) and expected (a kustomize build) differ
// in anything but what Helm adds; the Namespace of expected is not compared (the chart installs into the
// release's namespace, made by helm install --create-namespace).
func compareFiles(rendered, expected string) error {
	got, err := readObjects(rendered)
	if err != nil {
		return err
	}
	want, err := readObjects(expected)
	if err != nil {
		return err
	}
	diff := cmp.Diff(byKey(want), byKey(got))
	if diff != "" {
		return fmt.Errorf("%s and %s differ (-%s +%s):\n%s", rendered, expected, expected, rendered, diff)
	}
	fmt.Printf("chartgen: %s renders the %d objects of %s\n", rendered, len(got), expected)
	return nil
}

// byKey normalises objects (see compareFiles) and indexes them by kind/namespace/name.
func byKey(objs []object) map[string]object {
	out := map[string]object{}
	for _, o := range objs {
		if o.kind() == kindNamespace {
			continue
		}
		meta := o.metadata()
		for field, drop := range map[string][]string{fieldLabels: helmLabels, "annotations": helmAnnotations} {
			m := mapAt(meta, field)
			for _, k := range drop {
				delete(m, k)
			}
			if len(m) == 0 {
				delete(meta, field)
			}
		}
		out[o.key()] = o
	}
	return out
}
