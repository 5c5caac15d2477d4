// Package integration holds the envtest integration specs of the CronJob controller: a real API server
// (with the CRD and its validation), the controller wired as in main.go, and a fake clock the specs move,
// but no kube-controller-manager (no Job controller, no garbage collector), so specs mark Jobs finished
// themselves.
//
// Run them with KUBEBUILDER_ASSETS pointing at kube-apiserver and etcd (or after `make envtest-assets`):
//
//	go test ./test/integration/...
//
// Ginkgo refuses `go test -count=N` for N > 1; to repeat the suite, run go test again (or the ginkgo CLI's
// -repeat). Every spec starts its own manager, on its own fake clock, in its own namespace.
//
// Files: suite_test.go (the suite, its control plane and the helpers every spec uses), cronjob_test.go
// (scheduling, Forbid, history limits, schedule validation), policies_test.go (the concurrency policies
// and a time zone edit over many ticks), timetravel_test.go (downtime and no surprise runs), edits_test.go
// (edits made while the controller is down take effect at the API server's record of them), once_test.go
// (a Warning once per cause, a blocked run tried once), admission_test.go (the CRD schema, CEL rules and
// webhooks against the fixtures), recovery_test.go (a lost status write), failover_test.go (leader
// election handovers and kills), outage_test.go (a kube-apiserver outage), steady_test.go (what a run
// costs in reconciles and writes).
package integration
