package cluster

import (
	"testing"
)

// TestStoredVersionOnlyCRDs: the CronJob CRD of config/crd/bases serves v1, its storage version, and not
// v2, which needs the conversion webhook; the single-version CRDs are served as they are.
func TestStoredVersionOnlyCRDs(t *testing.T) {
	crds, err := StoredVersionOnlyCRDs("../../config/crd/bases")
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]map[string]bool{}
	for _, crd := range crds {
		served[crd.Name] = map[string]bool{}
		for _, v := range crd.Spec.Versions {
			served[crd.Name][v.Name] = v.Served
		}
	}
	want := map[string]map[string]bool{
		"cronjobs.batch.cronjob-operator.dev":      {"v1": true, "v2": false},
		"cronjobruns.batch.cronjob-operator.dev":   {"v1": true},
		"croncalendars.batch.cronjob-operator.dev": {"v1": true},
	}
	for name, versions := range want {
		for v, s := range versions {
			if served[name][v] != s {
				t.Errorf("%s %s served = %t, want %t (all: %v)", name, v, served[name][v], s, served)
			}
		}
	}
	if _, err := StoredVersionOnlyCRDs("../../config/crd/no-such-dir"); err == nil {
		t.Error("a missing directory gave no error")
	}
}
