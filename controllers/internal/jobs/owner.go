package jobs

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// ControllingCronJob returns the name of the CronJob of our group that controls obj (its controller owner
// reference), and false when none does: no controller, or one of another group or kind, such as a batch/v1
// CronJob.
func ControllingCronJob(obj metav1.Object) (string, bool) {
	owner := metav1.GetControllerOf(obj)
	if owner == nil || owner.APIVersion != cronjobv1.GroupVersion.String() || owner.Kind != "CronJob" {
		return "", false
	}
	return owner.Name, true
}

// Delete deletes job with background propagation, so its Pods go too, guarded by its UID when it has one,
// so a Job created again under the same name is not deleted in its place. A Job already gone is not an
// error: deleted is then false.
func Delete(ctx context.Context, c client.Writer, job *batchv1.Job) (deleted bool, err error) {
	opts := []client.DeleteOption{client.PropagationPolicy(metav1.DeletePropagationBackground)}
	if job.UID != "" {
		opts = append(opts, client.Preconditions{UID: &job.UID})
	}
	err = c.Delete(ctx, job, opts...)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("deleting job %s: %w", job.Name, err)
	}
	return true, nil
}

// CreateResult is what became of the create of a run's Job.
type CreateResult string

const (
	// Created: the Job was created.
	Created CreateResult = "Created"
	// Exists: a Job of that name exists and the CronJob controls it (a create whose status write was lost,
	// or another run of the same scheduled time): the caller adopts it.
	Exists CreateResult = "Exists"
	// Taken: a Job of that name exists and the CronJob does not control it (someone else's): the run
	// cannot start under its name; nothing is adopted.
	Taken CreateResult = "Taken"
	// NamespaceTerminating: the namespace is being deleted, so no Job can be created there.
	NamespaceTerminating CreateResult = "NamespaceTerminating"
	// Failed: the create failed with an API error, returned to retry.
	Failed CreateResult = "Failed"
	// Unread: a Job of that name exists and could not be read, to know whose it is; the error is returned
	// to retry.
	Unread CreateResult = "Unread"
)

// Create creates job, the Job of a run of cj, and classifies the result, as both reconcilers need it: a
// name that exists already is an idempotent success when the Job is cj's own (Exists, with that Job, read
// through reader, the API server, because the cache may not have it yet), and a stranger's otherwise
// (Taken, with that Job). err is set with Failed (wrapping the API error: "creating job <name>: <error>")
// and Unread.
func Create(ctx context.Context, c client.Writer, reader client.Reader, cj *cronjobv1.CronJob, job *batchv1.Job) (CreateResult, *batchv1.Job, error) {
	err := c.Create(ctx, job)
	if err == nil {
		return Created, job, nil
	}
	switch {
	case apierrors.IsAlreadyExists(err):
		existing := &batchv1.Job{}
		if err := reader.Get(ctx, client.ObjectKeyFromObject(job), existing); err != nil {
			return Unread, nil, fmt.Errorf("getting existing job %s: %w", job.Name, err)
		}
		if !IsOwnedBy(existing, cj) {
			return Taken, existing, nil
		}
		return Exists, existing, nil
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return NamespaceTerminating, job, nil
	default:
		return Failed, job, fmt.Errorf("creating job %s: %w", job.Name, err)
	}
}
