//go:build unix

// Command localcluster runs the operator against a throwaway control plane, for `make run` without
// KUBECONFIG (through hack/run-local.sh).
//
// It starts kube-apiserver and etcd with envtest (from bin/k8s/, built by `make envtest-assets`) and installs
// the CRDs of config/crd/bases, writes an admin kubeconfig to bin/local/kubeconfig, creates the objects of
// config/samples/ and runs bin/manager against that control plane, forwarding its output. There are no nodes
// and no kube-controller-manager: Jobs are created but never run Pods, and owner references are not
// garbage-collected.
//
// On SIGINT, SIGTERM or SIGHUP it stops the manager (SIGTERM to its process group; SIGKILL after -stop-timeout
// or on a second signal), then the control plane, removes the kubeconfig and exits 0. When the manager exits
// by itself, it tears down the same way and exits with the manager's exit code. The manager runs in a process
// group of its own, so that Ctrl-C in a terminal reaches only localcluster, which stops things in order; on
// Linux the kernel also kills the manager if localcluster dies. kube-apiserver and etcd (own process groups,
// set by envtest) are stopped only by that orderly teardown: after a SIGKILL of localcluster they are left
// running and must be killed by hand.
//
// Files: main.go (flags, the control plane, signals and teardown), manager.go (the manager process and
// its health check), samples.go (the admin kubeconfig and the objects of config/samples), banner.go (how to reach
// the control plane), sysproc_linux.go and sysproc_unix.go (the manager's process group, and on Linux its
// death with localcluster).
//
// Usage:
//
//	localcluster [flags] [-- manager flags...]
package main
