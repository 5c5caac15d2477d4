package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	opversion "github.com/cronjob-operator/cronjob-operator/controllers/version"
)

// The tests of this file check the committed bundle, dist/bundle, as CI must: the operator-framework
// validators, the bundle format and the scorecard's basic and OLM tests (scorecard.go). Each table first
// checks the bundle as committed, then breaks one thing in a copy to show the check catches it. `go test`
// runs in the package's directory, so the bundle is two levels up.
var committedBundle = filepath.Join("..", "..", "dist", "bundle")

// loadCommitted loads dist/bundle as `operator-sdk bundle validate` does.
func loadCommitted(t *testing.T) *manifests.Bundle {
	t.Helper()
	b, err := manifests.GetBundleFromDir(committedBundle)
	if err != nil {
		t.Fatalf("loading %s: %v", committedBundle, err)
	}
	return b
}

// cloneBundle returns a copy of b whose CSV, CRDs and objects may be changed.
func cloneBundle(b *manifests.Bundle) *manifests.Bundle {
	c := *b
	c.CSV = b.CSV.DeepCopy()
	c.V1CRDs = nil
	for _, crd := range b.V1CRDs {
		c.V1CRDs = append(c.V1CRDs, crd.DeepCopy())
	}
	c.Objects = nil
	for _, o := range b.Objects {
		c.Objects = append(c.Objects, o.DeepCopy())
	}
	return &c
}

// owned returns the CSV's owned entry for the CRD name and version; it fails the test if there is none.
func owned(t *testing.T, csv *v1alpha1.ClusterServiceVersion, name, version string) *v1alpha1.CRDDescription {
	t.Helper()
	for i, d := range csv.Spec.CustomResourceDefinitions.Owned {
		if d.Name == name && d.Version == version {
			return &csv.Spec.CustomResourceDefinitions.Owned[i]
		}
	}
	t.Fatalf("the CSV owns no %s %s", name, version)
	return nil
}

const cronJobsCRD = "cronjobs.batch.cronjob-operator.dev"

// setExamples replaces the CSV's alm-examples with crs.
func setExamples(t *testing.T, b *manifests.Bundle, crs ...map[string]any) {
	t.Helper()
	var list []*unstructured.Unstructured
	for _, cr := range crs {
		list = append(list, &unstructured.Unstructured{Object: cr})
	}
	ann, err := almExamples(list)
	if err != nil {
		t.Fatal(err)
	}
	b.CSV.Annotations["alm-examples"] = ann
}

// cronJobV1 is an alm-example of CronJob v1 with the spec given.
func cronJobV1(spec map[string]any) map[string]any {
	cr := map[string]any{"apiVersion": "batch.cronjob-operator.dev/v1", "kind": "CronJob", "metadata": map[string]any{"name": "x"}}
	if spec != nil {
		cr["spec"] = spec
	}
	return cr
}

// checkFindings fails the test unless findings hold an error of check containing want, or, with want
// empty, no error and no warning that justifiedWarnings does not accept.
func checkFindings(t *testing.T, findings []finding, check, want string) {
	t.Helper()
	if want == "" {
		for _, f := range findings {
			if f.isError() || f.justified == "" {
				t.Errorf("%s", f)
			}
		}
		return
	}
	for _, f := range findings {
		if f.isError() && strings.HasPrefix(f.check, check) && strings.Contains(f.message, want) {
			return
		}
	}
	t.Errorf("no error of %s containing %q in:\n%v", check, want, findings)
}

