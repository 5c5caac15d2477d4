package main

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/version"
)

func TestSupportedKubernetes(t *testing.T) {
	for _, tc := range []struct {
		gitVersion string
		wantErr    string
	}{
		{"v1.32.0", ""},
		{"v1.37.2", ""},
		{"v1.32.4-eks-4096722", ""},
		{"v1.33.1-gke.1000", ""},
		{"v1.31.9", "runs Kubernetes v1.31.9, cronjob-operator needs 1.32.0 or newer"},
		{"v1.30.0-eks-1", "needs 1.32.0 or newer"},
		{"not-a-version", "cannot be read"},
	} {
		err := supportedKubernetes(&version.Info{GitVersion: tc.gitVersion})
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v, want nil", tc.gitVersion, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: %v, want an error with %q", tc.gitVersion, err, tc.wantErr)
		}
	}
}
