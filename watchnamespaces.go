package main

import "strings"

// splitNamespaces returns the namespaces of the comma-separated list s (--watch-namespaces), without
// blanks around them, empty entries or repeats, in the order given. An empty or blank s gives nil: all
// namespaces.
func splitNamespaces(s string) []string {
	var out []string
	seen := map[string]bool{}
	for ns := range strings.SplitSeq(s, ",") {
		ns = strings.TrimSpace(ns)
		if ns == "" || seen[ns] {
			continue
		}
		seen[ns] = true
		out = append(out, ns)
	}
	return out
}
