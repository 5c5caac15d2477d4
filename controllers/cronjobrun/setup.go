package cronjobrun

import (
	"context"
	"fmt"
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/clocks"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
)

// SetupWithManager wires the reconciler into mgr as the controller controllerName. Its requests name a
// CronJob (namespace and name), whose runs one reconcile takes together (Reconcile); the watches map to
// them from the cache, one request per CronJob, whatever the number of its runs:
//   - CronJobRuns: the CronJob of spec.cronJobName (a run created, changed or deleted);
//   - Jobs: the CronJob that controls the Job, or else the CronJob of the run its CronJobRunAnnotation
//     names; an update only when the Job finishes or its annotations or owners change (a Job's status
//     changes as its Pods run; only its end can free a slot or move a run's phase);
//   - CronJobs: the CronJob itself (a policy change, status.active, a CronJob deleted).
//
// maxConcurrent CronJobs are reconciled in parallel (0 or less means 1); controllers.Setup passes the
// CronJob controller's --max-concurrent-reconciles. The workqueue never hands one key to two workers, so
// two runs of one CronJob never race for a slot. With a fake clock its workqueue runs on that clock, as
// the CronJob controller's does. The field indexes of package index must be registered.
func (r *Reconciler) SetupWithManager(mgr manager.Manager, maxConcurrent int) error {
	// The controller has no For type (its requests name CronJobs): check the scheme here, as For would.
	for _, obj := range []client.Object{&cronjobv1.CronJobRun{}, &cronjobv1.CronJob{}, &batchv1.Job{}} {
		if _, err := apiutil.GVKForObject(obj, mgr.GetScheme()); err != nil {
			return fmt.Errorf("setting up the cronjobrun controller: %w", err)
		}
	}
	m := runMapper{c: mgr.GetClient()}
	copts := controller.Options{MaxConcurrentReconciles: max(maxConcurrent, 1), SkipNameValidation: ptr.To(true)}
	if ticker, ok := r.Clock.(clock.WithTicker); ok && !clocks.IsReal(r.Clock) {
		copts.NewQueue = func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(rl,
				workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name, Clock: ticker})
		}
	}
	err := ctrl.NewControllerManagedBy(mgr).
		Named(controllerName).
		Watches(&cronjobv1.CronJobRun{}, handler.EnqueueRequestsFromMapFunc(cronJobOfRun)).
		Watches(&batchv1.Job{}, handler.EnqueueRequestsFromMapFunc(m.cronJobOfJob), builder.WithPredicates(jobChange())).
		Watches(&cronjobv1.CronJob{}, handler.EnqueueRequestsFromMapFunc(cronJobItself)).
		WithOptions(copts).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up the cronjobrun controller: %w", err)
	}
	return nil
}

// jobChange passes the Job events that can change a run or free a slot: creates, deletes, and updates
// where the Job finishes or its annotations or owner references change.
func jobChange() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		oldJob, ok1 := e.ObjectOld.(*batchv1.Job)
		newJob, ok2 := e.ObjectNew.(*batchv1.Job)
		if !ok1 || !ok2 {
			return true
		}
		oldDone, _ := jobs.Finished(oldJob)
		newDone, _ := jobs.Finished(newJob)
		return oldDone != newDone || (oldJob.DeletionTimestamp == nil) != (newJob.DeletionTimestamp == nil) ||
			!maps.Equal(oldJob.Annotations, newJob.Annotations) ||
			!equality.Semantic.DeepEqual(oldJob.OwnerReferences, newJob.OwnerReferences)
	}}
}

// runMapper maps Job events to the CronJob whose runs to reconcile, from the cache.
type runMapper struct {
	c client.Reader
}

// cronJobOfRun is the request of the run's CronJob (spec.cronJobName).
func cronJobOfRun(_ context.Context, obj client.Object) []reconcile.Request {
	run := obj.(*cronjobv1.CronJobRun)
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: run.Namespace, Name: run.Spec.CronJobName}}}
}

// cronJobItself is the request of the CronJob.
func cronJobItself(_ context.Context, obj client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(obj)}}
}

// cronJobOfJob is the request of the CronJob that controls the Job; for a Job of no CronJob that names a
// run (CronJobRunAnnotation), the request of that run's CronJob; else none.
func (m runMapper) cronJobOfJob(ctx context.Context, obj client.Object) []reconcile.Request {
	if name, ok := jobs.ControllingCronJob(obj); ok {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}}}
	}
	name := obj.GetAnnotations()[cronjobv1.CronJobRunAnnotation]
	if name == "" {
		return nil
	}
	var run cronjobv1.CronJobRun
	if err := m.c.Get(ctx, types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}, &run); err != nil {
		if !apierrors.IsNotFound(err) {
			ctrl.LoggerFrom(ctx).Error(err, "Getting the CronJobRun a Job names", "cronJobRun", name)
		}
		return nil
	}
	return cronJobOfRun(ctx, &run)
}

// waiting reports whether a run has not started: no Job yet, not finished.
func waiting(run *cronjobv1.CronJobRun) bool {
	return run.Status.JobName == "" && !finished(run)
}
