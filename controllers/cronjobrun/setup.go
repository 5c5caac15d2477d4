package cronjobrun

import (
	"context"
	"fmt"
	"maps"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
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
//     names, for the events jobChange passes (a Job that ends, goes, or is a run's own);
//   - CronJobs: the CronJob itself, for the events cronJobChange passes (what the runs read of it).
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
		Watches(&cronjobv1.CronJob{}, handler.EnqueueRequestsFromMapFunc(cronJobItself), builder.WithPredicates(cronJobChange())).
		WithOptions(copts).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up the cronjobrun controller: %w", err)
	}
	return nil
}

// jobChange passes the Job events that can unblock a waiting run or move a run's phase; each wakes every
// waiting run of the CronJob, so it drops the rest:
//   - a create only of a Job that names a run (CronJobRunAnnotation: the run follows its own Job) or that
//     is finished or being deleted already (seen first after a relist: it frees a slot). A Job the
//     schedule creates takes a slot and frees none;
//   - an update where the Job finishes (a Complete or Failed condition turns True: the only status a run's
//     phase follows), its deletion starts, or its annotations or owner references change (which run or
//     CronJob it belongs to); not the Pod counts that change as its Pods run;
//   - every delete (a slot freed, or a run's Job gone) and generic event.
func jobChange() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			job, ok := e.Object.(*batchv1.Job)
			if !ok {
				return true
			}
			done, _ := jobs.Finished(job)
			return job.Annotations[cronjobv1.CronJobRunAnnotation] != "" || done || job.DeletionTimestamp != nil
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
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
		},
	}
}

// cronJobChange passes the CronJob events that change what its runs read of it: creates and deletes
// (runs waiting for a CronJob that did not exist, or is gone), and updates of its spec (metadata.generation:
// the API server counts spec changes only, so a policy changed or maxActiveJobs raised passes), of its
// deletion, or of the Jobs status.active lists (by name and UID: a Job the cache has not shown, or whose
// end it missed). The CronJob controller's other status writes (lastScheduleTime, nextScheduleTime,
// queued, conditions: one or more per scheduled time) and metadata changes do not wake the runs.
func cronJobChange() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		oldCJ, ok1 := e.ObjectOld.(*cronjobv1.CronJob)
		newCJ, ok2 := e.ObjectNew.(*cronjobv1.CronJob)
		if !ok1 || !ok2 {
			return true
		}
		return oldCJ.Generation != newCJ.Generation || (oldCJ.DeletionTimestamp == nil) != (newCJ.DeletionTimestamp == nil) ||
			!sameJobs(oldCJ.Status.Active, newCJ.Status.Active) || timedOut(oldCJ) != timedOut(newCJ)
	}}
}

// timedOut lists the Jobs of status.recentRuns a timeout ended: a run whose Job the CronJob controller
// ended in the reconcile that first saw it never was in status.active, and waits for this.
func timedOut(cj *cronjobv1.CronJob) string {
	var names []string
	for _, r := range cj.Status.RecentRuns {
		if r.Result == cronjobv1.RunResultTimedOut || r.Result == cronjobv1.RunResultNeverStarted {
			names = append(names, r.JobName)
		}
	}
	return strings.Join(names, ",")
}

// sameJobs reports whether two status.active lists name the same Jobs (name and UID), in any order.
func sameJobs(a, b []corev1.ObjectReference) bool {
	if len(a) != len(b) {
		return false
	}
	type jobKey struct {
		name string
		uid  types.UID
	}
	count := make(map[jobKey]int, len(a))
	for _, ref := range a {
		count[jobKey{ref.Name, ref.UID}]++
	}
	for _, ref := range b {
		key := jobKey{ref.Name, ref.UID}
		if count[key] == 0 {
			return false
		}
		count[key]--
	}
	return true
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
