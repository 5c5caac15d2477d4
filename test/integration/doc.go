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
package integration
