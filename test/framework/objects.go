package framework

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// The API server ignores status on create. These helpers create an object and then, when the built object
// has a status, write it through the status subresource, so a spec can start from any state (a CronJob that
// last ran at a fixed time, a Job that already finished). On return the object is the server's.

// CreateCronJob creates cj, then writes its status if it has one.
func CreateCronJob(ctx context.Context, c client.Client, cj *cronjobv1.CronJob) error {
	status := cj.Status.DeepCopy()
	if err := c.Create(ctx, cj); err != nil {
		return fmt.Errorf("creating CronJob %s: %w", cj.Name, err)
	}
	if equality.Semantic.DeepEqual(*status, cronjobv1.CronJobStatus{}) {
		return nil
	}
	cj.Status = *status
	if err := c.Status().Update(ctx, cj); err != nil {
		return fmt.Errorf("writing status of CronJob %s: %w", cj.Name, err)
	}
	return nil
}

// CreateJob creates job, then writes its status if it has one. Job status validation applies: build
// finished Jobs with builders.JobWrapper's Succeeded or Failed.
func CreateJob(ctx context.Context, c client.Client, job *batchv1.Job) error {
	status := job.Status.DeepCopy()
	if err := c.Create(ctx, job); err != nil {
		return fmt.Errorf("creating Job %s: %w", job.Name, err)
	}
	if equality.Semantic.DeepEqual(*status, batchv1.JobStatus{}) {
		return nil
	}
	job.Status = *status
	if err := c.Status().Update(ctx, job); err != nil {
		return fmt.Errorf("writing status of Job %s: %w", job.Name, err)
	}
	return nil
}
