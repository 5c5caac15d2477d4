// Package ksm tests config/kube-state-metrics with kube-state-metrics' own code (k8s.io/kube-state-metrics/v2,
// pinned in this module's go.mod so that KSM's dependencies stay out of the operator's): the metric lines
// KSM writes for sample CronJobs and CronJobRuns. It has tests only; `make check-ksm` runs them.
package ksm
