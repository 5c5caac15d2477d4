package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// observedJob is a Job as the bench's watch first saw it.
type observedJob struct {
	Namespace, Name string
	// Owner is the UID of the Job's controller (a CronJob of either kind); empty when it has none.
	Owner types.UID
	// ScheduledAt is parsed from the annotation of either controller; zero when absent or unparsable.
	ScheduledAt time.Time
	// Seen is when the ADDED event reached the bench's handler.
	Seen time.Time
}

// jobWatch records every Job added in the cluster, for both controllers alike: one informer with no resync,
// whose add handler stamps the time it is called. It is the single source of the skew figures.
type jobWatch struct {
	mu   sync.Mutex
	jobs []observedJob
}

// startJobWatch starts the watch and returns once its initial list has been delivered.
func startJobWatch(ctx context.Context, cfg *rest.Config) (*jobWatch, error) {
	cs, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return nil, err
	}
	w := &jobWatch{}
	lw := cache.NewListWatchFromClient(cs.BatchV1().RESTClient(), "jobs", metav1.NamespaceAll, fields.Everything())
	_, informer := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &batchv1.Job{},
		Handler: cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
			seen := time.Now()
			if job, ok := obj.(*batchv1.Job); ok {
				w.add(job, seen)
			}
		}},
	})
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return nil, fmt.Errorf("the Job watch did not sync")
	}
	return w, nil
}

func (w *jobWatch) add(job *batchv1.Job, seen time.Time) {
	o := observedJob{Namespace: job.Namespace, Name: job.Name, Seen: seen}
	if ref := metav1.GetControllerOf(job); ref != nil {
		o.Owner = ref.UID
	}
	for _, key := range []string{batchv1.CronJobScheduledTimestampAnnotation, cronjobv1.ScheduledAtAnnotation} {
		if v, ok := job.Annotations[key]; ok {
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				o.ScheduledAt = t
			}
		}
	}
	w.mu.Lock()
	w.jobs = append(w.jobs, o)
	w.mu.Unlock()
}

// inNamespace returns the Jobs observed in ns so far.
func (w *jobWatch) inNamespace(ns string) []observedJob {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []observedJob
	for _, j := range w.jobs {
		if j.Namespace == ns {
			out = append(out, j)
		}
	}
	return out
}
