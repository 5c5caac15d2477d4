package controllers

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

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

func TestCacheOptionsJobsWithoutTheirPodTemplate(t *testing.T) {
	// A Job of 1 MB (a command and a template annotation of 512 KiB each, and kubectl's last-applied
	// annotation repeating them) is cached at the size of its metadata: the controllers read a Job's
	// metadata (owner, our annotations) and status, never its pod template.
	big := strings.Repeat("x", 512<<10)
	// Labels are bounded per key, not in number: 4,000 labels of 63-byte values are about 400 KiB, and a
	// manual selector repeats them.
	labels := map[string]string{"team": "a", cronjobv1.TriggerLabel: cronjobv1.TriggerManual}
	for i := range 4000 {
		labels[fmt.Sprintf("tenant.example/l%04d", i)] = strings.Repeat("v", 63)
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: "big", Namespace: "tenant-a", UID: "uid-big",
			Labels: labels,
			Annotations: map[string]string{
				cronjobv1.CronJobRunAnnotation:                     "run",
				cronjobv1.ScheduledAtAnnotation:                    "2026-03-02T10:00:00Z",
				"kubectl.kubernetes.io/last-applied-configuration": big,
			},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: cronjobv1.GroupVersion.String(), Kind: "CronJob", Name: "c", UID: "uid-c", Controller: ptr.To(true)}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}},
		},
		Spec: batchv1.JobSpec{
			Parallelism:    ptr.To[int32](1),
			ManualSelector: ptr.To(true),
			Selector:       &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"note": big}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sh", "-c", big}}}},
			},
		},
		Status: batchv1.JobStatus{Active: 1, Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}},
	}
	opts := CacheOptions()
	byObject, ok := opts.ByObject[&batchv1.Job{}]
	if !ok {
		for obj, o := range opts.ByObject {
			if _, isJob := obj.(*batchv1.Job); isJob {
				byObject, ok = o, true
			}
		}
	}
	if !ok || byObject.Transform == nil {
		t.Fatalf("CacheOptions().ByObject has no transform for Jobs: every Job of the cluster is cached whole")
	}
	got, err := byObject.Transform(job.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 4<<10 {
		t.Errorf("cached Job: %d bytes, want at most 4 KiB (its metadata and status), not the size of its template", len(raw))
	}
	want := job.DeepCopy()
	want.ManagedFields = nil
	want.Spec.Template = corev1.PodTemplateSpec{}
	want.Spec.Selector = nil
	want.Labels = map[string]string{cronjobv1.TriggerLabel: cronjobv1.TriggerManual}
	delete(want.Annotations, "kubectl.kubernetes.io/last-applied-configuration")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cached Job (-want,+got): all but the template, the selector, managedFields and foreign labels and annotations kept:\n%s", diff)
	}
}

func TestCacheOptionsKeepCronJobsAndRunsWhole(t *testing.T) {
	opts := CacheOptions()
	for obj := range opts.ByObject {
		if _, isJob := obj.(*batchv1.Job); !isJob {
			t.Errorf("CacheOptions().ByObject has an entry for %T: only Jobs are transformed beyond managedFields", obj)
		}
	}
	cj := &cronjobv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"}}}
	cj.Spec.JobTemplate.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox"}}
	got, err := opts.DefaultTransform(cj.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cj, got); diff != "" {
		t.Errorf("cached CronJob (-want,+got): kept whole:\n%s", diff)
	}
}
