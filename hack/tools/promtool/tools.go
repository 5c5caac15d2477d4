//go:build tools

// Package tools pins promtool (github.com/prometheus/prometheus/cmd/promtool), built from the Go module proxy
// into bin/ by `make promtool`, in a module of its own so that Prometheus' dependencies stay out of the
// operator's go.mod.
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
