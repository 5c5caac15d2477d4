package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The scorecard's basic and OLM tests (operator-sdk internal/scorecard/tests), as checks of a bundle on
// disk. The scorecard runs them in a cluster, from its test image; this is what they look at, with the
// same names, written for this project and each a little stricter where the scorecard only suggests:
//
//   - basic-check-spec: every custom resource of alm-examples has a non-empty spec (the scorecard only
//     suggests one when it is missing);
//   - olm-bundle-validation: the bundle's format and the default validators (formatFindings and
//     frameworkFindings, which run more validators than the default three);
//   - olm-crds-have-validation: every owned CRD version has a schema, and every top-level spec and status
//     field of an example is a property of its CRD version's schema;
//   - olm-crds-have-resources: every owned CRD lists the resources it uses;
//   - olm-spec-descriptors: every top-level spec field of an example has a spec descriptor of its kind and
//     version;
//   - olm-status-descriptors: an example with a status, and every owned CRD version whose schema has status
//     fields, has status descriptors (the scorecard asks it of examples with a status only).
//
// descriptor-paths adds what no scorecard test checks: every descriptor's path is a field of its CRD
// version's schema, so that descriptors cannot outlive a renamed field.
const (
	basicCheckSpec          = "scorecard basic-check-spec"
	olmCRDsHaveValidation   = "scorecard olm-crds-have-validation"
	olmCRDsHaveResources    = "scorecard olm-crds-have-resources"
	olmSpecDescriptors      = "scorecard olm-spec-descriptors"
	olmStatusDescriptors    = "scorecard olm-status-descriptors"
	descriptorPathsCheck    = "descriptor-paths"
	scorecardExamplesSource = "alm-examples"
)

// scorecardFindings runs the scorecard equivalents on b and returns their errors.
func scorecardFindings(b *manifests.Bundle) []finding {
	var out []finding
	add := func(check string, msgs []string) {
		for _, m := range msgs {
			out = append(out, finding{check: check, message: m})
		}
	}
	examples, err := examplesOf(b)
	if err != nil {
		add(scorecardExamplesSource, []string{err.Error()})
		return out
	}
	add(basicCheckSpec, checkSpecs(examples))
	add(olmCRDsHaveValidation, crdsHaveValidation(b, examples))
	add(olmCRDsHaveResources, crdsHaveResources(b.CSV))
	add(olmSpecDescriptors, specDescriptors(b.CSV, examples))
	add(olmStatusDescriptors, statusDescriptors(b, examples))
	add(descriptorPathsCheck, descriptorPaths(b))
	return out
}

// checkSpecs is basic-check-spec: the examples without a spec, or with an empty one.
func checkSpecs(examples []unstructured.Unstructured) []string {
	var out []string
	for _, cr := range examples {
		if spec, _ := cr.Object["spec"].(map[string]any); len(spec) == 0 {
			out = append(out, fmt.Sprintf("%s: no spec", crName(cr)))
		}
	}
	if len(examples) == 0 {
		out = append(out, "alm-examples holds no custom resource")
	}
	return out
}

// crdsHaveValidation is olm-crds-have-validation: owned CRD versions without a schema, and top-level spec
// and status fields of examples that their CRD version's schema lacks.
func crdsHaveValidation(b *manifests.Bundle, examples []unstructured.Unstructured) []string {
	var out []string
	for _, crd := range b.V1CRDs {
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				out = append(out, fmt.Sprintf("CRD %s %s has no schema", crd.Name, v.Name))
			}
		}
	}
	for _, cr := range examples {
		schema := schemaOf(b, cr)
		if schema == nil {
			out = append(out, fmt.Sprintf("%s: no CRD of the bundle serves %s", crName(cr), cr.GroupVersionKind()))
			continue
		}
		for _, block := range []string{"spec", "status"} {
			fields, _ := cr.Object[block].(map[string]any)
			for _, key := range sortedKeys(fields) {
				if _, ok := schema.Properties[block].Properties[key]; !ok {
					out = append(out, fmt.Sprintf("%s: %s.%s is not in the schema of %s", crName(cr), block, key, cr.GroupVersionKind()))
				}
			}
		}
	}
	return out
}

// crdsHaveResources is olm-crds-have-resources: owned CRDs that list no resources.
func crdsHaveResources(csv *v1alpha1.ClusterServiceVersion) []string {
	var out []string
	for _, d := range csv.Spec.CustomResourceDefinitions.Owned {
		if len(d.Resources) == 0 {
			out = append(out, fmt.Sprintf("owned CRD %s %s lists no resources", d.Name, d.Version))
		}
	}
	return out
}