func TestBundleValidators(t *testing.T) {
	cases := map[string]struct {
		breakIt func(t *testing.T, b *manifests.Bundle)
		// check and want name the error expected; both empty: none, and no warning but the accepted ones.
		check, want string
	}{
		"as committed": {},
		"a namespace-scoped install mode besides the conversion webhook": {
			breakIt: func(t *testing.T, b *manifests.Bundle) {
				b.CSV.Spec.InstallModes = append(b.CSV.Spec.InstallModes, v1alpha1.InstallMode{Type: v1alpha1.InstallModeTypeOwnNamespace, Supported: true})
			},
			check: "operator-framework csv", want: "only AllNamespaces InstallModeType is supported when conversionCRDs is present",
		},
		"an owned version the bundle's CRD lacks": {
			breakIt: func(t *testing.T, b *manifests.Bundle) {
				owned(t, b.CSV, cronJobsCRD, "v2").Version = "v3"
			},
			check: "operator-framework bundle", want: `owned CRD "batch.cronjob-operator.dev/v3, Kind=CronJob" not found`,
		},
		"a minimum Kubernetes version that is not one": {
			breakIt: func(t *testing.T, b *manifests.Bundle) { b.CSV.Spec.MinKubeVersion = "1.32" },
			check:   "operator-framework operatorhub", want: "csv.Spec.MinKubeVersion has an invalid value",
		},
		"no provider": {
			breakIt: func(t *testing.T, b *manifests.Bundle) { b.CSV.Spec.Provider.Name = "" },
			check:   "operator-framework operatorhub", want: "csv.Spec.Provider.Name not specified",
		},
		"a category OperatorHub does not know": {
			breakIt: func(t *testing.T, b *manifests.Bundle) { b.CSV.Annotations["categories"] = "Cron" },
			check:   "operator-framework categories", want: "Cron",
		},
		"a PodDisruptionBudget that forbids every eviction": {
			breakIt: func(t *testing.T, b *manifests.Bundle) {
				for _, o := range b.Objects {
					if o.GetKind() == "PodDisruptionBudget" {
						unstructured.RemoveNestedField(o.Object, "spec", "minAvailable")
						if err := unstructured.SetNestedField(o.Object, int64(0), "spec", "maxUnavailable"); err != nil {
							t.Fatal(err)
						}
					}
				}
			},
			check: "operator-framework objects", want: "maxUnavailable field cannot be set to 0",
		},
		"an example that is not JSON": {
			breakIt: func(t *testing.T, b *manifests.Bundle) { b.CSV.Annotations["alm-examples"] = "[{" },
			check:   "operator-framework csv", want: "invalid example",
		},
	}
	committed := loadCommitted(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := cloneBundle(committed)
			if tc.breakIt != nil {
				tc.breakIt(t, b)
			}
			checkFindings(t, frameworkFindings(b), tc.check, tc.want)
		})
	}
}

