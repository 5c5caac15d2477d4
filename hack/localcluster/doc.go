//go:build unix

// Command localcluster runs the operator against a throwaway control plane, for `make run` without
// KUBECONFIG (through hack/run-local.sh).
//
// It starts kube-apiserver and etcd with envtest (from bin/k8s/, built by `make lifecycle-assets`) and installs
// the CRDs of config/crd/bases, writes an admin kubeconfig to bin/local/kubeconfig, starts what makes Jobs run
// (test/cluster: kube-controller-manager with the Job, garbage-collector, TTL-after-finished, Pod GC and
// namespace controllers, kube-scheduler, and a node simulated by KWOK whose Pods run and end as their
// annotations ask; their logs in bin/local/logs), creates the objects of config/samples/ and runs bin/manager
// against that control plane, forwarding its output.
//
// On SIGINT, SIGTERM or SIGHUP it stops the manager (SIGTERM to its process group; SIGKILL after -stop-timeout
// or on a second signal), then kwok, kube-scheduler and kube-controller-manager, then the control plane,
// removes the kubeconfig and exits 0. When the manager or a component exits by itself, it tears down the same
// way and exits with the manager's exit code (1 for a component). Each child runs in a process group of its
// own, so that Ctrl-C in a terminal reaches only localcluster, which stops things in order; on Linux the
// kernel also kills the manager and the components if localcluster dies. kube-apiserver and etcd (own
// process groups, set by envtest) are stopped only by that orderly teardown: after a SIGKILL of localcluster
// they are left running and must be killed by hand.
//
// Files: main.go (flags, the control plane, signals and teardown), ready.go (the manager's health check),
// samples.go (the admin kubeconfig and the objects of config/samples), banner.go (how to reach the control
// plane and what the samples show).
//
// Usage:
//
//	localcluster [flags] [-- manager flags...]
package main
