package main

import (
	"context"
	"time"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/measure"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/rig"
)

// startPoll is how often a start's metrics are read: the resolution of its times.
const startPoll = 100 * time.Millisecond

// measureStart measures the start of the phase's controller with its n CronJobs present: at the first
// instant -idle-after (10 s) past a whole minute, when that minute's runs are made, it stops proc and at
// once starts the controller again, serving its metrics (rig.Rig.StartServingMetrics), and follows its
// CronJob workqueue until every CronJob has been reconciled (measure.ObserveStart), for at most
// quietTimeout(n). No run is missed while it is down (well under a minute), so the start has no catch-up
// to do, and none is due until the next minute, 50 s on. The new process is stopped before it returns.
// Errors: ctx ended, the controller did not start, or its start could not be observed.
func (b *bench) measureStart(ctx context.Context, p phase, r *rig.Rig, proc *rig.Process, n int) (*results.Startup, error) {
	if err := measure.SleepUntil(ctx, measure.NextMinute(time.Now().Add(-b.idleAfter)).Add(b.idleAfter)); err != nil {
		return nil, err
	}
	proc.Stop(10 * time.Second)
	proc2, err := r.StartServingMetrics(ctx)
	if err != nil {
		return nil, err
	}
	defer proc2.Stop(10 * time.Second)
	st, err := measure.ObserveStart(ctx, proc2, n, startPoll, quietTimeout(n))
	if err != nil {
		return nil, err
	}
	b.logf("%s/%s #%d: started again with %d CronJobs: caches synced after %s, every CronJob reconciled after %s, %.1f CPU s, peak RSS %.0f MiB",
		p.scenario, p.controller, p.repetition, n, st.CachesSynced.Round(time.Millisecond), st.Reconciled.Round(time.Millisecond),
		st.CPUSeconds, float64(st.PeakRSSBytes)/(1<<20))
	return &st, nil
}
