package controllers

import (
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// CacheOptions returns the manager cache options the controller is built for: every cached object (the
// CronJobs and every Job of the cluster, or of namespaces when given) is stored without
// metadata.managedFields. The controller never reads them, and they are often the largest part of an
// object's metadata: with 10,000 CronJobs and their Jobs they would be tens of MiB of heap. Status writes are
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
