package cronjobrun

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/clocks"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/conflict"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// controllerName is the name of the CronJobRun controller in logs and metrics.
const controllerName = "cronjobrun"

// Reconciler reconciles the CronJobRuns of one CronJob at a time: it creates each run's Job from its
// CronJob's jobTemplate (through the CronJob's concurrency policy unless the run says Ignore), follows that
// Job into the run's phase, and deletes the run when its Job is gone or its ttlSecondsAfterFinished has
// passed. controllers.Setup builds it beside the CronJob reconciler (cronjob.Reconciler) and wires it into
// the same manager.
type Reconciler struct {
	// Client reads (from the manager's cache) and writes objects. The Jobs it reads may be the cache's,
	// without their pod template (controllers.CacheOptions): the reconciler reads their metadata and status
	// only.
	Client client.Client
	// APIReader reads from the API server, bypassing the cache: it confirms a Job the cache has not shown
	// yet (named by a run's status.jobName or the CronJob's status.active) before the concurrency policy
	// counts it, confirms that a run's Job is really gone before the run is deleted, and reads a Job that
	// already exists. Required.
	APIReader client.Reader
	// Scheme is the scheme used to build owner references.
	Scheme *runtime.Scheme
	// Clock is read once per reconcile. Nil means the real clock.
	Clock clock.PassiveClock
	// Recorder emits events (events.k8s.io API). Nil emits none.
	Recorder events.EventRecorder
	// Metrics counts manual runs in runs_started_total (trigger manual) and the Jobs Replace deleted. Nil
	// counts nothing.
	Metrics *metrics.Metrics
	// MaxWaitingRuns is how many Pending runs (waiting for the concurrency policy) one CronJob may have: a
	// new run that would wait beyond it is Rejected (TooManyWaitingRuns). 0 means DefaultMaxWaitingRuns;
	// a negative value means no limit.
	MaxWaitingRuns int
}

// DefaultMaxWaitingRuns is Reconciler.MaxWaitingRuns when unset: 100 Pending runs per CronJob. Each waiting
// run is an object in etcd and in the cache, and is looked at on every reconcile of its CronJob's runs; a
// hundred is more than a person queues by hand and bounds what one tenant's script can pile up.
const DefaultMaxWaitingRuns = 100

// +kubebuilder:rbac:groups=batch.cronjob-operator.dev,resources=cronjobruns,verbs=get;list;watch;update;delete
// +kubebuilder:rbac:groups=batch.cronjob-operator.dev,resources=cronjobruns/status,verbs=get;update

// Reconcile reconciles every CronJobRun of one CronJob: req names the namespace and the CronJob
// (spec.cronJobName; the CronJob need not exist). It reads the clock once, takes the runs from the cache
// (index.RunCronJobKey), and syncs them in three phases (runPhase): the runs that have a Job or are
// Rejected (follow the Job, or prune the run), the waiting runs that say Ignore, then the waiting runs
// that honour the concurrency policy, each phase oldest first (creation time, then name), so that older
// runs take the free slots first and two runs never take the same slot.
// Each run's status is written once, if it changed. A run whose Job cannot start for a reason the user
// must fix is Rejected, with a Warning event, and not retried; API errors are returned, wrapped and
// joined, and retried with backoff (after an error in a start, the younger runs are not started in this
// reconcile). The result requeues at the earliest end of a finished run's ttlSecondsAfterFinished; Pending
// runs wait for events (a Job of the CronJob finishing, a run created or deleted), not for time.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if r.APIReader == nil {
		return ctrl.Result{}, errors.New("cronjobrun.Reconciler.APIReader is nil: set it to the manager's GetAPIReader (controllers.Setup does)")
	}
	p, err := r.newPass(ctx, req.NamespacedName)
	if err != nil {
		return ctrl.Result{}, err
	}
	var (
		result ctrl.Result
		errs   []error
	)
	now := r.clock().Now()
	for _, phase := range []runPhase{phaseFollow, phaseIgnore, phaseHonor} {
		for _, run := range p.runs {
			if phaseOf(run) != phase || run.DeletionTimestamp != nil || p.gone[run.UID] {
				continue
			}
			if phase != phaseFollow && p.blocked {
				break
			}
			res, err := r.reconcileRun(ctx, p, run, now)
			if err != nil {
				errs = append(errs, err)
				p.blocked = p.blocked || phase != phaseFollow
			}
			result = earliest(result, res)
		}
	}
	return result, errors.Join(errs...)
}

