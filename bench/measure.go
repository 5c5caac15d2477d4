package main

import (
	"context"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cronjob-operator/cronjob-operator/test/oracle"
)

// costs is what a controller process spent in a window.
type costs struct {
	cpu, idleCPU float64
	// controlPlaneCPU is what kube-apiserver and etcd spent in the window.
	controlPlaneCPU float64
	// heap is the largest Go heap in use sampled (ours only).
	heap int64
	// idle are the spans in which no run was due.
	idle []interval
}

// controlPlaneProcesses are the command names of envtest's control plane.
var controlPlaneProcesses = []string{"kube-apiserver", "etcd"}

// sleepUntil waits for the wall clock to reach t. The bench measures a real controller against real time,
// so waiting for an instant is what it is for; it never waits for an outcome this way.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// baseline is the CPU time of the controller and of the control plane a measurement counts from.
type baseline struct{ cpu, controlPlane float64 }

// observe waits through window while sampling proc's CPU time, and with idle, its CPU time in each idle
// span: from idleAfter past a whole minute to 1 s before the next (or the window's end). CPU counts from
// base, or when base is nil from the window's start. It fails as soon as proc has exited.
func (b *bench) observe(ctx context.Context, proc *process, window interval, idle bool, base *baseline) (costs, error) {
	var c costs
	if err := sleepUntil(ctx, window.from); err != nil {
		return c, err
	}
	if base == nil {
		base = &baseline{cpu: proc.cpuSeconds(), controlPlane: childCPUSeconds(controlPlaneProcesses...)}
	}
	sampleHeap := func() {
		if proc.metricsURL == "" {
			return
		}
		if h, err := heapInUse(ctx, proc.metricsURL); err == nil && h > c.heap {
			c.heap = h
		}
	}
	for m := window.from; idle && m.Before(window.to); m = m.Add(time.Minute) {
		span := interval{m.Add(b.idleAfter), m.Add(time.Minute - time.Second)}
		if span.to.After(window.to) {
			span.to = window.to
		}
		if !span.from.Before(span.to) {
			continue
		}
		if err := sleepUntil(ctx, span.from); err != nil {
			return c, err
		}
		if err := proc.exited("during the measurement"); err != nil {
			return c, err
		}
		sampleHeap() // just after the minute's runs
		before := proc.cpuSeconds()
		if err := sleepUntil(ctx, span.to); err != nil {
			return c, err
		}
		c.idleCPU += proc.cpuSeconds() - before
		c.idle = append(c.idle, span)
		sampleHeap()
	}
	if err := sleepUntil(ctx, window.to); err != nil {
		return c, err
	}
	if err := proc.exited("during the measurement"); err != nil {
		return c, err
	}
	c.cpu = proc.cpuSeconds() - base.cpu
	c.controlPlaneCPU = childCPUSeconds(controlPlaneProcesses...) - base.controlPlane
	sampleHeap()
	return c, nil
}

// addRequests fills res's request counts from the audit log: the requests of controller's user received
// in window, those received in an idle span, and the create-return skew of each of jobs.
func (b *bench) addRequests(ctx context.Context, res *Result, controller Controller, ns string, window interval, idle []interval, jobs []oracle.ObservedJob) error {
	if err := sleepUntil(ctx, time.Now().Add(b.auditFlush)); err != nil {
		return err
	}
	reqs, err := readAudit(b.cp.auditLog)
	if err != nil {
		return err
	}
	user := map[Controller]string{Ours: oursUser, Peer: peerUser}[controller]
	scheduled := map[string]time.Time{}
	for _, j := range jobs {
		scheduled[j.Name] = j.ScheduledAt
	}
	res.Requests = map[string]int{}
	for _, span := range idle {
		res.IdleSeconds += span.seconds()
	}
	for _, r := range reqs {
		if r.user != user || !window.contains(r.received) {
			continue
		}
		res.Requests[r.key]++
		// A watch re-opened by client-go (every 5-10 minutes) is no work the controller chose to do.
		for _, span := range idle {
			if span.contains(r.received) && !strings.HasPrefix(r.key, "watch ") {
				res.IdleRequests++
			}
		}
		if at, ok := scheduled[r.name]; ok && r.key == RequestKey("create", "jobs") && r.namespace == ns && r.code == 201 {
			res.CreateSkews = append(res.CreateSkews, r.completed.Sub(at))
		}
	}
	return nil
}

