// Package e2e holds the kind e2e and chaos suites of the operator: a real cluster (a kind node built
// offline when no registry answers), the operator deployed from config/e2e, minutely CronJobs in real
// time, and an oracle that records every Job created. The suites are in files with the build tag e2e, so
// `go test ./...` and `make test` skip them; run them with `make e2e` (see README.md).
package e2e
