//go:build tools

// Package tools pins krew (sigs.k8s.io/krew), whose validate-krew-manifest and krew commands make
// krew-validate and the tests of hack/pluginrelease build from this module to check the plugin's manifest.
package tools

import (
	_ "sigs.k8s.io/krew/cmd/krew"
	_ "sigs.k8s.io/krew/cmd/validate-krew-manifest"
)
