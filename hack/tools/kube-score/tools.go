//go:build tools

// Package tools pins kube-score (github.com/zegl/kube-score), which make kube-score builds from this module
// into bin/ and runs on the rendered manifests of config/default.
package tools

import _ "github.com/zegl/kube-score/cmd/kube-score"
