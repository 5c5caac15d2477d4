//go:build tools

// Package tools pins kwok (sigs.k8s.io/kwok/cmd/kwok), which hack/envtest-assets.sh builds from this module
// into bin/k8s/ beside kube-controller-manager and kube-scheduler for test/cluster.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
