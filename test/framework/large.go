package framework

import (
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// LargeJob is a suspended Job (the Job controller starts no Pod for it) that no CronJob owns, whose pod
// template holds an environment variable of size bytes: what a tenant may create in its namespace to
// weigh on every controller that caches Jobs whole (the hostile-tenant suite, envtest and kind). An
// annotation could not carry it (an object's annotations hold 256 KiB in all); etcd's request limit,
// 1.5 MiB, bounds size.
func LargeJob(name, ns string, size int) *batchv1.Job {
	job := builders.MakeJob(name, ns).Obj()
	job.Spec.Suspend = ptr.To(true)
	c := &job.Spec.Template.Spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: "PAYLOAD", Value: strings.Repeat("x", size)})
	return job
}
