// Package rig runs what `make bench` measures: one envtest control plane (kube-apiserver and etcd) with an
// audit log of the controllers' requests, and the two controllers, ours (bin/manager) and the peer
// (kube-controller-manager --controllers=cronjob), as processes under their own users.
//
// Files: controlplane.go (ControlPlane, its users and audit policy), controllers.go (Rig: how to start a
// controller and speak its CronJob kind), procs.go (Process: a controller's process and its CPU, RSS and
// heap, read from /proc and its metrics), procs_test.go (the /proc readers).
package rig
