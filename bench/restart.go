package main

import (
	"context"
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/measure"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/rig"
)

// measureRestart runs the rest of a restart phase: one warm-up run at first, then the controller is
// stopped (SIGTERM) for p.downtime and started again. Measured: for each CronJob, the Job of the most recent
// run missed while the controller was down (the one both controllers start; older missed runs are
// skipped by both), from the restart: Skews hold observed-minus-restart, CatchUp the largest.
func (b *bench) measureRestart(ctx context.Context, p phase, r *rig.Rig, ns string, cronJobs map[types.UID]cron.Schedule, proc *rig.Process, first time.Time) (results.Result, error) {
	res := results.Result{Controller: p.controller, Repetition: p.repetition}
	b.logf("%s/%s #%d: %d CronJobs in %s, warm-up run at %s, then %s down", p.scenario, p.controller, p.repetition,
		len(cronJobs), ns, first.Format(time.TimeOnly), p.downtime)
	if err := measure.SleepUntil(ctx, first.Add(20*time.Second)); err != nil {
		return res, err
	}
	proc.Stop(10 * time.Second)
	// Restart between :15 and :30 of a minute, so the window below (to :58) leaves the catch-up time.
	restartAt := time.Now().Add(p.downtime)
	if s := restartAt.Sub(restartAt.Truncate(time.Minute)); s > 30*time.Second {
		restartAt = measure.NextMinute(restartAt).Add(20 * time.Second)
	} else if s < 15*time.Second {
		restartAt = restartAt.Truncate(time.Minute).Add(20 * time.Second)
	}
	if err := measure.SleepUntil(ctx, restartAt); err != nil {
		return res, err
	}
	restart := time.Now()
	// The new process's CPU counts from 0; the control plane's from before the restart, so both
	// controllers' start-up (cache sync included) is counted alike.
	base := &measure.Baseline{ControlPlane: measure.ControlPlaneCPUSeconds()}
	proc2, err := r.Start(ctx)
	if err != nil {
		return res, err
	}
	defer proc2.Stop(10 * time.Second)
	missed := restart.Truncate(time.Minute)
	window := measure.Interval{From: restart, To: missed.Add(58 * time.Second)}
	b.prof.capture(ctx, restart, fmt.Sprintf("%s-%s-%d", p.scenario, p.controller, p.repetition), proc2)
	costs, err := measure.Observe(ctx, proc2, window, b.idleAfter, false, base)
	b.prof.wait()
	if err != nil {
		return res, err
	}
	res.Start, res.End = window.From, window.To
	res.CPUSeconds, res.PeakRSSBytes, res.HeapBytes = costs.CPU, proc2.PeakRSS(), costs.Heap
	res.ControlPlaneCPUSeconds = costs.ControlPlaneCPU
	jobs := b.watch.JobsIn(ns)
	due := measure.DueRuns(cronJobs, missed, missed)
	res.Expected = len(due)
	res.Lost, _ = measure.LostAndDuplicates(due, jobs)
	_, res.Duplicates = measure.LostAndDuplicates(measure.DueRuns(cronJobs, first, missed), jobs)
	caughtUp := measure.JobsFor(jobs, cronJobs, missed, missed)
	for _, j := range caughtUp {
		d := j.Seen.Sub(restart)
		res.Skews = append(res.Skews, d)
		res.CatchUp = max(res.CatchUp, d)
	}
	b.logf("%s/%s #%d: restarted at %s, %d of %d missed runs started, the last after %s", p.scenario, p.controller,
		p.repetition, restart.Format(time.TimeOnly), len(caughtUp), res.Expected, res.CatchUp.Round(time.Millisecond))
	err = b.audit.AddRequests(ctx, &res, p.controller, ns, window, nil, caughtUp)
	// Measured from the restart too, like Skews: the scheduled time is minutes before it.
	for i := range res.CreateSkews {
		res.CreateSkews[i] -= restart.Sub(missed)
	}
	return res, err
}
