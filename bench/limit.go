package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/measure"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
)

// measureLimit is the burst scenario's "limit": the rate at which the control plane creates Jobs for the
// bench itself, with no controller running: n Jobs of the controllers' Job template, created by
// `parallelism` workers at once (ours' --max-concurrent-reconciles, so the comparison is with the same
// number of requests in flight), from the first create to the bench's watch seeing the last Job. No
// status write, no event, no cache: what a controller that only created Jobs could reach.
func (b *bench) measureLimit(ctx context.Context, rep, n, parallelism int) (float64, error) {
	ns, err := b.namespace(ctx, phase{scenario: "limit", controller: "bench", repetition: rep})
	if err != nil {
		return 0, err
	}
	defer func() {
		if err := b.rigs[results.Ours].DeleteAll(context.WithoutCancel(ctx), b.c, ns); err != nil {
			b.logf("cleanup: %v", err)
		}
	}()
	template := b.rigs[results.Ours].NewCronJob(ns, "limit", "* * * * *").(*cronjobv1.CronJob).Spec.JobTemplate
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	start := time.Now()
	for range parallelism {
		wg.Go(func() {
			for i := range work {
				job := &batchv1.Job{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("limit-%05d", i), Namespace: ns,
						Labels: template.Labels, Annotations: template.Annotations},
					Spec: *template.Spec.DeepCopy(),
				}
				if err := b.c.Create(ctx, job); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("creating Job %s: %w", job.Name, err)
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	deadline := time.Now().Add(time.Minute)
	for {
		jobs := b.watch.JobsIn(ns)
		if len(jobs) >= n {
			last := start
			for _, j := range jobs {
				last = later(last, j.Seen)
			}
			rate := float64(n) / last.Sub(start).Seconds()
			b.logf("limit #%d: the bench alone created %d Jobs with %d in flight in %s: %.1f per second", rep, n,
				parallelism, last.Sub(start).Round(time.Millisecond), rate)
			return rate, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("limit #%d: the watch saw %d of %d Jobs a minute after they were created", rep, len(jobs), n)
		}
		if err := measure.SleepUntil(ctx, time.Now().Add(100*time.Millisecond)); err != nil {
			return 0, err
		}
	}
}
