package framework

import (
	"context"
	"fmt"
	"io"

	batchv1 "k8s.io/api/batch/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// DumpNamespace writes the CronJobs, Jobs and Events of a namespace to w as YAML, for the report of a
// failed spec. Errors are written too: a dump is best effort.
func DumpNamespace(ctx context.Context, c client.Reader, ns string, w io.Writer) {
	lists := []struct {
		kind string
		list client.ObjectList
	}{
		{"CronJobs", &cronjobv1.CronJobList{}},
		{"Jobs", &batchv1.JobList{}},
		{"Events", &eventsv1.EventList{}},
	}
	for _, l := range lists {
		fmt.Fprintf(w, "--- %s in namespace %s\n", l.kind, ns)
		if err := c.List(ctx, l.list, client.InNamespace(ns)); err != nil {
			fmt.Fprintf(w, "error listing: %v\n", err)
			continue
		}
		_ = meta.EachListItem(l.list, func(o runtime.Object) error {
			if m, ok := o.(metav1.Object); ok {
				m.SetManagedFields(nil) // noise in a dump
			}
			return nil
		})
		out, err := yaml.Marshal(l.list)
		if err != nil {
			fmt.Fprintf(w, "error marshalling: %v\n", err)
			continue
		}
		fmt.Fprintf(w, "%s\n", out)
	}
}
