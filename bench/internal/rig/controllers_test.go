package rig

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
)

// cutShort is a DeleteAllOf that deletes at most two objects of the kind per request and then, when some
// are left, fails as the API server does when a deletecollection outlasts its request timeout.
func cutShort(calls map[string]int, policies map[string]metav1.DeletionPropagation) func(context.Context, client.WithWatch, client.Object, ...client.DeleteAllOfOption) error {
	return func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
		o := (&client.DeleteAllOfOptions{}).ApplyOptions(opts)
		var list client.ObjectList = &batchv1.JobList{}
		kind := "jobs"
		if _, ok := obj.(*batchv1.CronJob); ok {
			list, kind = &batchv1.CronJobList{}, "cronjobs"
		}
		calls[kind]++
		if o.PropagationPolicy != nil {
			policies[kind] = *o.PropagationPolicy
		}
		if err := c.List(ctx, list, client.InNamespace(o.Namespace)); err != nil {
			return err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		for i, item := range items {
			if i == 2 {
				return apierrors.NewTimeoutError("request did not complete within the allotted timeout", 0)
			}
			if err := c.Delete(ctx, item.(client.Object)); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestDeleteAllGoesOnUntilNoneIsLeft(t *testing.T) {
	s := runtime.NewScheme()
	if err := batchv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	var objs []client.Object
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		objs = append(objs, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "population-peer-0"}})
	}
	for _, name := range []string{"a-1", "b-1", "c-1"} {
		objs = append(objs, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "population-peer-0"}})
	}
	objs = append(objs, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "other"}})
	calls, policies := map[string]int{}, map[string]metav1.DeletionPropagation{}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithInterceptorFuncs(interceptor.Funcs{DeleteAllOf: cutShort(calls, policies)}).Build()

	r := &Rig{controller: results.Peer}
	if err := r.DeleteAll(context.Background(), c, "population-peer-0"); err != nil {
		t.Fatalf("DeleteAll: %v", err)
	}
	var cronJobs batchv1.CronJobList
	var jobs batchv1.JobList
	if err := c.List(context.Background(), &cronJobs); err != nil {
		t.Fatal(err)
	}
	if err := c.List(context.Background(), &jobs); err != nil {
		t.Fatal(err)
	}
	if len(cronJobs.Items) != 1 || cronJobs.Items[0].Namespace != "other" || len(jobs.Items) != 0 {
		t.Errorf("left: %d CronJobs (want only other/a), %d Jobs (want none)", len(cronJobs.Items), len(jobs.Items))
	}
	// Five CronJobs two at a time: three requests; three Jobs: two.
	if calls["cronjobs"] != 3 || calls["jobs"] != 2 {
		t.Errorf("deletecollection requests: %v, want 3 of cronjobs and 2 of jobs", calls)
	}
	if policies["jobs"] != metav1.DeletePropagationBackground {
		t.Errorf("the Jobs' propagation policy = %q, want Background (batch/v1 Jobs orphan by default)", policies["jobs"])
	}
}
