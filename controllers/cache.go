package controllers

import (
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// CacheOptions returns the manager cache options the controller is built for: every cached object (the
// CronJobs and every Job of the cluster, or of namespaces when given) is stored without
// metadata.managedFields. The controller reads them only when it needs to know when a CronJob's schedule
// was edited, and then from the API server (scheduleEditTime); they are often the largest part of an
// object's metadata, so keeping them would cost heap in proportion to the number of objects. Status writes are
// updates of the status subresource, for which the API server keeps the stored managedFields whatever the
// request carries, so the missing field is never written back.
func CacheOptions(namespaces ...string) cache.Options {
	opts := cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
	if len(namespaces) > 0 {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return opts
}
