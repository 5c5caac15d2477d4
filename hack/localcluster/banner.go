//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cronjob-operator/cronjob-operator/test/cluster"
)

// printBanner tells the user how to reach the local control plane.
func printBanner(o options) {
	kubectl := filepath.Join(o.assets, "kubectl")
	if dir, ok := os.LookupEnv("KUBEBUILDER_ASSETS"); ok {
		kubectl = filepath.Join(dir, "kubectl")
	}
	k := kubectl + " --kubeconfig " + o.kubeconfig
	lines := []string{
		"cronjob-operator is running against a local control plane: kube-apiserver and etcd, kube-controller-manager",
		"(Job, garbage collector, TTL after finished), kube-scheduler and a simulated node (KWOK, " + cluster.NodeName + ").",
		"Jobs run: their Pods go Running, then Succeeded or Failed, as the samples' annotations ask.",
		"",
		"Watch the samples of " + o.samples + " (each minute, within three minutes of now):",
		"  " + k + " get cronjobs.batch.cronjob-operator.dev,jobs,pods -w",
		"  hello          a Job succeeds a minute; the one before it is pruned (successfulJobsHistoryLimit 1)",
		"  hello-fails    a Job fails a minute; status.lastFailureTime moves (below), the last failed Job stays,",
		"                 and the condition Ready stays True",
		"  hello-replace  its 90 s Jobs are replaced each minute; the old Job's Pod is deleted with it",
		"  " + k + " get events --sort-by=.lastTimestamp",
		"  " + k + ` get cjo hello-fails -o jsonpath='{.status.lastFailureTime} Ready={.status.conditions[?(@.type=="Ready")].status}{"\n"}'`,
		"",
		"Component logs: " + o.logs + ". Press Ctrl-C to stop everything.",
	}
	rule := strings.Repeat("=", 100)
	fmt.Fprintf(os.Stderr, "\n%s\n%s\n%s\n\n", rule, strings.Join(lines, "\n"), rule)
}
