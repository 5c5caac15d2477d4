package measure

import (
	"context"
	"fmt"
	"time"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/rig"
)

// StartWatch follows a controller's start, with its CronJobs present, through samples of its CronJob
// workqueue's metrics.
type StartWatch struct {
	// CronJobs is how many CronJobs the controller has (at least 1): its initial list adds each to the queue.
	CronJobs int
	// CachesSynced is the time from the start to the first sample in which the queue had handed an item to
	// a worker (Gets > 0): a controller starts its workers once its caches have synced, and by then its
	// initial list has queued the CronJobs. 0 until seen.
	CachesSynced time.Duration
	// Reconciled is the time to the first sample in which the queue had had at least CronJobs adds and was
	// empty (Depth 0): every CronJob of the initial list had been handed to a worker. 0 until seen.
	Reconciled time.Duration
}

// Observe folds s, sampled elapsed after the start, into w and reports whether the start is done
// (Reconciled seen); samples after that change nothing.
func (w *StartWatch) Observe(elapsed time.Duration, s QueueSample) bool {
	if w.Reconciled > 0 {
		return true
	}
	if w.CachesSynced == 0 && s.Gets > 0 {
		w.CachesSynced = elapsed
	}
	if w.CachesSynced > 0 && s.Adds >= float64(w.CronJobs) && s.Depth == 0 {
		w.Reconciled = elapsed
	}
	return w.Reconciled > 0
}

// ObserveStart scrapes the metrics of proc, a controller just started with its n CronJobs present
// (rig.Rig.StartServingMetrics), every `every` until its CronJob workqueue shows the start done
// (StartWatch), and returns the start's figures: the times from proc.Started to the sample that showed
// each step (a sample is dated when its response arrived, so a time is late by up to `every` plus a
// scrape), and the process's CPU seconds and peak RSS when the last was seen. Scrapes that fail while the
// process comes up are retried. Errors: proc exited, ctx ended, a response did not parse, or the start
// was not done timeout after proc.Started (the error says what the queue showed last).
func ObserveStart(ctx context.Context, proc *rig.Process, n int, every, timeout time.Duration) (results.Startup, error) {
	w := StartWatch{CronJobs: n}
	deadline := proc.Started.Add(timeout)
	var (
		last    QueueSample
		lastErr error
		seen    bool
	)
	for tick := proc.Started; ; {
		if err := proc.Exited("in its start"); err != nil {
			return results.Startup{}, err
		}
		s, err := proc.ScrapeMetrics(ctx)
		at := time.Now()
		if err == nil {
			q, found, err := ParseQueue(s.Body, proc.QueueName())
			if err != nil {
				return results.Startup{}, fmt.Errorf("the metrics of %v: %w", proc, err)
			}
			if found {
				seen, last = true, q
				if w.Observe(at.Sub(proc.Started), q) {
					return results.Startup{CronJobs: n, CachesSynced: w.CachesSynced, Reconciled: w.Reconciled,
						CPUSeconds: proc.CPUSeconds(), PeakRSSBytes: proc.PeakRSS()}, nil
				}
			}
		} else {
			lastErr = err
		}
		if at.After(deadline) {
			if !seen {
				return results.Startup{}, fmt.Errorf("%v showed no workqueue %q in %s (last scrape error: %v)", proc, proc.QueueName(), timeout, lastErr)
			}
			return results.Startup{}, fmt.Errorf("%v had not started %d CronJobs in %s: its workqueue %q showed %.0f adds, depth %.0f, %.0f handed to workers",
				proc, n, timeout, proc.QueueName(), last.Adds, last.Depth, last.Gets)
		}
		for !tick.After(at) {
			tick = tick.Add(every)
		}
		if err := SleepUntil(ctx, tick); err != nil {
			return results.Startup{}, err
		}
	}
}
