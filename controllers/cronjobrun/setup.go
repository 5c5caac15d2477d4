package cronjobrun

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/clocks"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/index"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
)

// SetupWithManager wires the reconciler into mgr as the controller controllerName, with the watches:
//   - the CronJobRuns themselves, and each run's changes for the waiting runs of the same CronJob (an older
//     run that starts frees the turn of the next);
//   - Jobs: the run a Job belongs to (CronJobRunAnnotation, or status.jobName for a Job a backfill
//     reported), and the waiting runs of the Job's CronJob (a Job that finishes frees a slot);
//   - CronJobs: their waiting runs (a policy change, or a CronJob deleted).
//
// It reconciles one run at a time, so that two waiting runs never take the same free slot. With a fake
// clock its workqueue runs on that clock, as the CronJob controller's does. The field index of runs by
// CronJob (package index) must be registered.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	m := runMapper{c: mgr.GetClient()}
	copts := controller.Options{MaxConcurrentReconciles: 1, SkipNameValidation: ptr.To(true)}
	if ticker, ok := r.Clock.(clock.WithTicker); ok && !clocks.IsReal(r.Clock) {
		copts.NewQueue = func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(rl,
				workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name, Clock: ticker})
		}
	}
	err := ctrl.NewControllerManagedBy(mgr).
		Named(controllerName).
		For(&cronjobv1.CronJobRun{}).
		Watches(&cronjobv1.CronJobRun{}, handler.EnqueueRequestsFromMapFunc(m.runsWaitingBeside)).
		Watches(&batchv1.Job{}, handler.EnqueueRequestsFromMapFunc(m.runsOfJob)).
		Watches(&cronjobv1.CronJob{}, handler.EnqueueRequestsFromMapFunc(m.runsOfCronJob)).
		WithOptions(copts).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up the cronjobrun controller: %w", err)
	}
	return nil
}

// runMapper maps events of related objects to the CronJobRuns to reconcile, from the cache.
type runMapper struct {
	c client.Reader
}

// runsWaitingBeside returns the waiting runs of the run's CronJob.
func (m runMapper) runsWaitingBeside(ctx context.Context, obj client.Object) []reconcile.Request {
	run := obj.(*cronjobv1.CronJobRun)
	return m.runs(ctx, run.Namespace, run.Spec.CronJobName, func(o *cronjobv1.CronJobRun) bool {
		return o.UID != run.UID && waiting(o)
	})
}

// runsOfJob returns the run a Job belongs to, and the waiting runs of the Job's CronJob.
func (m runMapper) runsOfJob(ctx context.Context, obj client.Object) []reconcile.Request {
	var reqs []reconcile.Request
	if name := obj.GetAnnotations()[cronjobv1.CronJobRunAnnotation]; name != "" {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}})
	}
	cronJob, ok := jobs.ControllingCronJob(obj)
	if !ok {
		return reqs
	}
	return append(reqs, m.runs(ctx, obj.GetNamespace(), cronJob, func(o *cronjobv1.CronJobRun) bool {
		return waiting(o) || o.Status.JobName == obj.GetName()
	})...)
}

// runsOfCronJob returns the runs of the CronJob that have not started yet.
func (m runMapper) runsOfCronJob(ctx context.Context, obj client.Object) []reconcile.Request {
	return m.runs(ctx, obj.GetNamespace(), obj.GetName(), waiting)
}

// runs lists the runs of a CronJob that pass keep, as requests.
func (m runMapper) runs(ctx context.Context, ns, cronJob string, keep func(*cronjobv1.CronJobRun) bool) []reconcile.Request {
	var list cronjobv1.CronJobRunList
	if err := m.c.List(ctx, &list, client.InNamespace(ns), client.MatchingFields{index.RunCronJobKey: cronJob}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing the CronJobRuns of a CronJob", "cronJob", cronJob)
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		if keep(&list.Items[i]) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return reqs
}

// waiting reports whether a run has not started: no Job yet, not finished.
func waiting(run *cronjobv1.CronJobRun) bool {
	return run.Status.JobName == "" && !finished(run)
}