// measureRestart runs the rest of a restart phase: one warm-up run at first, then the controller is
// stopped (SIGTERM) for p.downtime and started again. Measured: for each CronJob, the Job of the most recent
// run missed while the controller was down (the one both controllers start; older missed runs are
// skipped by both), from the restart: Skews hold observed-minus-restart, CatchUp the largest.
func (b *bench) measureRestart(ctx context.Context, p phase, r *rig, ns string, cronJobs map[types.UID]cron.Schedule, proc *process, first time.Time) (Result, error) {
	res := Result{Controller: p.controller, Repetition: p.repetition}
	b.logf("%s/%s #%d: %d CronJobs in %s, warm-up run at %s, then %s down", p.scenario, p.controller, p.repetition,
		len(cronJobs), ns, first.Format(time.TimeOnly), p.downtime)
	if err := sleepUntil(ctx, first.Add(20*time.Second)); err != nil {
		return res, err
	}
	proc.stop(10 * time.Second)
	// Restart between :15 and :30 of a minute, so the window below (to :58) leaves the catch-up time.
	restartAt := time.Now().Add(p.downtime)
	if s := restartAt.Sub(restartAt.Truncate(time.Minute)); s > 30*time.Second {
		restartAt = nextMinute(restartAt).Add(20 * time.Second)
	} else if s < 15*time.Second {
		restartAt = restartAt.Truncate(time.Minute).Add(20 * time.Second)
	}
	if err := sleepUntil(ctx, restartAt); err != nil {
		return res, err
	}
	restart := time.Now()
	// The new process's CPU counts from 0; the control plane's from before the restart, so both
	// controllers' start-up (cache sync included) is counted alike.
	base := &baseline{controlPlane: childCPUSeconds(controlPlaneProcesses...)}
	proc2, err := r.start(ctx)
	if err != nil {
		return res, err
	}
	defer proc2.stop(10 * time.Second)
	missed := restart.Truncate(time.Minute)
	window := interval{restart, missed.Add(58 * time.Second)}
	costs, err := b.observe(ctx, proc2, window, false, base)
	if err != nil {
		return res, err
	}
	res.Start, res.End = window.from, window.to
	res.CPUSeconds, res.PeakRSSBytes, res.HeapBytes = costs.cpu, proc2.peakRSS(), costs.heap
	res.ControlPlaneCPUSeconds = costs.controlPlaneCPU
	jobs := b.watch.JobsIn(ns)
	due := dueRuns(cronJobs, missed, missed)
	res.Expected = len(due)
	res.Lost, _ = lostAndDuplicates(due, jobs)
	_, res.Duplicates = lostAndDuplicates(dueRuns(cronJobs, first, missed), jobs)
	caughtUp := jobsFor(jobs, cronJobs, missed, missed)
	for _, j := range caughtUp {
		d := j.Seen.Sub(restart)
		res.Skews = append(res.Skews, d)
		res.CatchUp = max(res.CatchUp, d)
	}
	b.logf("%s/%s #%d: restarted at %s, %d of %d missed runs started, the last after %s", p.scenario, p.controller,
		p.repetition, restart.Format(time.TimeOnly), len(caughtUp), res.Expected, res.CatchUp.Round(time.Millisecond))
	err = b.addRequests(ctx, &res, p.controller, ns, window, nil, caughtUp)
	// Measured from the restart too, like Skews: the scheduled time is minutes before it.
	for i := range res.CreateSkews {
		res.CreateSkews[i] -= restart.Sub(missed)
	}
	return res, err
}
