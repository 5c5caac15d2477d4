package cronjob

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/clocks"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/conflict"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/index"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
)

// After a status write, a reconcile waits until the cache shows it, polling every ownWritePoll for at
// most ownWriteTimeout (real time: this waits for the watch, not for a scheduled time).
const (
	ownWritePoll    = time.Millisecond
	ownWriteTimeout = time.Second
)

// ControllerName is the name of the controller, used in logs, metrics and as the event reporter.
const ControllerName = "cronjob-operator"

// Reconciler reconciles CronJob objects: it creates a Job for each scheduled time, tracks the active
// Jobs, prunes finished ones beyond the history limits and requeues itself for the next scheduled time.
// Setup builds it and wires it into a manager; tests of this package build it on a fake client.
type Reconciler struct {
	// Client reads (from the manager's cache) and writes objects.
	Client client.Client
	// APIReader reads from the API server, bypassing the cache: it confirms that a Job listed in
	// status.active is really gone before it is dropped, reads the owner of a Job that already exists, and
	// reads the managedFields the cache strips (when was the schedule edited). Required: a reconcile
	// without it fails, rather than silently trusting the cache.
	APIReader client.Reader
	// Scheme is the scheme used to build owner references.
	Scheme *runtime.Scheme
	// Clock is read once per reconcile. Nil means the real clock.
	Clock clock.PassiveClock
	// Recorder emits events (events.k8s.io API). Nil emits none.
	Recorder events.EventRecorder
	// OnReconcile, when set, is called with the Outcome of every reconcile (see Options.OnReconcile).
	OnReconcile func(types.NamespacedName, Outcome)
	// Metrics counts runs started, missed and deleted Jobs, and the start skew. Nil counts nothing.
	Metrics *metrics.Metrics
	// StatusWriter writes the CronJob's status. Nil writes through Client.Status(); Setup gives a
	// statuswrite.Writer, which does not decode the server's answer (a reconcile never reads it).
	StatusWriter conflict.StatusUpdater
	// Queue is the controller's workqueue, for deferring the status write of a run whose Job was created
	// while other reconciles wait ("Jobs first", deferred.go). Nil writes every status at once.
	Queue RecordQueue

	// warned remembers which causes were reported, so that each is reported once (see reportedCauses).
	warned reportedCauses
	// blocked remembers the runs whose Job name is held by a Job of someone else (see blockedRuns).
	blocked blockedRuns
	// deferred holds the status of CronJobs whose run's record waits behind other reconciles, and
	// expected the Jobs being created, whose create events trigger no reconcile (deferred.go).
	deferred deferredRecords
	expected expectedCreates
	// started is the clock's time at the first reconcile: a run scheduled before it is a catch-up.
	started     time.Time
	startedOnce sync.Once
}

// firstReconcile returns the clock's time at the first reconcile of this reconciler, setting it to now
// on the first call.
func (r *Reconciler) firstReconcile(now time.Time) time.Time {
	r.startedOnce.Do(func() { r.started = now })
	return r.started
}

// +kubebuilder:rbac:groups=batch.cronjob-operator.dev,resources=cronjobs,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=batch.cronjob-operator.dev,resources=cronjobs/status,verbs=get;update
// Update of cronjobs/finalizers: each Job's owner reference sets blockOwnerDeletion, and clusters with the
// OwnerReferencesPermissionEnforcement admission plugin (OpenShift, some hardened clusters) let only a
// client that may update the owner's finalizers set it.
// +kubebuilder:rbac:groups=batch.cronjob-operator.dev,resources=cronjobs/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch.cronjob-operator.dev,resources=croncalendars,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile loads the CronJob and its Jobs, reads the clock once, syncs, writes status once if it changed
// and returns the requeue for the next scheduled time. User errors (bad schedule, unknown time zone) are
// reported through an event and a condition and are not retried; API errors are returned, wrapped. What
// it did is its Outcome, handed to OnReconcile.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	out := r.reconcile(ctx, req)
	if r.OnReconcile != nil {
		r.OnReconcile(req.NamespacedName, out)
	}
	return ctrl.Result{RequeueAfter: out.RequeueAfter}, out.Err
}

// reconcile is Reconcile, returning the Outcome: load the CronJob and its Jobs, read the clock once, apply
// a deferred record, sync (track, prune, decide, act), then write, defer or keep the status (finish).
func (r *Reconciler) reconcile(ctx context.Context, req ctrl.Request) Outcome {
	if r.APIReader == nil {
		return Outcome{Err: errors.New("cronjob.Reconciler.APIReader is nil: set it to the manager's GetAPIReader (controllers.Setup does)")}
	}
	var cj cronjobv1.CronJob
	if err := r.Client.Get(ctx, req.NamespacedName, &cj); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
		}
		return Outcome{Err: client.IgnoreNotFound(err)}
	}
	now := r.clock().Now()
	r.firstReconcile(now)
	owned, err := r.ownedJobs(ctx, &cj)
	if err != nil {
		return Outcome{Err: err}
	}
	w := ending{req: req, original: cj.DeepCopy()}
	// A run created by the previous reconcile whose record was deferred: this reconcile writes it.
	w.recording, w.announce = r.applyDeferred(&cj)
	s := &syncer{r: r, cj: &cj, jobs: owned, now: now}
	result, syncErr := s.sync(ctx)
	w.syncErr = syncErr
	s.out.RequeueAfter = result.RequeueAfter
	return r.finish(ctx, s, w)
}

