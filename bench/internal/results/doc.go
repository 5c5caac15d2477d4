// Package results is the data model of a `make bench` run: the machine, the versions and settings, and
// per scenario each controller's Result, as results.json stores them so that a report can be rendered
// again without running anything.
//
// Files: results.go (the types, request keys and Percentile), results_test.go (Percentile).
package results
