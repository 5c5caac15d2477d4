package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// finding is one result of a check of a bundle.
type finding struct {
	// check names what found it: an operator-framework validator, the format check, a scorecard test.
	check string
	// warning is true for a warning, false for an error.
	warning bool
	message string
	// justified says why a warning is accepted (justifiedWarnings); empty when it is not.
	justified string
}

func (f finding) isError() bool { return !f.warning }

func (f finding) String() string {
	level := "error"
	if f.warning {
		level = "warning"
	}
	s := fmt.Sprintf("%s: %s: %s", level, f.check, f.message)
	if f.justified != "" {
		s += " (accepted: " + f.justified + ")"
	}
	return s
}

// targetKubeVersion is the Kubernetes version the deprecated-API validator checks the bundle against: the
// newest the project tests on (the Makefile's ENVTEST_K8S_VERSION). An API removed in it is an error.
const targetKubeVersion = "1.37"

// validators are the operator-framework validators the bundle must pass: `operator-sdk bundle validate`'s
// defaults (CSV, CRD, bundle), the OperatorHub suite's (operatorhub, capabilities, categories), the good
// practices, the deprecated APIs and the objects (PodDisruptionBudget, PriorityClass, RBAC) validators.
// Left out: the package manifest and OperatorGroup validators (the bundle has neither), the community
// validator (deprecated upstream, moved out of the library) and the multiple-architectures validator,
// which inspects the images with docker or podman and a registry.
var validators = []struct {
	name      string
	validator interfaces.Validator
}{
	{"csv", validation.ClusterServiceVersionValidator},
	{"crd", validation.CustomResourceDefinitionValidator},
	{"bundle", validation.BundleValidator},
	{"operatorhub", validation.OperatorHubV2Validator},
	{"capabilities", validation.StandardCapabilitiesValidator},
	{"categories", validation.StandardCategoriesValidator},
	{"good-practices", validation.GoodPracticesValidator},
	{"deprecated-apis", validation.AlphaDeprecatedAPIsValidator},
	{"objects", validation.ObjectValidator},
}

// justifiedWarnings are the warnings the committed bundle is allowed to have, by a part of their message,
// with the reason. Every other warning fails TestBundle.
var justifiedWarnings = map[string]string{}

// validateDir checks the bundle in dir: its format (formatFindings), the operator-framework validators
// (frameworkFindings) and the scorecard's basic and OLM tests (scorecardFindings). It returns an error if
// the bundle cannot be loaded at all.
func validateDir(dir string) ([]finding, error) {
	findings := formatFindings(dir)
	b, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		return nil, fmt.Errorf("loading the bundle %s: %w", dir, err)
	}
	findings = append(findings, frameworkFindings(b)...)
	findings = append(findings, scorecardFindings(b)...)
	return findings, nil
}

// frameworkFindings runs the validators on b, as `operator-sdk bundle validate` runs them: on the bundle,
// its CSV, CRDs and objects, with the optional value k8s-version. Warnings listed in justifiedWarnings
// carry their justification.
func frameworkFindings(b *manifests.Bundle) []finding {
	objs := append(b.ObjectsToValidate(), map[string]string{"k8s-version": targetKubeVersion})
	var out []finding
	for _, v := range validators {
		for _, r := range v.validator.Validate(objs...) {
			for _, e := range r.Errors {
				out = append(out, finding{check: "operator-framework " + v.name, message: e.Error()})
			}
			for _, w := range r.Warnings {
				f := finding{check: "operator-framework " + v.name, warning: true, message: w.Error()}
				for part, why := range justifiedWarnings {
					if strings.Contains(f.message, part) {
						f.justified = why
					}
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// formatFindings checks the layout of the bundle in dir as operator-registry's bundle format validation
// does (the scorecard's olm-bundle-validation runs it before the validators): manifests/ and metadata/,
// an annotations file that names the registry+v1 media type, the two directories, the package and its
// channels; and in manifests/ only files, each one object of a kind a registry+v1 bundle may hold, one of
// them the CSV.
func formatFindings(dir string) []finding {
	var out []finding
	fail := func(format string, a ...any) {
		out = append(out, finding{check: "bundle format", message: fmt.Sprintf(format, a...)})
	}
	data, err := os.ReadFile(filepath.Join(dir, metadataDir, annotationsFile))
	if err != nil {
		fail("%v", err)
	} else {
		var f struct {
			Annotations map[string]string `json:"annotations"`
		}
		if err := yaml.Unmarshal(data, &f); err != nil {
			fail("%s: %v", annotationsFile, err)
		}
		want := map[string]string{mediatypeAnnotation: registryV1, manifestsAnnotation: manifestsDir + "/", metadataAnnotation: metadataDir + "/"}
		for _, key := range []string{mediatypeAnnotation, manifestsAnnotation, metadataAnnotation, packageAnnotation, channelsAnnotation, defaultChannelAnnotation} {
			got, ok := f.Annotations[key]
			switch {
			case !ok || got == "":
				fail("%s: annotation %s is missing or empty", annotationsFile, key)
			case want[key] != "" && got != want[key]:
				fail("%s: annotation %s is %q, want %q", annotationsFile, key, got, want[key])
			}
		}
		if def := f.Annotations[defaultChannelAnnotation]; def != "" && !slices.Contains(strings.Split(f.Annotations[channelsAnnotation], ","), def) {
			fail("%s: the default channel %q is not one of the channels %q", annotationsFile, def, f.Annotations[channelsAnnotation])
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, manifestsDir))
	if err != nil {
		fail("%v", err)
		return out
	}
	csvs := 0
	for _, e := range entries {
		path := filepath.Join(manifestsDir, e.Name())
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			fail("%s: %s holds only the manifests' files, no directory or hidden file", path, manifestsDir)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			fail("%v", err)
			continue
		}
		objs, err := decodeObjects(data)
		if err != nil || len(objs) != 1 {
			fail("%s: want one object (%v)", path, err)
			continue
		}
		kind := objs[0].GetKind()
		switch {
		case kind == "ClusterServiceVersion":
			csvs++
		case kind == kindCRD:
			if v := objs[0].GetAPIVersion(); v != "apiextensions.k8s.io/v1" {
				fail("%s: CRD of %s, want apiextensions.k8s.io/v1", path, v)
			}
		case !slices.Contains(supportedKinds, kind):
			fail("%s: a registry+v1 bundle cannot hold a %s", path, kind)
		}
		if ns := objs[0].GetNamespace(); ns != "" && kind != kindCRD {
			fail("%s: %s %s names namespace %s: OLM installs it in the operator's", path, kind, objs[0].GetName(), ns)
		}
	}
	if csvs != 1 {
		fail("%s holds %d ClusterServiceVersions, want 1", manifestsDir, csvs)
	}
	return out
}

// examplesOf returns the custom resources of the CSV's alm-examples annotation, as the scorecard reads
// them; an empty or missing annotation gives none.
func examplesOf(b *manifests.Bundle) ([]unstructured.Unstructured, error) {
	ann := b.CSV.GetAnnotations()["alm-examples"]
	if ann == "" {
		return nil, nil
	}
	var crs []unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(ann), &crs); err != nil {
		return nil, fmt.Errorf("alm-examples: %w", err)
	}
	return crs, nil
}
