//go:build tools

// Package tools pins helm, built from the Go module proxy into bin/ by `make helm` for `make helm-lint`
// and the chart e2e spec. Its own module keeps helm's dependencies out of the operator's go.mod.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