// ownedJobs lists the Jobs controlled by cj, from the cache (the index by controlling CronJob, then the
// owner's UID: a CronJob created again under the same name does not see its predecessor's Jobs), oldest
// first (creation time, then name), so that status.active lists the Jobs it has no place for yet in the
// order they were created, whatever the cache's order (jobs.BoundActive).
func (r *Reconciler) ownedJobs(ctx context.Context, cj *cronjobv1.CronJob) ([]*batchv1.Job, error) {
	var jobList batchv1.JobList
	if err := r.Client.List(ctx, &jobList, client.InNamespace(cj.Namespace),
		client.MatchingFields{index.JobOwnerKey: cj.Name}); err != nil {
		return nil, fmt.Errorf("listing jobs: %w", err)
	}
	owned := make([]*batchv1.Job, 0, len(jobList.Items))
	for i := range jobList.Items {
		if jobs.IsOwnedBy(&jobList.Items[i], cj) {
			owned = append(owned, &jobList.Items[i])
		}
	}
	slices.SortStableFunc(owned, func(a, b *batchv1.Job) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return owned, nil
}

// ending is what finish needs besides the syncer: the request, the CronJob as loaded, whether this
// reconcile applied a deferred record (recording) and the Jobs whose SuccessfulCreate it holds, and the
// error of the sync.
type ending struct {
	req       ctrl.Request
	original  *cronjobv1.CronJob
	recording bool
	announce  []string
	syncErr   error
}

// finish ends a reconcile with the status it computed: unchanged (nothing written), deferred behind the
// waiting reconciles ("Jobs first", deferred.go), or written once; and the SuccessfulCreate events with the
// write, or before it. It returns the Outcome with Status set.
func (r *Reconciler) finish(ctx context.Context, s *syncer, w ending) Outcome {
	out, key := s.out, w.req.NamespacedName
	jobs.BoundActive(&s.cj.Status) // the sync counted every active Job; the status lists at most 100
	boundHistory(s.cj)
	changed := !equality.Semantic.DeepEqual(w.original.Status, s.cj.Status)
	deferring := changed && !w.recording && w.syncErr == nil && s.created != nil && r.busy()
	if !deferring && r.expected.settle(key, false) {
		r.Queue.Add(w.req) // the create event this reconcile swallowed, given back
	}
	announce := append(w.announce, s.createdJobs...)
	if !deferring {
		// With the status write, or before it: an Event is best effort, and one that waited for a deferred
		// record must not wait for a write that fails.
		r.announceCreated(s.cj, announce)
	}
	switch {
	case !changed:
		if w.recording {
			r.deferred.forget(key) // the server has it
		}
	case deferring:
		// Jobs first (deferred.go): the record waits behind the reconciles in the queue.
		r.deferred.put(key, deferredRecord{
			uid: s.cj.UID, resourceVersion: w.original.ResourceVersion, status: s.cj.Status.DeepCopy(),
			job: s.created, scheduled: metav1.NewTime(out.Scheduled), createdJobs: announce,
		})
		r.expected.settle(key, true)
		r.Queue.AddLast(w.req)
		out.Status, out.RequeueAfter = StatusDeferred, 0
		return out
	default:
		if done := r.writeStatus(ctx, s.cj, w, &out); done {
			return out
		}
	}
	if w.syncErr != nil {
		// controller-runtime ignores the result when the error is set; the error's backoff applies.
		out.Err, out.RequeueAfter = w.syncErr, 0
	}
	return out
}

// writeStatus writes the status, once. A full update of the status subresource, not a merge patch: the
// resourceVersion read from the cache makes it conditional all the same (a conflict when the cache was
// stale), and it costs the API server less than a patch (README "Benchmarks"). The cache strips
// managedFields; the server keeps the stored ones on a subresource update. Through StatusWriter, cj is left
// as sent (its resourceVersion is not advanced): nothing after the write reads it. done is true when out is
// final (a conflict, requeued, or an error).
func (r *Reconciler) writeStatus(ctx context.Context, cj *cronjobv1.CronJob, w ending, out *Outcome) (done bool) {
	sw := r.StatusWriter
	if sw == nil {
		sw = r.Client.Status()
	}
	requeue, err := conflict.WriteStatus(ctx, sw, cj, "CronJob", w.syncErr)
	if requeue {
		// Typically this reconcile was triggered by the Job created by the previous one before its status
		// write reached the cache. A deferred record stays, to be applied to the newer CronJob.
		out.Status, out.RequeueAfter = StatusConflicted, conflict.RequeueDelay
		return true
	}
	if err != nil {
		out.Err, out.RequeueAfter = err, 0
		return true
	}
	if w.recording {
		r.deferred.forget(w.req.NamespacedName)
	}
	out.Status = StatusWritten
	r.awaitOwnWrite(ctx, w.req.NamespacedName, w.original.ResourceVersion)
	return false
}

// awaitOwnWrite waits until the cached CronJob is no longer the version `before` the status write, that
// is until the cache has seen the write (watch events arrive in order), for at most ownWriteTimeout.
//
// Without it, the reconcile that the Job created by this one triggers at once reads the CronJob from a
// cache that has not seen this write yet: it would compute status from stale data and its status write
// would conflict. Waiting a few milliseconds here is cheaper than a failed write and a requeue. A timeout
// is not an error: the next reconcile then meets the conflict, which is handled.
func (r *Reconciler) awaitOwnWrite(ctx context.Context, key client.ObjectKey, before string) {
	_ = wait.PollUntilContextTimeout(ctx, ownWritePoll, ownWriteTimeout, true, func(ctx context.Context) (bool, error) {
		var cached cronjobv1.CronJob
		if err := r.Client.Get(ctx, key, &cached, client.UnsafeDisableDeepCopy); err != nil {
			return true, nil // deleted, or unreadable: nothing to wait for
		}
		return cached.ResourceVersion != before, nil
	})
}

func (r *Reconciler) clock() clock.PassiveClock { return clocks.OrReal(r.Clock) }
