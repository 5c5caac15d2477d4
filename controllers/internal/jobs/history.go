package jobs

import (
	"cmp"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// BeyondHistory returns the finished Jobs to delete so that at most successfulJobsHistoryLimit
// successful and failedJobsHistoryLimit failed Jobs remain (defaults 3 and 1, as in batch/v1). The oldest
// go first. Age is the Job's status.startTime, or its creationTimestamp when it never started (batch/v1
// instead treats a Job with no start time as the newest and never prunes it); ties are broken by name,
// so the order is stable. Active Jobs are never returned.
func BeyondHistory(cj *cronjobv1.CronJob, jobs []*batchv1.Job) []*batchv1.Job {
	var succeeded, failed []*batchv1.Job
	for _, job := range jobs {
		switch _, how := Finished(job); how {
		case batchv1.JobComplete:
			succeeded = append(succeeded, job)
		case batchv1.JobFailed:
			failed = append(failed, job)
		}
	}
	okLimit := ptr.Deref(cj.Spec.SuccessfulJobsHistoryLimit, cronjobv1.DefaultSuccessfulJobsHistoryLimit)
	failLimit := ptr.Deref(cj.Spec.FailedJobsHistoryLimit, cronjobv1.DefaultFailedJobsHistoryLimit)
	return append(oldestBeyond(succeeded, int(okLimit)), oldestBeyond(failed, int(failLimit))...)
}

// oldestBeyond sorts jobs oldest first and returns all but the newest `keep`.
func oldestBeyond(jobs []*batchv1.Job, keep int) []*batchv1.Job {
	if keep < 0 {
		keep = 0
	}
	if len(jobs) <= keep {
		return nil
	}
	slices.SortStableFunc(jobs, func(a, b *batchv1.Job) int {
		return cmp.Or(jobAge(a).Time.Compare(jobAge(b).Time), cmp.Compare(a.Name, b.Name))
	})
	return jobs[:len(jobs)-keep]
}

// jobAge is the time a Job is ordered by in the history: its start time, else its creation time.
func jobAge(job *batchv1.Job) *metav1.Time {
	if job.Status.StartTime != nil {
		return job.Status.StartTime
	}
	return &job.CreationTimestamp
}
