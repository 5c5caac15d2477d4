package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ownedCRDs returns the CSV's owned CRDs: for each served version of each of crds, in their order, the
// base's entry for it (base describes them by hand: display name, resources, descriptors), with the kind
// of the CRD, the description of its schema when the entry gives none, and each descriptor's description
// from the schema of the field it describes when it gives none (describe). It returns an error if a
// served version has no entry in base, an entry has no served version, its kind is not the CRD's, or a
// descriptor's path is not a field of the schema.
func ownedCRDs(base []v1alpha1.CRDDescription, crds []*apiextensionsv1.CustomResourceDefinition) ([]v1alpha1.CRDDescription, error) {
	used := make([]bool, len(base))
	var owned []v1alpha1.CRDDescription
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			i := slices.IndexFunc(base, func(d v1alpha1.CRDDescription) bool { return d.Name == crd.Name && d.Version == v.Name })
			if i < 0 {
				return nil, fmt.Errorf("the CSV base has no owned entry for version %s of CRD %s: add one with its displayName, resources and descriptors", v.Name, crd.Name)
			}
			used[i] = true
			d := *base[i].DeepCopy()
			if d.Kind != "" && d.Kind != crd.Spec.Names.Kind {
				return nil, fmt.Errorf("the CSV base's owned entry for %s %s says kind %s, the CRD's is %s", crd.Name, v.Name, d.Kind, crd.Spec.Names.Kind)
			}
			d.Kind = crd.Spec.Names.Kind
			if err := describe(&d, v.Schema); err != nil {
				return nil, err
			}
			owned = append(owned, d)
		}
	}
	for i, d := range base {
		if !used[i] {
			return nil, fmt.Errorf("the CSV base has an owned entry for version %s of CRD %s, which the build does not serve", d.Version, d.Name)
		}
	}
	return owned, nil
}

// describe fills the descriptions d leaves empty from schema (the CRD version's): d's from the schema's
// own, each spec and status descriptor's from the field at its path. It returns an error naming the first
// descriptor whose path is not a field of the schema.
func describe(d *v1alpha1.CRDDescription, schema *apiextensionsv1.CustomResourceValidation) error {
	if schema == nil || schema.OpenAPIV3Schema == nil {
		return fmt.Errorf("CRD %s %s has no schema", d.Name, d.Version)
	}
	root := schema.OpenAPIV3Schema
	if d.Description == "" {
		d.Description = firstSentence(root.Description)
	}
	for i := range d.SpecDescriptors {
		field, err := fieldAt(root, "spec", d.SpecDescriptors[i].Path)
		if err != nil {
			return fmt.Errorf("%s %s: spec descriptor: %w", d.Name, d.Version, err)
		}
		if d.SpecDescriptors[i].Description == "" {
			d.SpecDescriptors[i].Description = firstSentence(field.Description)
		}
	}
	for i := range d.StatusDescriptors {
		field, err := fieldAt(root, "status", d.StatusDescriptors[i].Path)
		if err != nil {
			return fmt.Errorf("%s %s: status descriptor: %w", d.Name, d.Version, err)
		}
		if d.StatusDescriptors[i].Description == "" {
			d.StatusDescriptors[i].Description = firstSentence(field.Description)
		}
	}
	return nil
}

// indexSuffix is an array index at the end of a path element: "crons[0]".
var indexSuffix = regexp.MustCompile(`\[[0-9]+\]$`)

// fieldAt returns the schema of the field at path (dot-separated, an element may end in an array index
// such as [0]) under the property block (spec or status) of root. It returns an error naming the first
// element that is not there.
func fieldAt(root *apiextensionsv1.JSONSchemaProps, block, path string) (*apiextensionsv1.JSONSchemaProps, error) {
	s, ok := root.Properties[block]
	if !ok {
		return nil, fmt.Errorf("the schema has no %s", block)
	}
	if path == "" {
		return nil, fmt.Errorf("a descriptor of %s has an empty path", block)
	}
	at := []string{block}
	for elem := range strings.SplitSeq(path, ".") {
		name := indexSuffix.ReplaceAllString(elem, "")
		at = append(at, name)
		next, ok := s.Properties[name]
		if !ok {
			return nil, fmt.Errorf("path %s: %s is not a field of the schema", path, strings.Join(at, "."))
		}
		s = next
		if name != elem {
			if s.Items == nil || s.Items.Schema == nil {
				return nil, fmt.Errorf("path %s: %s is not a list", path, name)
			}
			s = *s.Items.Schema
		}
	}
	return &s, nil
}

// sentenceEnd is the end of a sentence: a full stop followed by white space.
var sentenceEnd = regexp.MustCompile(`\.\s`)

// firstSentence returns the first sentence of a schema description, on one line.
func firstSentence(desc string) string {
	desc = strings.Join(strings.Fields(desc), " ")
	if loc := sentenceEnd.FindStringIndex(desc + " "); loc != nil {
		return desc[:loc[0]+1]
	}
	return desc
}

// almExamples returns the alm-examples annotation of the CSV: the examples as a JSON list, ordered by kind,
// API version and name, each with only its name for metadata (a catalog creates it in a namespace of the
// user's choosing, and kustomize's labels say nothing about it). It returns an error if two examples
// have the same kind, version and name.
func almExamples(examples []*unstructured.Unstructured) (string, error) {
	list := make([]map[string]any, 0, len(examples))
	seen := map[string]bool{}
	sorted := slices.Clone(examples)
	slices.SortFunc(sorted, func(a, b *unstructured.Unstructured) int {
		return cmp.Or(cmp.Compare(a.GetKind(), b.GetKind()), cmp.Compare(a.GetAPIVersion(), b.GetAPIVersion()), cmp.Compare(a.GetName(), b.GetName()))
	})
	for _, e := range sorted {
		key := strconv.Quote(e.GetAPIVersion() + "/" + e.GetKind() + "/" + e.GetName())
		if seen[key] {
			return "", fmt.Errorf("two examples %s", key)
		}
		seen[key] = true
		o := e.DeepCopy().Object
		o["metadata"] = map[string]any{"name": e.GetName()}
		list = append(list, o)
	}
	b, err := json.MarshalIndent(list, "", "  ")
	return string(b), err
}
