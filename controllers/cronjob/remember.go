package cronjob

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// What the reconciler remembers between reconciles, in memory: nothing here is needed for correctness
// (every decision is made again from the CronJob, its Jobs and the clock), it only keeps the controller
// from repeating itself. A new process or a new leader starts with an empty memory, so it may report a
// cause once more, or try a blocked run once more.

// reportedCauses remembers, per CronJob and Warning reason, the cause last reported, so that a cause is
// reported once and then stays quiet however often the CronJob is reconciled (its Jobs' events trigger
// reconciles all the time). A cause is a string that changes when the cause does: the generation for a
// bad schedule or time zone, the scheduled time for MissSchedule and FailedCreate. The zero value is
// ready to use; it holds at most one cause per CronJob and reason.
type reportedCauses struct {
	mu     sync.Mutex
	causes map[types.NamespacedName]map[string]string // CronJob -> reason -> cause
}

// first reports whether cause is new for the CronJob and reason, and remembers it.
func (r *reportedCauses) first(cj types.NamespacedName, reason, cause string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.causes == nil {
		r.causes = map[types.NamespacedName]map[string]string{}
	}
	byReason := r.causes[cj]
	if byReason == nil {
		byReason = map[string]string{}
		r.causes[cj] = byReason
	}
	if byReason[reason] == cause {
		return false
	}
	byReason[reason] = cause
	return true
}

// forget forgets everything about the CronJob.
func (r *reportedCauses) forget(cj types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.causes, cj)
}

// blockedRuns remembers the runs that could not start because a Job of someone else holds their Job's
// name, so that the create, the live GET of that Job and the event are not repeated on every reconcile.
// A run stays blocked while the CronJob's generation and that Job's UID and resourceVersion (as the cache
// sees it) are the ones recorded; the controller watches all Jobs and reconciles the CronJob when the
// blocking Job changes or goes (cronJobsBlockedBy), so the run starts as soon as it can. The zero value
// is ready to use; it holds at most one run per CronJob.
type blockedRuns struct {
	mu   sync.Mutex
	runs map[types.NamespacedName]blockedRun // by the blocking Job
}

// blockedRun is a run blocked by a Job of someone else.
type blockedRun struct {
	cronJob    types.NamespacedName
	generation int64
	scheduled  time.Time
	// uid and resourceVersion of the blocking Job when it was read.
	uid             types.UID
	resourceVersion string
}

// block records that the run is blocked by the Job job (its key, UID and resourceVersion), replacing any
// run recorded for the same CronJob.
func (b *blockedRuns) block(job types.NamespacedName, run blockedRun) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.runs == nil {
		b.runs = map[types.NamespacedName]blockedRun{}
	}
	b.forgetLocked(run.cronJob)
	b.runs[job] = run
}

// lookup returns the run that job blocks, if any.
func (b *blockedRuns) lookup(job types.NamespacedName) (blockedRun, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	run, ok := b.runs[job]
	return run, ok
}

// forget forgets the run blocked for the CronJob, if any.
func (b *blockedRuns) forget(cj types.NamespacedName) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.forgetLocked(cj)
}

func (b *blockedRuns) forgetLocked(cj types.NamespacedName) {
	for job, run := range b.runs {
		if run.cronJob == cj {
			delete(b.runs, job)
		}
	}
}

// cronJobsBlockedBy maps an event of any Job to the CronJob whose run that Job blocks, if any: a
// handler.MapFunc. It only reads memory.
func (b *blockedRuns) cronJobsBlockedBy(_ context.Context, job client.Object) []reconcile.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	run, ok := b.runs[client.ObjectKeyFromObject(job)]
	if !ok {
		return nil
	}
	return []reconcile.Request{{NamespacedName: run.cronJob}}
}

// forget forgets everything the reconciler remembers about the CronJob: it is gone.
func (r *Reconciler) forget(cj types.NamespacedName) {
	r.warned.forget(cj)
	r.blocked.forget(cj)
	r.deferred.forget(cj)
	r.expected.forget(cj)
}