// reconcileRun syncs one run within the pass p and writes its status once if it changed.
func (r *Reconciler) reconcileRun(ctx context.Context, p *pass, run *cronjobv1.CronJobRun, now time.Time) (ctrl.Result, error) {
	ctx = ctrl.LoggerInto(ctx, ctrl.LoggerFrom(ctx).WithValues("cronJobRun", klog.KObj(run)))
	original := run.Status.DeepCopy()
	wasPending := pending(run)
	s := &runSyncer{r: r, run: run, now: now, pass: p}
	result, syncErr := s.sync(ctx)
	s.trace(ctx, result)
	if s.deleted {
		p.gone[run.UID] = true
	}
	if pending(run) && !s.deleted {
		p.pending++
	}
	if wasPending {
		p.pending--
	}
	if s.deleted || equality.Semantic.DeepEqual(*original, run.Status) {
		return result, syncErr
	}
	requeue, err := conflict.WriteStatus(ctx, r.Client.Status(), run, "CronJobRun", syncErr)
	if requeue {
		return ctrl.Result{RequeueAfter: conflict.RequeueDelay}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return result, syncErr
}

// runPhase is the order in which a reconcile syncs a CronJob's runs.
type runPhase int

const (
	// phaseFollow: the runs that have a Job or are Rejected (follow the Job, or prune the run).
	phaseFollow runPhase = iota
	// phaseIgnore: the waiting runs that say Ignore. They start whatever is active, so they go before the
	// line: a Job of theirs that the cache does not show yet (a status write lost) is adopted by its name
	// and counted by the runs that honour the policy.
	phaseIgnore
	// phaseHonor: the waiting runs that honour the concurrency policy, oldest first.
	phaseHonor
)

// phaseOf is the phase of a reconcile in which the run is synced.
func phaseOf(run *cronjobv1.CronJobRun) runPhase {
	switch {
	case !waiting(run):
		return phaseFollow
	case run.Spec.ConcurrencyPolicy == cronjobv1.RunIgnoreConcurrency:
		return phaseIgnore
	}
	return phaseHonor
}

// earliest returns the result that requeues first: a RequeueAfter of 0 means no requeue, not "now".
func earliest(a, b ctrl.Result) ctrl.Result {
	if a.RequeueAfter == 0 || (b.RequeueAfter != 0 && b.RequeueAfter < a.RequeueAfter) {
		return b
	}
	return a
}

func (r *Reconciler) clock() clock.PassiveClock { return clocks.OrReal(r.Clock) }

// maxWaiting is MaxWaitingRuns with its default; negative means no limit.
func (r *Reconciler) maxWaiting() int {
	if r.MaxWaitingRuns == 0 {
		return DefaultMaxWaitingRuns
	}
	return r.MaxWaitingRuns
}

// runSyncer holds the state of one reconcile of one CronJobRun. Its methods change run.Status in memory;
// the reconciler writes it once at the end.
type runSyncer struct {
	r   *Reconciler
	run *cronjobv1.CronJobRun
	now time.Time
	// pass is what the reconcile of the runs of the run's CronJob shares.
	pass *pass
	// deleted is set once the run itself was deleted: there is no status to write.
	deleted bool
}

// sync dispatches on where the run is in its life: it backfills a range (backfill), it has a Job (follow it), it was rejected (prune it
// once its TTL passes), or it waits to start (start it).
func (s *runSyncer) sync(ctx context.Context) (ctrl.Result, error) {
	if s.run.Spec.Range != nil {
		return s.backfill(ctx)
	}
	if s.run.Status.JobName != "" {
		return s.follow(ctx)
	}
	if s.run.Status.Phase == cronjobv1.RunRejected {
		return s.pruneAfterTTL(ctx)
	}
	return s.start(ctx)
}

// follow brings the run's phase in line with its Job, and deletes the run when the Job is gone: a run
// lives no longer than its Job, which the history limits of its CronJob (or a user) delete. The garbage
// collector does the same through the run's owner reference to its Job; this covers clusters and moments
// without it, and a Job deleted with orphan propagation.
func (s *runSyncer) follow(ctx context.Context) (ctrl.Result, error) {
	job, err := s.getRunJob(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	if job == nil {
		if done, res, err := s.endedByTimeout(ctx); done {
			return res, err
		}
		ctrl.LoggerFrom(ctx).Info("Job of the CronJobRun is gone, deleting the CronJobRun", "job", s.run.Status.JobName)
		return ctrl.Result{}, s.deleteRun(ctx)
	}
	if err := s.ownJob(ctx, job); err != nil {
		return ctrl.Result{}, err
	}
	if err := s.ownCronJobUnderTimeouts(ctx); err != nil {
		return ctrl.Result{}, err
	}
	s.followJob(job)
	if finished(s.run) {
		return s.pruneAfterTTL(ctx)
	}
	return ctrl.Result{}, nil
}

// getRunJob returns the run's Job (status.jobName), or nil when it is gone: not in the cache and not on the
// API server, or replaced by another Job of the same name (not the UID the run's owner reference names).
func (s *runSyncer) getRunJob(ctx context.Context) (*batchv1.Job, error) {
	key := client.ObjectKey{Namespace: s.run.Namespace, Name: s.run.Status.JobName}
	job := &batchv1.Job{}
	err := s.r.Client.Get(ctx, key, job)
	if apierrors.IsNotFound(err) {
		// The cache may not have seen a Job created a moment ago: ask the API server.
		err = s.r.APIReader.Get(ctx, key, job)
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting job %s: %w", key.Name, err)
	}
	if uid := ownedJobUID(s.run); uid != "" && uid != job.UID {
		return nil, nil
	}
	return job, nil
}

// pruneAfterTTL deletes a finished or Rejected run once ttlSecondsAfterFinished (default
// cronjobv1.DefaultRunTTLSecondsAfterFinished) has passed since its completionTime, and otherwise requeues
// it for that moment (plus schedule.RequeuePadding), on the controller's clock.
func (s *runSyncer) pruneAfterTTL(ctx context.Context) (ctrl.Result, error) {
	expiry := runExpiry(s.run, s.now)
	if !s.now.Before(expiry) {
		ctrl.LoggerFrom(ctx).Info("CronJobRun finished longer than its ttlSecondsAfterFinished ago, deleting it",
			"phase", s.run.Status.Phase)
		return ctrl.Result{}, s.deleteRun(ctx)
	}
	return ctrl.Result{RequeueAfter: expiry.Sub(s.now) + schedule.RequeuePadding}, nil
}

// deleteRun deletes the run, guarded by its UID; a run already gone is fine.
func (s *runSyncer) deleteRun(ctx context.Context) error {
	s.deleted = true
	uid := s.run.UID
	err := s.r.Client.Delete(ctx, s.run, client.Preconditions{UID: &uid})
	if err != nil && !apierrors.IsNotFound(err) {
		s.deleted = false
		return fmt.Errorf("deleting CronJobRun %s: %w", s.run.Name, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Deleted CronJobRun", "cronJobRun", klog.KObj(s.run))
	return nil
}

// trace logs at V(1) what the reconcile decided about the run and why (the reason of its Ready condition),
// so that --zap-log-level=debug answers "why has my run not started".
func (s *runSyncer) trace(ctx context.Context, result ctrl.Result) {
	log := ctrl.LoggerFrom(ctx).V(1)
	if !log.Enabled() {
		return
	}
	reason, message := "", ""
	if c := meta.FindStatusCondition(s.run.Status.Conditions, cronjobv1.ConditionReady); c != nil {
		reason, message = c.Reason, c.Message
	}
	log.Info("Decided", "cronJob", s.run.Spec.CronJobName, "phase", string(s.run.Status.Phase), "reason", reason,
		"message", message, "job", s.run.Status.JobName, "deleted", s.deleted, "requeueAfter", result.RequeueAfter)
}