func TestBundleScorecard(t *testing.T) {
	cases := map[string]struct {
		breakIt     func(t *testing.T, b *manifests.Bundle)
		check, want string
	}{
		"as committed": {},
		"basic-check-spec: an example without spec": {
			breakIt: func(t *testing.T, b *manifests.Bundle) { setExamples(t, b, cronJobV1(nil)) },
			check:   basicCheckSpec, want: "CronJob/x (batch.cronjob-operator.dev/v1): no spec",
		},
		"basic-check-spec: an example with an empty spec": {
			breakIt: func(t *testing.T, b *manifests.Bundle) { setExamples(t, b, cronJobV1(map[string]any{})) },
			check:   basicCheckSpec, want: "no spec",
		},
		"olm-crds-have-validation: an example's field the schema lacks": {
			breakIt: func(t *testing.T, b *manifests.Bundle) {
				setExamples(t, b, cronJobV1(map[string]any{"schedule": "@hourly", "cron": "@hourly"}))
			},
			check: olmCRDsHaveValidation, want: "spec.cron is not in the schema of batch.cronjob-operator.dev/v1, Kind=CronJob",
		},
		"olm-crds-have-validation: a CRD version without schema": {
			breakIt: func(t *testing.T, b *manifests.Bundle) { b.V1CRDs[0].Spec.Versions[0].Schema = nil },
			check:   olmCRDsHaveValidation, want: "has no schema",
		},
		"olm-crds-have-resources: an owned CRD without resources": {
			breakIt: func(t *testing.T, b *manifests.Bundle) { owned(t, b.CSV, cronJobsCRD, "v2").Resources = nil },
			check:   olmCRDsHaveResources, want: "owned CRD cronjobs.batch.cronjob-operator.dev v2 lists no resources",
		},
		"olm-spec-descriptors: an example's field without a descriptor": {
			breakIt: func(t *testing.T, b *manifests.Bundle) {
				d := owned(t, b.CSV, cronJobsCRD, "v1")
				d.SpecDescriptors = d.SpecDescriptors[1:] // schedule's
			},
			check: olmSpecDescriptors, want: "spec.schedule has no spec descriptor in cronjobs.batch.cronjob-operator.dev v1",
		},
		"olm-spec-descriptors: an example of a version the CSV does not own": {
			breakIt: func(t *testing.T, b *manifests.Bundle) {
				cr := cronJobV1(map[string]any{"schedule": "@hourly"})
				cr["apiVersion"] = "batch.cronjob-operator.dev/v9"
				setExamples(t, b, cr)
			},
			check: olmSpecDescriptors, want: "the CSV owns no batch.cronjob-operator.dev/v9, Kind=CronJob",
		},
		"olm-status-descriptors: a CRD version with status fields and no status descriptor": {
			breakIt: func(t *testing.T, b *manifests.Bundle) { owned(t, b.CSV, cronJobsCRD, "v2").StatusDescriptors = nil },
			check:   olmStatusDescriptors, want: "owned CRD cronjobs.batch.cronjob-operator.dev v2 has status fields and no status descriptor",
		},
		"olm-status-descriptors: an example with a status and no status descriptor": {
			breakIt: func(t *testing.T, b *manifests.Bundle) {
				owned(t, b.CSV, cronJobsCRD, "v1").StatusDescriptors = nil
				cr := cronJobV1(map[string]any{"schedule": "@hourly"})
				cr["status"] = map[string]any{"consecutiveFailures": int64(1)}
				setExamples(t, b, cr)
			},
			check: olmStatusDescriptors, want: "CronJob/x (batch.cronjob-operator.dev/v1) has a status",
		},
		"descriptor-paths: a spec descriptor of a field the schema lacks": {
			breakIt: func(t *testing.T, b *manifests.Bundle) {
				owned(t, b.CSV, cronJobsCRD, "v2").SpecDescriptors[1].Path = "schedule.kron"
			},
			check: descriptorPathsCheck, want: "spec.schedule.kron is not a field of the schema",
		},
		"descriptor-paths: a status descriptor of a field the schema lacks": {
			breakIt: func(t *testing.T, b *manifests.Bundle) {
				owned(t, b.CSV, "cronjobruns.batch.cronjob-operator.dev", "v1").StatusDescriptors[0].Path = "stage"
			},
			check: descriptorPathsCheck, want: "status.stage is not a field of the schema",
		},
		"descriptor-paths: a field renamed in the CRD": {
			breakIt: func(t *testing.T, b *manifests.Bundle) {
				for _, crd := range b.V1CRDs {
					if crd.Name == "croncalendars.batch.cronjob-operator.dev" {
						spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
						spec.Properties = map[string]apiextensionsv1.JSONSchemaProps{"zone": spec.Properties["timeZone"]}
						crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
					}
				}
			},
			check: descriptorPathsCheck, want: "spec.timeZone is not a field of the schema",
		},
	}
	committed := loadCommitted(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := cloneBundle(committed)
			if tc.breakIt != nil {
				tc.breakIt(t, b)
			}
			checkFindings(t, scorecardFindings(b), tc.check, tc.want)
		})
	}
}

