package oracle

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// ObservedJob is what an Oracle recorded of a Job when it first saw it.
type ObservedJob struct {
	Namespace string
	Name      string
	UID       types.UID
	// Owner is the UID of the Job's controller owner (the CronJob), empty if it has none.
	Owner types.UID
	// ScheduledAt is the cronjobv1.ScheduledAtAnnotation, or for a Job of a batch/v1 CronJob
	// batchv1.CronJobScheduledTimestampAnnotation; zero if absent or not RFC 3339.
	ScheduledAt time.Time
	// Creator is the field manager that wrote the Job's spec, which for a Job the controller created is
	// the user agent of the manager that created it (ManagerOptions.Name). Empty if unknown.
	Creator string
	// Seen is the real time at which the oracle's watch delivered the Job.
	Seen time.Time
}

// Oracle records every Job ever added to a namespace, through a watch of its own, independent of the
// managers under test and of their caches: the ground truth a spec counts runs with. A Job that the
// controller deletes is still counted. One gap is inherent to watching: a Job created and deleted while
// the oracle's watch is down (an API server outage) is missed; specs delete only Jobs they have seen.
type Oracle struct {
	mu     sync.Mutex
	byUID  map[types.UID]ObservedJob
	cancel context.CancelFunc
}

// Start starts watching the Jobs of namespace ns (all namespaces when ns is "") and returns once the
// oracle has listed the ones that exist. Stop it with Stop. It returns an error if the client cannot be made or the first list
// does not complete before ctx ends.
func Start(ctx context.Context, cfg *rest.Config, ns string) (*Oracle, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = "job-oracle"
	// Protobuf, as the controllers' own Job watches: the oracle is an observer, and in `make bench` every
	// Job event it receives is API server CPU taken from the controllers measured (JSON costs more).
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the oracle's client: %w", err)
	}
	watchCtx, cancel := context.WithCancel(context.Background())
	o := &Oracle{byUID: map[types.UID]ObservedJob{}, cancel: cancel}
	lw := toolscache.NewListWatchFromClient(cs.BatchV1().RESTClient(), "jobs", ns, fields.Everything())
	informer := toolscache.NewSharedIndexInformer(lw, &batchv1.Job{}, 0, toolscache.Indexers{})
	record := func(obj any) {
		if job, ok := obj.(*batchv1.Job); ok {
			o.record(job)
		}
	}
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, obj any) { record(obj) },
	}); err != nil {
		cancel()
		return nil, fmt.Errorf("adding the oracle's event handler: %w", err)
	}
	go informer.RunWithContext(watchCtx)
	if !toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		o.Stop()
		return nil, fmt.Errorf("the oracle's watch of Jobs in %s did not sync: %w", ns, ctx.Err())
	}
	return o, nil
}

// Stop stops the watch. Stopping twice is harmless.
func (o *Oracle) Stop() { o.cancel() }

func (o *Oracle) record(job *batchv1.Job) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, seen := o.byUID[job.UID]; seen {
		return
	}
	obs := ObservedJob{Namespace: job.Namespace, Name: job.Name, UID: job.UID, Creator: creator(job.ManagedFields), Seen: time.Now()}
	if ref := metav1.GetControllerOf(job); ref != nil {
		obs.Owner = ref.UID
	}
	at, ok := job.Annotations[cronjobv1.ScheduledAtAnnotation]
	if !ok {
		at = job.Annotations[batchv1.CronJobScheduledTimestampAnnotation]
	}
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		obs.ScheduledAt = t
	}
	o.byUID[job.UID] = obs
}

// creator returns the field manager of the first write to the object's main resource (not a
// subresource such as status): the create, for an object nobody but its creator updates.
func creator(entries []metav1.ManagedFieldsEntry) string {
	for _, e := range entries {
		if e.Subresource == "" {
			return e.Manager
		}
	}
	return ""
}

// Jobs returns every Job seen so far, ordered by scheduled time, then name.
func (o *Oracle) Jobs() []ObservedJob {
	o.mu.Lock()
	defer o.mu.Unlock()
	jobs := make([]ObservedJob, 0, len(o.byUID))
	for _, j := range o.byUID {
		jobs = append(jobs, j)
	}
	slices.SortFunc(jobs, func(a, b ObservedJob) int {
		return cmp.Or(a.ScheduledAt.Compare(b.ScheduledAt), cmp.Compare(a.Name, b.Name))
	})
	return jobs
}

// JobsIn returns the Jobs seen so far in namespace ns, ordered by scheduled time, then name.
func (o *Oracle) JobsIn(ns string) []ObservedJob {
	return slices.DeleteFunc(o.Jobs(), func(j ObservedJob) bool { return j.Namespace != ns })
}

// JobsOf returns the Jobs seen so far whose controller owner is the object with UID owner, ordered by
// scheduled time, then name.
func (o *Oracle) JobsOf(owner types.UID) []ObservedJob {
	return slices.DeleteFunc(o.Jobs(), func(j ObservedJob) bool { return j.Owner != owner })
}

// ScheduledTimes returns the scheduled time of every Job owned by owner seen so far, in order, once per
// Job: a run started twice shows twice. Compare it with the list of expected runs to find lost,
// duplicated and surprise runs at once.
func (o *Oracle) ScheduledTimes(owner types.UID) []time.Time {
	var at []time.Time
	for _, j := range o.JobsOf(owner) {
		at = append(at, j.ScheduledAt)
	}
	return at
}
