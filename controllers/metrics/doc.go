// Package metrics is what the controllers export to Prometheus: the counters of runs started, missed and
// deleted Jobs and the start skew histogram on controller-runtime's registry (/metrics), with no
// per-CronJob label, and the per-CronJob state on StatePath, written from the informer's store while the
// replica leads, as kube-state-metrics writes its own.
package metrics