func TestBundleFormat(t *testing.T) {
	cases := map[string]struct {
		// breakIt changes the copy of the bundle in dir.
		breakIt func(t *testing.T, dir string)
		want    string
	}{
		"as committed": {},
		"no channels": {
			breakIt: func(t *testing.T, dir string) {
				editFile(t, filepath.Join(dir, metadataDir, annotationsFile), "channels.v1: stable", "channels.v1: ")
			},
			want: "annotation operators.operatorframework.io.bundle.channels.v1 is missing or empty",
		},
		"another media type": {
			breakIt: func(t *testing.T, dir string) {
				editFile(t, filepath.Join(dir, metadataDir, annotationsFile), "registry+v1", "helm")
			},
			want: `is "helm", want "registry+v1"`,
		},
		"a kind a bundle cannot hold": {
			breakIt: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, manifestsDir, "agent.yaml"), "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n")
			},
			want: "cannot hold a DaemonSet",
		},
		"an object with a namespace": {
			breakIt: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, manifestsDir, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: cronjob-operator-system\n")
			},
			want: "names namespace cronjob-operator-system",
		},
		"a directory in manifests": {
			breakIt: func(t *testing.T, dir string) {
				if err := os.Mkdir(filepath.Join(dir, manifestsDir, "more"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			want: "no directory or hidden file",
		},
		"no CSV": {
			breakIt: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, manifestsDir, csvFile)); err != nil {
					t.Fatal(err)
				}
			},
			want: "holds 0 ClusterServiceVersions",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := committedBundle
			if tc.breakIt != nil {
				dir = t.TempDir()
				if err := os.CopyFS(dir, os.DirFS(committedBundle)); err != nil {
					t.Fatal(err)
				}
				tc.breakIt(t, dir)
			}
			checkFindings(t, formatFindings(dir), "bundle format", tc.want)
		})
	}
}

// TestBundleStandsAside checks the committed CSV against what OLM does to the manager's Deployment (olm.go):
// no volume or mount at OLM's certificate paths or with OLM's volume names, the rotator off, and none of the
// rotator's rules in the CSV's RBAC. The manager's side, that it parses these args into a webhook server
// reading OLM's files and no rotator, is the root package's olm_test.go.
func TestBundleStandsAside(t *testing.T) {
	csv := loadCommitted(t).CSV
	spec := csv.Spec.InstallStrategy.StrategySpec
	if len(spec.DeploymentSpecs) != 1 {
		t.Fatalf("the CSV installs %d Deployments, want the manager's", len(spec.DeploymentSpecs))
	}
	pod := spec.DeploymentSpecs[0].Spec.Template.Spec
	for _, v := range pod.Volumes {
		if slices.Contains(olmCertVolumes, v.Name) {
			t.Errorf("the manager's Pod has volume %s, which OLM replaces with its certificate's", v.Name)
		}
	}
	for _, c := range pod.Containers {
		for _, m := range c.VolumeMounts {
			if m.MountPath == olmWebhookCertDir || m.MountPath == olmAPIServiceCertDir || slices.Contains(olmCertVolumes, m.Name) {
				t.Errorf("container %s mounts %s at %s, where OLM mounts its certificate", c.Name, m.Name, m.MountPath)
			}
		}
		if c.Name != managerContainer {
			continue
		}
		for _, f := range olmFlags {
			name, value, _ := splitFlag(f)
			if got, ok := flagValue(c.Args, name); !ok || got != value {
				t.Errorf("the manager's --%s is %q (given: %v), want %q", name, got, ok, value)
			}
		}
	}
	for _, perms := range [][]v1alpha1.StrategyDeploymentPermissions{spec.Permissions, spec.ClusterPermissions} {
		for _, p := range perms {
			for _, r := range p.Rules {
				for _, res := range r.Resources {
					if isRotatorResource(r.APIGroups, res) {
						t.Errorf("the CSV grants %v on %s %v: the rotator's, which OLM stands in for", r.Verbs, res, r.ResourceNames)
					}
				}
			}
		}
	}
}

// editFile replaces old with repl in the file at path; it fails the test if old is not there.
func editFile(t *testing.T, path, old, repl string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %q", path, old)
	}
	writeFile(t, path, strings.Replace(string(data), old, repl, 1))
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBundleMinKubeVersion: the CSV's minKubeVersion is the operator's one minimum (version.MinKubernetes),
// which the manager enforces at start and the chart's kubeVersion states.
func TestBundleMinKubeVersion(t *testing.T) {
	if got := loadCommitted(t).CSV.Spec.MinKubeVersion; got != opversion.MinKubernetes {
		t.Errorf("the CSV's minKubeVersion is %q, version.MinKubernetes %q: change config/manifests/bases to match", got, opversion.MinKubernetes)
	}
}
