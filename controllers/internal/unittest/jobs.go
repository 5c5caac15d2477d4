package unittest

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// CronJobOf returns the CronJob w builds, or Hourly()'s when w is nil.
func CronJobOf(w *builders.CronJobWrapper) *cronjobv1.CronJob {
	if w == nil {
		w = Hourly()
	}
	return w.Obj()
}

// JobName is the name of the Job of "hourly" for the run scheduled at slot.
func JobName(slot time.Time) string { return jobs.Name("hourly", slot) }

// HourlyJob is the Job of the CronJob "hourly" for the run scheduled at `slot`, as the controller creates
// it (name, scheduled-at annotation, controller owner reference), with the UID "uid-<name>", created and
// started at `slot`: to the controller, a running Job.
func HourlyJob(slot time.Time) *builders.JobWrapper {
	return builders.MakeJob(JobName(slot), Namespace).Label("app", "hourly").OwnedBy(Hourly().Obj()).
		ScheduledAt(slot.UTC()).UID(types.UID("uid-" + JobName(slot))).CreationTimestamp(slot).StartedAt(slot)
}

// RunningJob, DoneJob and FailedJob are Jobs of the CronJob "hourly", named for their scheduled time,
// created and started at that time; a finished one finishes a minute later.
func RunningJob(slot time.Time) *batchv1.Job { return HourlyJob(slot).Obj() }

// DoneJob is HourlyJob(slot), completed a minute after slot.
func DoneJob(slot time.Time) *batchv1.Job {
	return HourlyJob(slot).Succeeded(slot.Add(time.Minute)).Obj()
}

// FailedJob is HourlyJob(slot), failed a minute after slot.
func FailedJob(slot time.Time) *batchv1.Job {
	return HourlyJob(slot).Failed(slot.Add(time.Minute)).Obj()
}
