package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/measure"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/rig"
	"github.com/cronjob-operator/cronjob-operator/test/oracle"
)

// bench holds what every phase uses: the harness client, the Job watch, the rigs and the timings.
type bench struct {
	c client.Client
	// watch is the one Job watch both controllers are measured with.
	watch *oracle.Oracle
	rigs  map[results.Controller]*rig.Rig
	// settle is the least time between a controller's start (and its CronJobs' creation) and the first
	// scheduled minute measured: the controller's caches sync in it.
	settle time.Duration
	// idleAfter is how long after a due minute the controllers are taken to be idle until the next one.
	idleAfter time.Duration
	// audit is where the phases' requests are read from.
	audit measure.Audit
	logf  func(format string, args ...any)
	// oursArgs are extra flags of ours' manager (-ours-args).
	oursArgs string
	// prof, when set (-profile), captures CPU profiles at the start of each measured window.
	prof *profiler
	// profileSeconds is -profile: seconds of CPU profile per measured window, 0 for none.
	profileSeconds int
}

// cronJobSpec is one CronJob a phase creates.
type cronJobSpec struct{ name, schedule string }

// phase is one controller's part of one repetition of a scenario.
type phase struct {
	scenario   string
	controller results.Controller
	repetition int
	cronJobs   []cronJobSpec
	// minutes is the number of consecutive due minutes measured, from the first one after settling.
	minutes int
	// tail is how long after the last measured minute the observation goes on (< 1 min).
	tail time.Duration
	// throughput asks for RunsPerSecond.
	throughput bool
	// downtime, when set, makes this a restart phase: after one warm-up run the controller is stopped for
	// downtime, then started again, and the runs it missed are measured instead of due minutes.
	downtime time.Duration
	// measureStart asks, after the window, for the controller's start with its CronJobs present
	// (measureStart, Result.Startup).
	measureStart bool
}

func (b *bench) namespace(ctx context.Context, p phase) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: fmt.Sprintf("%s-%s-%d", p.scenario, p.controller, p.repetition),
	}}
	if err := b.c.Create(ctx, ns); err != nil {
		return "", fmt.Errorf("creating namespace %s: %w", ns.Name, err)
	}
	return ns.Name, nil
}

// createParallelism is how many create requests the bench keeps in flight when it creates a phase's
// CronJobs. The creates are bound by the control plane's CPU (kube-apiserver and etcd, and the controller
// writing a Ready condition on each new CronJob, share the machine's cores): more requests in flight only
// queue in the API server.
const createParallelism = 16

// createCronJobs creates the phase's CronJobs with createParallelism requests in flight and returns their
// schedules by UID (the owner of their Jobs). A large population logs its progress every 10,000.
func (b *bench) createCronJobs(ctx context.Context, r *rig.Rig, ns string, specs []cronJobSpec) (map[types.UID]cron.Schedule, error) {
	out := make(map[types.UID]cron.Schedule, len(specs))
	var mu sync.Mutex
	var firstErr error
	work := make(chan cronJobSpec)
	var wg sync.WaitGroup
	start := time.Now()
	for range createParallelism {
		wg.Go(func() {
			for s := range work {
				// Both controllers run their CronJobs in Etc/UTC; so does the bench's own count of due runs,
				// whatever the machine's local time zone.
				sched, err := cron.ParseStandard("CRON_TZ=Etc/UTC " + s.schedule)
				obj := r.NewCronJob(ns, s.name, s.schedule)
				if err == nil {
					err = b.c.Create(ctx, obj)
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("creating CronJob %s/%s: %w", ns, s.name, err)
				}
				if err == nil {
					out[obj.GetUID()] = sched
					if n := len(out); n%10000 == 0 {
						b.logf("%s: %d of %d CronJobs created in %s", ns, n, len(specs), time.Since(start).Round(time.Second))
					}
				}
				mu.Unlock()
			}
		})
	}
	for _, s := range specs {
		work <- s
	}
	close(work)
	wg.Wait()
	return out, firstErr
}