// specDescriptors is olm-spec-descriptors: top-level spec fields of examples without a spec descriptor of
// the example's kind and version, and examples of a kind and version the CSV does not own.
func specDescriptors(csv *v1alpha1.ClusterServiceVersion, examples []unstructured.Unstructured) []string {
	var out []string
	for _, cr := range examples {
		d := ownedFor(csv, cr)
		if d == nil {
			out = append(out, fmt.Sprintf("%s: the CSV owns no %s", crName(cr), cr.GroupVersionKind()))
			continue
		}
		spec, _ := cr.Object["spec"].(map[string]any)
		for _, key := range sortedKeys(spec) {
			if !slices.ContainsFunc(d.SpecDescriptors, func(s v1alpha1.SpecDescriptor) bool { return s.Path == key }) {
				out = append(out, fmt.Sprintf("%s: spec.%s has no spec descriptor in %s %s", crName(cr), key, d.Name, d.Version))
			}
		}
	}
	return out
}

// statusDescriptors is olm-status-descriptors: examples with a status, and owned CRD versions whose schema
// has status fields, whose owned entry has no status descriptor.
func statusDescriptors(b *manifests.Bundle, examples []unstructured.Unstructured) []string {
	var out []string
	for _, cr := range examples {
		status, _ := cr.Object["status"].(map[string]any)
		if len(status) == 0 {
			continue
		}
		if d := ownedFor(b.CSV, cr); d != nil && len(d.StatusDescriptors) == 0 {
			out = append(out, fmt.Sprintf("%s has a status, %s %s no status descriptor", crName(cr), d.Name, d.Version))
		}
	}
	for _, d := range b.CSV.Spec.CustomResourceDefinitions.Owned {
		schema := crdSchema(b, d.Name, d.Version)
		if schema != nil && len(schema.Properties["status"].Properties) > 0 && len(d.StatusDescriptors) == 0 {
			out = append(out, fmt.Sprintf("owned CRD %s %s has status fields and no status descriptor", d.Name, d.Version))
		}
	}
	return out
}

// descriptorPaths returns the spec and status descriptors whose path is not a field of their CRD
// version's schema, and owned CRDs the bundle has no schema for.
func descriptorPaths(b *manifests.Bundle) []string {
	var out []string
	for _, d := range b.CSV.Spec.CustomResourceDefinitions.Owned {
		schema := crdSchema(b, d.Name, d.Version)
		if schema == nil {
			out = append(out, fmt.Sprintf("owned CRD %s %s: the bundle has no schema for it", d.Name, d.Version))
			continue
		}
		for _, s := range d.SpecDescriptors {
			if _, err := fieldAt(schema, "spec", s.Path); err != nil {
				out = append(out, fmt.Sprintf("%s %s: spec descriptor: %v", d.Name, d.Version, err))
			}
		}
		for _, s := range d.StatusDescriptors {
			if _, err := fieldAt(schema, "status", s.Path); err != nil {
				out = append(out, fmt.Sprintf("%s %s: status descriptor: %v", d.Name, d.Version, err))
			}
		}
	}
	return out
}

// ownedFor returns the CSV's owned entry for the kind and version of cr, nil if there is none.
func ownedFor(csv *v1alpha1.ClusterServiceVersion, cr unstructured.Unstructured) *v1alpha1.CRDDescription {
	gvk := cr.GroupVersionKind()
	for i, d := range csv.Spec.CustomResourceDefinitions.Owned {
		if d.Kind == gvk.Kind && d.Version == gvk.Version {
			return &csv.Spec.CustomResourceDefinitions.Owned[i]
		}
	}
	return nil
}

// schemaOf returns the schema of the bundle's CRD version that serves cr, nil if there is none.
func schemaOf(b *manifests.Bundle, cr unstructured.Unstructured) *apiextensionsv1.JSONSchemaProps {
	gvk := cr.GroupVersionKind()
	for _, crd := range b.V1CRDs {
		if crd.Spec.Group == gvk.Group && crd.Spec.Names.Kind == gvk.Kind {
			return crdSchema(b, crd.Name, gvk.Version)
		}
	}
	return nil
}

// crdSchema returns the schema of version of the bundle's CRD name, nil if there is none.
func crdSchema(b *manifests.Bundle, name, version string) *apiextensionsv1.JSONSchemaProps {
	for _, crd := range b.V1CRDs {
		if crd.Name != name {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == version && v.Served && v.Schema != nil {
				return v.Schema.OpenAPIV3Schema
			}
		}
	}
	return nil
}

// crName names an example in a message: Kind/name (apiVersion).
func crName(cr unstructured.Unstructured) string {
	return fmt.Sprintf("%s/%s (%s)", cr.GetKind(), cr.GetName(), cr.GetAPIVersion())
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
