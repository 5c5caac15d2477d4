package index

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
)

const (
	// JobOwnerKey indexes Jobs by the name of their controlling CronJob of our group (JobOwner).
	JobOwnerKey = ".metadata.controller"
	// RunCronJobKey indexes CronJobRuns by spec.cronJobName (RunCronJob).
	RunCronJobKey = ".spec.cronJobName"
	// CalendarKey indexes CronJobs by the names in spec.calendars (Calendars).
	CalendarKey = ".spec.calendars"
)

// Setup registers the indexes on the manager's field indexer; it must run before the manager starts.
func Setup(ctx context.Context, fi client.FieldIndexer) error {
	if err := fi.IndexField(ctx, &batchv1.Job{}, JobOwnerKey, JobOwner); err != nil {
		return fmt.Errorf("indexing jobs by owner: %w", err)
	}
	if err := fi.IndexField(ctx, &cronjobv1.CronJobRun{}, RunCronJobKey, RunCronJob); err != nil {
		return fmt.Errorf("indexing cronjobruns by cronjob: %w", err)
	}
	if err := fi.IndexField(ctx, &cronjobv1.CronJob{}, CalendarKey, Calendars); err != nil {
		return fmt.Errorf("indexing cronjobs by calendar: %w", err)
	}
	return nil
}

// Calendars is the CalendarKey index: the CronJob's spec.calendars.
func Calendars(obj client.Object) []string {
	return obj.(*cronjobv1.CronJob).Spec.Calendars
}

// JobOwner is the JobOwnerKey index: the name of the Job's controlling CronJob of our group, if any.
func JobOwner(obj client.Object) []string {
	if name, ok := jobs.ControllingCronJob(obj); ok {
		return []string{name}
	}
	return nil
}

// RunCronJob is the RunCronJobKey index: the run's spec.cronJobName.
func RunCronJob(obj client.Object) []string {
	return []string{obj.(*cronjobv1.CronJobRun).Spec.CronJobName}
}