// run runs one phase and returns its Result.
func (b *bench) run(ctx context.Context, p phase) (results.Result, error) {
	r := b.rigs[p.controller]
	res := results.Result{Controller: p.controller, Repetition: p.repetition}
	ns, err := b.namespace(ctx, p)
	if err != nil {
		return res, err
	}
	defer func() {
		start := time.Now()
		if err := r.DeleteAll(context.WithoutCancel(ctx), b.c, ns); err != nil {
			b.logf("cleanup: %v", err)
			return
		}
		b.logf("%s: its CronJobs and Jobs deleted in %s", ns, time.Since(start).Round(time.Second))
	}()
	proc, err := r.Start(ctx)
	if err != nil {
		return res, err
	}
	defer func() { proc.Stop(10 * time.Second) }()
	cronJobs, err := b.createCronJobs(ctx, r, ns, p.cronJobs)
	if err != nil {
		return res, err
	}
	// The first minute measured is at least settle away, and comes after the controller has gone quiet:
	// ours writes a Ready condition on each new CronJob, which for a large population can outlast settle.
	quiet, err := b.waitQuiet(ctx, proc, quietTimeout(len(cronJobs)))
	if err != nil {
		return res, err
	}
	first := measure.NextMinute(later(time.Now().Add(b.settle), quiet.Add(2*time.Second)))
	if p.downtime > 0 {
		return b.measureRestart(ctx, p, r, ns, cronJobs, proc, first)
	}
	last := first.Add(time.Duration(p.minutes-1) * time.Minute)
	window := measure.Interval{From: first, To: last.Add(p.tail)}
	b.logf("%s/%s #%d: %d CronJobs in %s, measuring %s to %s", p.scenario, p.controller, p.repetition,
		len(cronJobs), ns, first.Format(time.TimeOnly), window.To.Format(time.TimeOnly))

	b.prof.capture(ctx, window.From, fmt.Sprintf("%s-%s-%d", p.scenario, p.controller, p.repetition), proc)
	costs, err := measure.Observe(ctx, proc, window, b.idleAfter, true, nil)
	b.prof.wait()
	if err != nil {
		return res, err
	}
	res.Start, res.End = window.From, window.To
	res.CPUSeconds, res.PeakRSSBytes, res.HeapBytes = costs.CPU, proc.PeakRSS(), costs.Heap
	res.IdleCPUSeconds, res.ControlPlaneCPUSeconds = costs.IdleCPU, costs.ControlPlaneCPU
	res.StateScrapes = costs.StateScrapes
	jobs := b.watch.JobsIn(ns)
	runs := measure.DueRuns(cronJobs, first, last)
	res.Expected = len(runs)
	res.Lost, res.Duplicates = measure.LostAndDuplicates(runs, jobs)
	measured := measure.JobsFor(jobs, cronJobs, first, last)
	for _, j := range measured {
		res.Skews = append(res.Skews, j.Seen.Sub(j.ScheduledAt))
	}
	if p.throughput {
		res.RunsPerSecond = measure.RunsPerSecond(measured)
	}
	if err := b.audit.AddRequests(ctx, &res, p.controller, ns, window, costs.Idle, measured); err != nil {
		return res, err
	}
	if p.measureStart {
		// A start that cannot be observed leaves the phase's other figures standing: it is logged, and the
		// report shows n/a.
		st, err := b.measureStart(ctx, p, r, proc, len(cronJobs))
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil {
			b.logf("%s/%s #%d: time to start not measured: %v", p.scenario, p.controller, p.repetition, err)
		}
		res.Startup = st
	}
	return res, nil
}

// quietTimeout is how long a controller may stay busy after n CronJobs were created: 5 minutes, and 10 ms
// more per CronJob (ours writes a Ready condition on each; at 100 per second, far below what it does here,
// 100,000 of them take under 17 minutes).
func quietTimeout(n int) time.Duration { return 5*time.Minute + time.Duration(n)*10*time.Millisecond }

// waitQuiet waits until proc has used less than 2% of a core over 2 s (its start-up and the CronJobs'
// creation done), for at most timeout, and returns when.
func (b *bench) waitQuiet(ctx context.Context, proc *rig.Process, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	last := proc.CPUSeconds()
	for time.Now().Before(deadline) {
		if err := measure.SleepUntil(ctx, time.Now().Add(2*time.Second)); err != nil {
			return time.Time{}, err
		}
		if err := proc.Exited("after its start"); err != nil {
			return time.Time{}, err
		}
		now := proc.CPUSeconds()
		if now-last < 0.04 {
			return time.Now(), nil
		}
		last = now
	}
	return time.Time{}, fmt.Errorf("%v was still busy %s after its CronJobs were created", proc, timeout)
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
