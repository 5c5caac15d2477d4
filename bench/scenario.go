package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cronjob-operator/cronjob-operator/test/oracle"
)

// bench holds what every phase uses: the harness client, the Job watch, the rigs and the timings.
type bench struct {
	cp *controlPlane
	c  client.Client
	// watch is the one Job watch both controllers are measured with.
	watch *oracle.Oracle
	rigs  map[Controller]*rig
	// settle is the least time between a controller's start (and its CronJobs' creation) and the first
	// scheduled minute measured: the controller's caches sync in it.
	settle time.Duration
	// idleAfter is how long after a due minute the controllers are taken to be idle until the next one.
	idleAfter time.Duration
	// auditFlush is how long the API server may hold audit events in its buffer (audit-log-batch-max-wait
	// is 1 s).
	auditFlush time.Duration
	logf       func(format string, args ...any)
	// oursArgs are extra flags of ours' manager (-ours-args).
	oursArgs string
}

// cronJobSpec is one CronJob a phase creates.
type cronJobSpec struct{ name, schedule string }

// phase is one controller's part of one repetition of a scenario.
type phase struct {
	scenario   string
	controller Controller
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

// createCronJobs creates the phase's CronJobs with 16 parallel requests and returns their schedules by
// UID (the owner of their Jobs).
func (b *bench) createCronJobs(ctx context.Context, r *rig, ns string, specs []cronJobSpec) (map[types.UID]cron.Schedule, error) {
	out := make(map[types.UID]cron.Schedule, len(specs))
	var mu sync.Mutex
	var firstErr error
	work := make(chan cronJobSpec)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for s := range work {
				// Both controllers run their CronJobs in Etc/UTC; so does the bench's own count of due runs,
				// whatever the machine's local time zone.
				sched, err := cron.ParseStandard("CRON_TZ=Etc/UTC " + s.schedule)
				obj := r.newCronJob(ns, s.name, s.schedule)
				if err == nil {
					err = b.c.Create(ctx, obj)
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("creating CronJob %s/%s: %w", ns, s.name, err)
				}
				if err == nil {
					out[obj.GetUID()] = sched
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
func (b *bench) run(ctx context.Context, p phase) (Result, error) {
	r := b.rigs[p.controller]
	res := Result{Controller: p.controller, Repetition: p.repetition}
	ns, err := b.namespace(ctx, p)
	if err != nil {
		return res, err
	}
	defer func() {
		if err := r.deleteAll(context.WithoutCancel(ctx), b.c, ns); err != nil {
			b.logf("cleanup: %v", err)
		}
	}()
	proc, err := r.start(ctx)
	if err != nil {
		return res, err
	}
	defer func() { proc.stop(10 * time.Second) }()
	cronJobs, err := b.createCronJobs(ctx, r, ns, p.cronJobs)
	if err != nil {
		return res, err
	}
	// The first minute measured is at least settle away, and comes after the controller has gone quiet:
	// ours writes a Ready condition on each new CronJob, which for a large population can outlast settle.
	quiet, err := b.waitQuiet(ctx, proc)
	if err != nil {
		return res, err
	}
	first := nextMinute(later(time.Now().Add(b.settle), quiet.Add(2*time.Second)))
	if p.downtime > 0 {
		return b.measureRestart(ctx, p, r, ns, cronJobs, proc, first)
	}
	last := first.Add(time.Duration(p.minutes-1) * time.Minute)
	window := interval{first, last.Add(p.tail)}
	b.logf("%s/%s #%d: %d CronJobs in %s, measuring %s to %s", p.scenario, p.controller, p.repetition,
		len(cronJobs), ns, first.Format(time.TimeOnly), window.to.Format(time.TimeOnly))

	costs, err := b.observe(ctx, proc, window, true, nil)
	if err != nil {
		return res, err
	}
	res.Start, res.End = window.from, window.to
	res.CPUSeconds, res.PeakRSSBytes, res.HeapBytes = costs.cpu, proc.peakRSS(), costs.heap
	res.IdleCPUSeconds, res.ControlPlaneCPUSeconds = costs.idleCPU, costs.controlPlaneCPU
	jobs := b.watch.JobsIn(ns)
	runs := dueRuns(cronJobs, first, last)
	res.Expected = len(runs)
	res.Lost, res.Duplicates = lostAndDuplicates(runs, jobs)
	measured := jobsFor(jobs, cronJobs, first, last)
	for _, j := range measured {
		res.Skews = append(res.Skews, j.Seen.Sub(j.ScheduledAt))
	}
	if p.throughput {
		res.RunsPerSecond = runsPerSecond(measured)
	}
	return res, b.addRequests(ctx, &res, p.controller, ns, window, costs.idle, measured)
}

// waitQuiet waits until proc has used less than 2% of a core over 2 s (its start-up and the CronJobs'
// creation done), for at most 5 minutes, and returns when.
func (b *bench) waitQuiet(ctx context.Context, proc *process) (time.Time, error) {
	deadline := time.Now().Add(5 * time.Minute)
	last := proc.cpuSeconds()
	for time.Now().Before(deadline) {
		if err := sleepUntil(ctx, time.Now().Add(2*time.Second)); err != nil {
			return time.Time{}, err
		}
		if err := proc.exited("after its start"); err != nil {
			return time.Time{}, err
		}
		now := proc.cpuSeconds()
		if now-last < 0.04 {
			return time.Now(), nil
		}
		last = now
	}
	return time.Time{}, fmt.Errorf("%s was still busy 5 minutes after its CronJobs were created (log: %s)", proc.name, proc.log.Name())
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// nextMinute returns the first whole minute at or after t.
func nextMinute(t time.Time) time.Time {
	m := t.Truncate(time.Minute)
	if m.Before(t) {
		m = m.Add(time.Minute)
	}
	return m
}

// run identifies one scheduled run: a CronJob and a scheduled time.
type run struct {
	owner types.UID
	at    time.Time
}

// dueRuns returns every run of cronJobs scheduled in [from, to].
func dueRuns(cronJobs map[types.UID]cron.Schedule, from, to time.Time) []run {
	var out []run
	for uid, sched := range cronJobs {
		for t := sched.Next(from.Add(-time.Nanosecond)); !t.After(to); t = sched.Next(t) {
			out = append(out, run{owner: uid, at: t})
		}
	}
	return out
}

// lostAndDuplicates counts the due runs with no Job, and the Jobs beyond the first of a run.
func lostAndDuplicates(due []run, jobs []oracle.ObservedJob) (lost, duplicates int) {
	count := map[run]int{}
	for _, j := range jobs {
		count[run{owner: j.Owner, at: j.ScheduledAt.UTC()}]++
	}
	for _, d := range due {
		switch n := count[run{owner: d.owner, at: d.at.UTC()}]; {
		case n == 0:
			lost++
		case n > 1:
			duplicates += n - 1
		}
	}
	return lost, duplicates
}

// jobsFor returns the Jobs of cronJobs scheduled in [from, to].
func jobsFor(jobs []oracle.ObservedJob, cronJobs map[types.UID]cron.Schedule, from, to time.Time) []oracle.ObservedJob {
	var out []oracle.ObservedJob
	for _, j := range jobs {
		if _, ok := cronJobs[j.Owner]; ok && !j.ScheduledAt.Before(from) && !j.ScheduledAt.After(to) {
			out = append(out, j)
		}
	}
	return out
}

// runsPerSecond is, averaged over the scheduled minutes, the Jobs of a minute divided by the time from
// that minute to the last of them being observed.
func runsPerSecond(jobs []oracle.ObservedJob) float64 {
	type minute struct {
		n    int
		last time.Time
	}
	byMinute := map[time.Time]*minute{}
	for _, j := range jobs {
		m := byMinute[j.ScheduledAt]
		if m == nil {
			m = &minute{}
			byMinute[j.ScheduledAt] = m
		}
		m.n++
		if j.Seen.After(m.last) {
			m.last = j.Seen
		}
	}
	keys := make([]time.Time, 0, len(byMinute))
	for k := range byMinute {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Before(keys[j]) })
	sum := 0.0
	for _, k := range keys {
		sum += float64(byMinute[k].n) / byMinute[k].last.Sub(k).Seconds()
	}
	if len(keys) == 0 {
		return 0
	}
	return sum / float64(len(keys))
}
