package controllers

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

func TestCacheOptionsStripManagedFields(t *testing.T) {
	managed := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
	objs := map[string]metav1.Object{
		"CronJob": &cronjobv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "c", ManagedFields: managed, Labels: map[string]string{"a": "b"}}},
		"Job":     &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", ManagedFields: managed, Labels: map[string]string{"a": "b"}}},
	}
	transform := CacheOptions().DefaultTransform
	for kind, obj := range objs {
		got, err := transform(obj)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		m := got.(metav1.Object)
		if len(m.GetManagedFields()) != 0 {
			t.Errorf("%s: managedFields kept in the cache: %v", kind, m.GetManagedFields())
		}
		if m.GetLabels()["a"] != "b" {
			t.Errorf("%s: the transform lost other metadata: labels %v", kind, m.GetLabels())
		}
	}
}

func TestCacheOptionsNamespaces(t *testing.T) {
	if got := CacheOptions().DefaultNamespaces; got != nil {
		t.Errorf("CacheOptions() watches namespaces %v, want all", got)
	}
	got := CacheOptions("a", "b").DefaultNamespaces
	if _, ok := got["a"]; !ok || len(got) != 2 {
		t.Errorf("CacheOptions(a, b) watches %v, want a and b", got)
	}
}
