// Package e2e holds the kind e2e and chaos suites of the operator: a real cluster (a kind node built
// offline when no registry answers), the operator deployed from config/e2e, minutely CronJobs in real
// time, and an oracle that records every Job created. The suites are in files with the build tag e2e, so
// `go test ./...` and `make test` skip them; run them with `make e2e` (see README.md).
//
// Files: suite_test.go (the kind cluster, the operator's deployment, the suite's clients and settings),
// timeouts_test.go (the named waits), helpers_test.go (namespaces, builders of minutely CronJobs, run
// checks against the oracle, the diagnostics dump of a failed spec), conformance_test.go (the built-in
// CronJob's e2e tests), chaos_test.go (manager, leader, Pod and kube-apiserver kills).
package e2e
