package cronjob

import (
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
)

// Jobs first. When many CronJobs are due at once (the top of the hour), the user waits for their Jobs,
// not for their status: a reconcile that has created a run's Job while other reconciles wait in the queue
// does not write the status it computed, but keeps it in memory (deferredRecords) and puts its CronJob
// back behind the waiting ones (RecordQueue.AddLast). The next reconcile of that CronJob writes it, with
// whatever changed since. The status write is the dearest request of a run (a custom resource's update:
// JSON, schema, managed fields; README "Benchmarks"), so the due Jobs are created at about twice the rate.
//
// What stays the same: the requests (one create, one status write per run), the Job name (so a crash or
// leader change before the write adopts the Job, as it does after a lost write), and the bound of one run
// per CronJob whose record is not yet on the API server: a CronJob with a deferred record always writes
// at its next reconcile. A reconcile with nothing waiting behind it writes at once, as before.

// RecordQueue is what the reconciler needs of its workqueue to defer a run's record: how many
// reconciles are waiting, and a way to come back after them. Setup wires the controller's own queue.
type RecordQueue interface {
	// Len is the number of requests ready to be reconciled (not those waiting for a RequeueAfter).
	Len() int
	// Add adds req as an event of its CronJob would.
	Add(req reconcile.Request)
	// AddLast adds req behind every request waiting now: at the lowest priority of a priority queue,
	// at the back of a FIFO one.
	AddLast(req reconcile.Request)
}

// busy reports whether other reconciles wait in the queue.
func (r *Reconciler) busy() bool { return r.Queue != nil && r.Queue.Len() > 0 }

// deferredRecord is the status a reconcile computed and did not write (see "Jobs first").
type deferredRecord struct {
	// uid is the CronJob's: a CronJob deleted and created again under the same name starts afresh.
	uid types.UID
	// resourceVersion is the CronJob's when the status was computed. If the cache still holds that
	// version, the next reconcile starts from status; otherwise the CronJob changed, and only the run
	// (job, scheduled) is applied to what the server has.
	resourceVersion string
	status          *cronjobv1.CronJobStatus
	job             *batchv1.Job
	scheduled       metav1.Time
	// createdJobs are the Jobs whose SuccessfulCreate events wait for the record.
	createdJobs []string
}

// deferredRecords holds the deferred records by CronJob (types.NamespacedName); at most one each. Safe for
// concurrent use.
type deferredRecords struct{ m sync.Map }

func (d *deferredRecords) put(key types.NamespacedName, rec deferredRecord) { d.m.Store(key, rec) }

func (d *deferredRecords) get(key types.NamespacedName) (deferredRecord, bool) {
	v, ok := d.m.Load(key)
	if !ok {
		return deferredRecord{}, false
	}
	return v.(deferredRecord), true
}

func (d *deferredRecords) forget(key types.NamespacedName) { d.m.Delete(key) }

// applyDeferred puts the deferred record of cj, if any, into cj.Status and reports whether there was one,
// and which Jobs' SuccessfulCreate events it holds. A record of another CronJob of the same name (another
// UID) is dropped.
func (r *Reconciler) applyDeferred(cj *cronjobv1.CronJob) (ok bool, createdJobs []string) {
	key := client.ObjectKeyFromObject(cj)
	rec, ok := r.deferred.get(key)
	if !ok {
		return false, nil
	}
	r.expected.forget(key) // the reconcile it was to spare is this one
	if rec.uid != cj.UID {
		r.deferred.forget(key)
		return false, nil
	}
	createdJobs = rec.createdJobs
	if rec.resourceVersion == cj.ResourceVersion {
		cj.Status = *rec.status.DeepCopy()
		return true, createdJobs
	}
	// The CronJob changed since (a spec edit): what was computed from the old one may no longer hold, the
	// run does. This reconcile recomputes the rest.
	if finished, _ := jobs.Finished(rec.job); !finished {
		jobs.AddActive(&cj.Status, rec.job)
	}
	if i := findRun(rec.status, rec.job.Name); i >= 0 && findRun(&cj.Status, rec.job.Name) < 0 {
		cj.Status.RecentRuns = append(cj.Status.RecentRuns, rec.status.RecentRuns[i])
	}
	cj.Status.LastScheduleTime = laterTime(cj.Status.LastScheduleTime, &rec.scheduled)
	return true, createdJobs
}

// expectedCreates keeps the watch event of a Job's create from lifting its CronJob ahead of the CronJobs
// still due (under a priority queue, an event's request has the default priority, above a deferred
// record's). The event often arrives before the create's response, so the expectation is set before the
// create (expect) and settled once the reconcile knows whether it defers the record (settle): if it does,
// the event needs no reconcile, since the CronJob is queued for its record; the expectation then lasts
// until the record's reconcile starts (forget). If it does not, an event already swallowed is given back
// (settle says so, and the reconcile queues the CronJob as the event would have), so a reconcile that
// writes at once leaves the events as they were. Safe for concurrent use; one entry per CronJob at most.
type expectedCreates struct {
	mu sync.Mutex
	m  map[types.NamespacedName]*expectedCreate
}

type expectedCreate struct {
	job       string
	swallowed bool // its create event came, and was dropped
}

// expect records that the CronJob key is creating the Job named job.
func (e *expectedCreates) expect(key types.NamespacedName, job string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m == nil {
		e.m = map[types.NamespacedName]*expectedCreate{}
	}
	e.m[key] = &expectedCreate{job: job}
}

// settle ends the create of the CronJob key: when deferred, an event still to come is dropped until the
// record's reconcile starts; otherwise the expectation ends, and settle reports whether an event was
// dropped meanwhile, which the caller must make up for.
func (e *expectedCreates) settle(key types.NamespacedName, deferred bool) (swallowed bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.m[key]
	if !ok {
		return false
	}
	if deferred {
		if x.swallowed {
			delete(e.m, key)
		}
		return false
	}
	delete(e.m, key)
	return x.swallowed
}

// forget drops the expectation of the CronJob key (its record's reconcile has started, or it is gone).
func (e *expectedCreates) forget(key types.NamespacedName) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, key)
}

// observed reports whether job is the Job a CronJob of ours is creating, or created and deferred the
// record of, and whose create event is therefore dropped; only the first create event of that Job is.
func (e *expectedCreates) observed(job client.Object) bool {
	cronJob, ok := jobs.ControllingCronJob(job)
	if !ok {
		return false
	}
	key := types.NamespacedName{Namespace: job.GetNamespace(), Name: cronJob}
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.m[key]; ok && x.job == job.GetName() && !x.swallowed {
		x.swallowed = true
		return true
	}
	return false
}
