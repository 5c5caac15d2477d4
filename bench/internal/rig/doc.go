// Package rig runs what `make bench` measures: one envtest control plane (kube-apiserver and etcd) with an
// audit log of the controllers' requests, and the two controllers, ours (bin/manager) and the peer
// (kube-controller-manager --controllers=cronjob), as processes under their own users.
//
// Files: controlplane.go (ControlPlane, its users and audit policy), controllers.go (Rig: how to start a
// controller, speak its CronJob kind and delete what a phase created), procs.go (Process: a controller's
// process and its CPU and RSS, read from /proc), scrape.go (scraping a metrics endpoint, timed and sized;
// the Go heap), tls.go (the certificate the peer serves its metrics with), and their tests.
package rig
