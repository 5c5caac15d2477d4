// Package report writes a `make bench` run to its results directory: results.json, report.md (tables of
// each scenario's figures, ours next to the peer, against the targets) and skew.png (the skew
// distributions).
//
// Files: report.go (Write, and the Markdown report with its figures and targets), aggregate.go (folding a
// controller's Results over the repetitions), chart.go (the skew chart), report_test.go (the report, the
// chart and the results directory of a fixed run).
package report
