package measure

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/rig"
	"github.com/cronjob-operator/cronjob-operator/test/oracle"
)

// Costs is what a controller process spent in a window.
type Costs struct {
	// CPU is the process's CPU seconds in the window, IdleCPU those spent in the Idle spans.
	CPU, IdleCPU float64
	// ControlPlaneCPU is what kube-apiserver and etcd spent in the window.
	ControlPlaneCPU float64
	// Heap is the largest Go heap in use sampled (ours only).
	Heap int64
	// StateScrapes are the scrapes of ours' /metrics/state, one before each heap sample.
	StateScrapes []results.Scrape
	// Idle are the spans in which no run was due.
	Idle []Interval
}

// controlPlaneProcesses are the command names of envtest's control plane.
var controlPlaneProcesses = []string{"kube-apiserver", "etcd"}

// ControlPlaneCPUSeconds returns the CPU seconds kube-apiserver and etcd have used so far.
func ControlPlaneCPUSeconds() float64 { return rig.ChildCPUSeconds(controlPlaneProcesses...) }

// SleepUntil waits for the wall clock to reach t. The bench measures a real controller against real time,
// so waiting for an instant is what it is for; it never waits for an outcome this way.
func SleepUntil(ctx context.Context, t time.Time) error {
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

// Baseline is the CPU seconds of the controller and of the control plane a measurement counts from.
type Baseline struct {
	// ControlPlane is the CPU seconds of kube-apiserver and etcd.
	ControlPlane float64
	// cpu is the controller's; a Baseline made outside Observe counts the controller from 0.
	cpu float64
}

// Observe waits through window while sampling proc's CPU time, and with idle, its CPU time in each idle
// span: from idleAfter past a whole minute to 1 s before the next (or the window's end). CPU counts from
// base, or when base is nil from the window's start. It fails as soon as proc has exited.
func Observe(ctx context.Context, proc *rig.Process, window Interval, idleAfter time.Duration, idle bool, base *Baseline) (Costs, error) {
	var c Costs
	if err := SleepUntil(ctx, window.From); err != nil {
		return c, err
	}
	if base == nil {
		base = &Baseline{cpu: proc.CPUSeconds(), ControlPlane: ControlPlaneCPUSeconds()}
	}
	// A sample scrapes both of ours' endpoints, as a Prometheus would: the state first, so that the heap
	// read after it holds what rendering the state left. A failed state scrape fails the measurement.
	var stateErr error
	sampleHeap := func() {
		if proc.MetricsURL == "" {
			return
		}
		if proc.StateMetricsURL != "" {
			s, err := rig.Scrape(ctx, proc.StateMetricsURL)
			if err != nil && stateErr == nil {
				stateErr = err
			}
			if err == nil {
				c.StateScrapes = append(c.StateScrapes, results.Scrape{Duration: s.Duration, WireBytes: s.WireBytes})
			}
		}
		if h, err := rig.HeapInUse(ctx, proc.MetricsURL); err == nil && h > c.Heap {
			c.Heap = h
		}
	}
	for m := window.From; idle && m.Before(window.To); m = m.Add(time.Minute) {
		span := Interval{m.Add(idleAfter), m.Add(time.Minute - time.Second)}
		if span.To.After(window.To) {
			span.To = window.To
		}
		if !span.From.Before(span.To) {
			continue
		}
		if err := SleepUntil(ctx, span.From); err != nil {
			return c, err
		}
		if err := proc.Exited("during the measurement"); err != nil {
			return c, err
		}
		sampleHeap() // just after the minute's runs
		before := proc.CPUSeconds()
		if err := SleepUntil(ctx, span.To); err != nil {
			return c, err
		}
		c.IdleCPU += proc.CPUSeconds() - before
		c.Idle = append(c.Idle, span)
		sampleHeap()
	}
	if err := SleepUntil(ctx, window.To); err != nil {
		return c, err
	}
	if err := proc.Exited("during the measurement"); err != nil {
		return c, err
	}
	c.CPU = proc.CPUSeconds() - base.cpu
	c.ControlPlaneCPU = ControlPlaneCPUSeconds() - base.ControlPlane
	sampleHeap()
	if stateErr != nil {
		return c, fmt.Errorf("scraping the state metrics: %w", stateErr)
	}
	return c, nil
}

// Audit is where the requests of a phase are read from: the API server's audit log, which it may hold in
// its buffer for up to Flush.
type Audit struct {
	Log   string
	Flush time.Duration
}

// AddRequests fills res's request counts from the audit log, once it has been flushed: the requests of
// controller's user received in window, those received in an idle span, and the create-return skew of each
// of jobs.
func (a Audit) AddRequests(ctx context.Context, res *results.Result, controller results.Controller, ns string, window Interval, idle []Interval, jobs []oracle.ObservedJob) error {
	if err := SleepUntil(ctx, time.Now().Add(a.Flush)); err != nil {
		return err
	}
	reqs, err := readAudit(a.Log)
	if err != nil {
		return err
	}
	user := rig.User(controller)
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
		if at, ok := scheduled[r.name]; ok && r.key == results.RequestKey("create", "jobs") && r.namespace == ns && r.code == 201 {
			res.CreateSkews = append(res.CreateSkews, r.completed.Sub(at))
		}
	}
	return nil
}
