package cronjob

import (
	"context"
	"fmt"
	"sync/atomic"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/clocks"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/index"
)

// SetupWithManager wires the reconciler into mgr as the controller ControllerName: it reconciles CronJobs
// (spec changes only) and the Jobs they control, maxConcurrent at a time (0 means 1), on a workqueue
// that is the reconciler's RecordQueue. With a fake clock (r.Clock implements clock.WithTicker and is not
// the real clock) the queue runs on that clock. Controller name validation is skipped: test processes run
// several managers that share controller-runtime's metrics registry.
func (r *Reconciler) SetupWithManager(mgr manager.Manager, maxConcurrent int) error {
	copts := controller.Options{
		MaxConcurrentReconciles: maxConcurrent,
		SkipNameValidation:      ptr.To(true),
	}
	queue := &controllerQueue{}
	r.Queue = queue
	copts.NewQueue = queue.constructor(mgr, r.Clock)
	err := ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&cronjobv1.CronJob{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// The create event of a Job whose record the reconciler deferred triggers nothing (expectedCreates).
		Owns(&batchv1.Job{}, builder.WithPredicates(predicate.Funcs{
			CreateFunc: func(e event.CreateEvent) bool { return !r.expected.observed(e.Object) },
		})).
		// A Job of someone else that holds the name of a due run blocks that run (see blockedRuns); when it
		// changes or goes, the CronJob is reconciled again, so the run starts as soon as it can.
		Watches(&batchv1.Job{}, handler.EnqueueRequestsFromMapFunc(r.blocked.cronJobsBlockedBy)).
		// Creating, editing or deleting a CronCalendar re-plans the CronJobs of its namespace that list it.
		Watches(&cronjobv1.CronCalendar{}, handler.EnqueueRequestsFromMapFunc(r.cronJobsOfCalendar)).
		WithOptions(copts).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up the controller: %w", err)
	}
	return nil
}

// controllerQueue is the CronJob controller's workqueue as the reconciler's RecordQueue: the queue
// controller-runtime would build (its priority queue; with a fake clock, a FIFO queue on that clock so
// that RequeueAfter delays elapse only when the clock moves), kept when it is built.
type controllerQueue struct {
	q atomic.Pointer[workqueue.TypedRateLimitingInterface[reconcile.Request]]
}

// recordPriority is the priority of a deferred record in the priority queue: below everything, also
// below the CronJobs of the initial list after a restart (handler.LowPriority), which are due first.
const recordPriority = handler.LowPriority - 1

func (c *controllerQueue) constructor(mgr manager.Manager, clk clock.PassiveClock) func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	return func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		var q workqueue.TypedRateLimitingInterface[reconcile.Request]
		ticker, fake := clk.(clock.WithTicker)
		switch {
		case fake && !clocks.IsReal(clk):
			q = workqueue.NewTypedRateLimitingQueueWithConfig(rl,
				workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name, Clock: ticker})
		case ptr.Deref(mgr.GetControllerOptions().UsePriorityQueue, true):
			q = priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) {
				o.Log = mgr.GetLogger().WithValues("controller", name)
				o.RateLimiter = rl
			})
		default:
			q = workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name})
		}
		c.q.Store(&q)
		return q
	}
}

// Len implements RecordQueue; 0 before the controller has started.
func (c *controllerQueue) Len() int {
	if q := c.q.Load(); q != nil {
		return (*q).Len()
	}
	return 0
}

// Add implements RecordQueue.
func (c *controllerQueue) Add(req reconcile.Request) {
	if q := c.q.Load(); q != nil {
		(*q).Add(req)
	}
}

// AddLast implements RecordQueue.
func (c *controllerQueue) AddLast(req reconcile.Request) {
	q := c.q.Load()
	if q == nil {
		return
	}
	if pq, ok := (*q).(priorityqueue.PriorityQueue[reconcile.Request]); ok {
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(recordPriority)}, req)
		return
	}
	(*q).Add(req)
}

// cronJobsOfCalendar maps a CronCalendar to the CronJobs of its namespace that list it (index.CalendarKey).
func (r *Reconciler) cronJobsOfCalendar(ctx context.Context, obj client.Object) []reconcile.Request {
	var list cronjobv1.CronJobList
	if err := r.Client.List(ctx, &list, client.InNamespace(obj.GetNamespace()),
		client.MatchingFields{index.CalendarKey: obj.GetName()}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing the CronJobs of a calendar", "calendar", klog.KObj(obj))
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return reqs
}
