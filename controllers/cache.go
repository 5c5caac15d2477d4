package controllers

import (
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// CacheOptions returns the manager cache options the controller is built for. Every cached object (the
// CronJobs, the CronJobRuns and every Job of the cluster, or of namespaces when given) is stored without
// metadata.managedFields, and a Job also without what no controller reads (TransformJob): its pod template
// (spec.template), its selector, and the labels and annotations outside our group (kubectl's last-applied-configuration repeats the
// template). CronJobs and CronJobRuns are otherwise cached whole.
//
// Why: the Job informer holds every Job of the watched namespaces, not only ours, and a pod template may
// be up to the API server's object limit (about 1.5 MB), so a tenant's large Jobs would otherwise grow the
// heap of a manager that serves every tenant by their size; cached this way a Job costs its metadata and
// status. managedFields are read only when the controller needs to know when a CronJob's schedule was
// edited, and then from the API server (scheduleEditTime).
//
// What it costs: a Job read through the manager's client (the cache) has an empty spec.template, no
// selector and only our group's labels and annotations; code that needs more reads the Job from the API reader. The cache is never a
// source of a write of a Job: the controllers create Jobs from the CronJob's template and delete them by
// UID, never update one. Status writes (CronJob, CronJobRun) are updates of the status subresource, for
// which the API server keeps the stored managedFields whatever the request carries, so the missing field is
// never written back.
func CacheOptions(namespaces ...string) cache.Options {
	opts := cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject:         map[client.Object]cache.ByObject{&batchv1.Job{}: {Transform: TransformJob}},
	}
	if len(namespaces) > 0 {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return opts
}

// TransformJob is the cache transform of Jobs (see CacheOptions): it empties spec.template, spec.selector
// and metadata.managedFields and keeps only the labels and annotations of our group (prefix
// "batch.cronjob-operator.dev/", such as TriggerLabel, CronJobRunAnnotation and ScheduledAtAnnotation);
// labels are bounded per key but not in number, so a tenant's Jobs could otherwise grow the cache by their
// labels as by their template. Owner references, the rest of spec and the status stay. Any other object is only stripped of managedFields.
// It changes the object it is given, as cache transforms may, and never fails.
func TransformJob(obj any) (any, error) {
	job, ok := obj.(*batchv1.Job)
	if !ok {
		return cache.TransformStripManagedFields()(obj)
	}
	job.ManagedFields = nil
	job.Spec.Template = corev1.PodTemplateSpec{}
	job.Spec.Selector = nil
	prefix := cronjobv1.GroupVersion.Group + "/"
	for _, m := range []map[string]string{job.Labels, job.Annotations} {
		for k := range m {
			if !strings.HasPrefix(k, prefix) {
				delete(m, k)
			}
		}
	}
	return job, nil
}
