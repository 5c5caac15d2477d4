//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// printBanner tells the user how to reach the local control plane.
func printBanner(o options) {
	kubectl := filepath.Join(o.assets, "kubectl")
	if dir, ok := os.LookupEnv("KUBEBUILDER_ASSETS"); ok {
		kubectl = filepath.Join(dir, "kubectl")
	}
	lines := []string{
		"cronjob-operator is running against a local control plane (kube-apiserver + etcd, no nodes).",
		"",
		"  " + kubectl + " --kubeconfig " + o.kubeconfig + " get cronjobs.batch.cronjob-operator.dev,jobs -A",
		"",
		"The samples of " + o.samples + " are created. Jobs are created but never run Pods: there is no",
		"kube-controller-manager, scheduler or kubelet. Press Ctrl-C to stop everything.",
	}
	rule := strings.Repeat("=", 100)
	fmt.Fprintf(os.Stderr, "\n%s\n%s\n%s\n\n", rule, strings.Join(lines, "\n"), rule)
}
