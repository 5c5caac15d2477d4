package hostile

import (
	"context"
	"fmt"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// workers is the number of concurrent creates of the suite's setup.
const workers = 8

// neverSchedule fires once a year: the CronJobs only manual runs start.
const neverSchedule = "0 0 1 1 *"

// largeJob is tenant A's i-th Job of size bytes (framework.LargeJob).
func largeJob(ns string, i, size int) *batchv1.Job {
	return framework.LargeJob(fmt.Sprintf("large-%04d", i), ns, size)
}

// catchUpCronJob is a minutely CronJob with missedRunPolicy All and maxCatchUpRuns runs that last ran at
// last: started after an outage, it owes runs runs.
func catchUpCronJob(ns string, i, runs int, last time.Time) *cronjobv1.CronJob {
	return builders.MakeCronJob(fmt.Sprintf("catchup-%04d", i), ns).Schedule("* * * * *").
		CatchUp(int32(runs)).LastScheduleTime(last).Obj()
}

// blockedCronJob creates a Forbid CronJob that only manual runs start and a Job of it that never ends
// (no status: to the controller, active), so every run of it that honours the policy waits.
func blockedCronJob(ctx context.Context, c client.Client, ns string, scheduled time.Time) (*cronjobv1.CronJob, error) {
	cj := builders.MakeCronJob("forbid", ns).Schedule(neverSchedule).Forbid().Obj()
	if err := framework.CreateCronJob(ctx, c, cj); err != nil {
		return nil, err
	}
	job := builders.MakeJob("forbid-active", ns).OwnedBy(cj).ScheduledAt(scheduled).Obj()
	return cj, framework.CreateJob(ctx, c, job)
}

// waitingRun is a CronJobRun of cronJob that honours its concurrency policy.
func waitingRun(ns, cronJob string) *cronjobv1.CronJobRun {
	return builders.MakeCronJobRun("", ns, cronJob).GenerateName("wait-").Obj()
}

// createAll creates the n objects that object(i) returns, workers at a time. It returns the first error.
func createAll[T client.Object](ctx context.Context, c client.Client, n int, object func(i int) T) error {
	return parallel(ctx, n, func(ctx context.Context, i int) error {
		obj := object(i)
		var err error
		switch o := any(obj).(type) {
		case *cronjobv1.CronJob:
			err = framework.CreateCronJob(ctx, c, o)
		default:
			err = c.Create(ctx, obj)
		}
		if err != nil {
			return fmt.Errorf("creating %T %d of %d: %w", obj, i+1, n, err)
		}
		return nil
	})
}

// parallel calls do(ctx, i) for i in [0, n), workers at a time, and returns the first error; after one,
// the calls not yet started are not made.
func parallel(ctx context.Context, n int, do func(context.Context, int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := do(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}
