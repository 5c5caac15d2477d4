package v2_test

import (
	"os"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
)

// celMessages collects the message of every CEL rule of a schema, once each.
func celMessages(s *apiextensionsv1.JSONSchemaProps, into map[string]bool) {
	if s == nil {
		return
	}
	for _, r := range s.XValidations {
		into[r.Message] = true
	}
	for _, p := range s.Properties {
		celMessages(&p, into)
	}
	if s.Items != nil {
		celMessages(s.Items.Schema, into)
	}
	if s.AdditionalProperties != nil {
		celMessages(s.AdditionalProperties.Schema, into)
	}
}

// TestV2MessagesAreV1sInV2Paths: each CEL rule of the v2 schema refuses with the message of its v1 rule,
// the paths written as v2 names them (V2Paths), so that a user reads the same reason in both versions
// and the admission webhook's messages, which V2Paths rewrites, agree with the schema's.
func TestV2MessagesAreV1sInV2Paths(t *testing.T) {
	raw, err := os.ReadFile("../../config/crd/bases/batch.cronjob-operator.dev_cronjobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]bool{}
	for _, v := range crd.Spec.Versions {
		got[v.Name] = map[string]bool{}
		celMessages(v.Schema.OpenAPIV3Schema, got[v.Name])
	}
	var fromV1, v2 []string
	for m := range got["v1"] {
		fromV1 = append(fromV1, cronjobv2.V2Paths(m))
	}
	for m := range got["v2"] {
		v2 = append(v2, m)
	}
	sort.Strings(fromV1)
	sort.Strings(v2)
	if d := cmp.Diff(fromV1, v2); d != "" {
		t.Errorf("v2's CEL messages are not v1's in v2 paths (-V2Paths(v1) +v2):\n%s", d)
	}
}
