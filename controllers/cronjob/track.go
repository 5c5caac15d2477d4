package cronjob

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
)

// trackJobs brings status.active, lastSuccessfulTime and lastFailureTime in line with the Jobs:
//   - a finished Job leaves status.active (SawCompletedJob);
//   - a running Job of ours missing from status.active joins it (a status write lost after a create, or a
//     cache newer than the status). batch/v1 only warns (UnexpectedJob) and leaves it out, so Forbid
//     could start a second Job; here it counts;
//   - a Job in status.active that the cache does not have is dropped only after a live GET confirms it is
//     gone (MissingJob), because the cache may simply not have seen it yet;
//   - lastSuccessfulTime and lastFailureTime follow the newest finished Jobs and never move back;
//   - status.recentRuns follows every Job (history.go), and the runs past a timeout end (timeout.go).
func (s *syncer) trackJobs(ctx context.Context) error {
	seen := make(map[types.UID]bool, len(s.jobs))
	cutoff := historyCutoff(&s.cj.Status)
	for _, job := range s.jobs {
		s.followRun(job, cutoff)
		seen[job.UID] = true
		finished, how := jobs.Finished(job)
		switch {
		case !finished:
			jobs.AddActive(&s.cj.Status, job)
		case jobs.InActive(&s.cj.Status, job.UID):
			jobs.RemoveActive(&s.cj.Status, job.UID)
			s.event(corev1.EventTypeNormal, cronjobv1.ReasonSawCompletedJob, "Track",
				"Saw completed job: %s, condition: %s", job.Name, how)
		}
		switch how {
		case batchv1.JobComplete:
			s.cj.Status.LastSuccessfulTime = laterTime(s.cj.Status.LastSuccessfulTime, job.Status.CompletionTime)
		case batchv1.JobFailed:
			s.cj.Status.LastFailureTime = laterTime(s.cj.Status.LastFailureTime, jobs.FailedTime(job))
		}
	}
	for _, ref := range append([]corev1.ObjectReference(nil), s.cj.Status.Active...) {
		if seen[ref.UID] {
			continue
		}
		var live batchv1.Job
		err := s.r.APIReader.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, &live)
		switch {
		case apierrors.IsNotFound(err) || (err == nil && live.UID != ref.UID):
			jobs.RemoveActive(&s.cj.Status, ref.UID)
			s.event(corev1.EventTypeNormal, cronjobv1.ReasonMissingJob, "Track", "Active job went missing: %s", ref.Name)
			s.endGone(ref.Name)
		case err != nil:
			return fmt.Errorf("getting active job %s: %w", ref.Name, err)
		case !jobs.IsOwnedBy(&live, s.cj):
			jobs.RemoveActive(&s.cj.Status, ref.UID)
			s.endGone(ref.Name)
			s.event(corev1.EventTypeWarning, cronjobv1.ReasonUnexpectedJob, "Track",
				"Job %s in status.active is not controlled by this CronJob; dropped it", ref.Name)
		default:
			// Present on the API server but not yet in the cache: keep it, and use what the server says.
			if finished, how := jobs.Finished(&live); finished {
				jobs.RemoveActive(&s.cj.Status, ref.UID)
				s.event(corev1.EventTypeNormal, cronjobv1.ReasonSawCompletedJob, "Track",
					"Saw completed job: %s, condition: %s", live.Name, how)
				s.followRun(&live, cutoff)
			}
		}
	}
	if err := s.endVanished(ctx); err != nil {
		return err
	}
	return s.endTimedOut(ctx)
}

// endGone ends the Running entry of a Job that went missing: Deleted (reason MissingJob), or the timeout
// it was past (goneResult), which is then a failure.
func (s *syncer) endGone(name string) {
	i := findRun(&s.cj.Status, name)
	if i < 0 || s.cj.Status.RecentRuns[i].Result != cronjobv1.RunResultRunning {
		return
	}
	result, reason := goneResult(&s.cj.Spec, s.cj.Status.RecentRuns[i].StartTime.Time, s.now)
	s.endRun(name, result, reason, s.now)
}

// endVanished ends the Running entries of Jobs that are neither in the cache nor in status.active (listed
// beyond its bound, or lost with a status write) once a live GET confirms they are gone. Usually there are
// none, and nothing is read.
func (s *syncer) endVanished(ctx context.Context) error {
	if !slices.ContainsFunc(s.cj.Status.RecentRuns, func(r cronjobv1.RunRecord) bool { return r.Result == cronjobv1.RunResultRunning }) {
		return nil
	}
	names := make(map[string]bool, len(s.jobs)+len(s.cj.Status.Active))
	for _, job := range s.jobs {
		names[job.Name] = true
	}
	for _, ref := range s.cj.Status.Active {
		names[ref.Name] = true
	}
	for _, r := range append([]cronjobv1.RunRecord(nil), s.cj.Status.RecentRuns...) {
		if r.Result != cronjobv1.RunResultRunning || names[r.JobName] {
			continue
		}
		var live batchv1.Job
		err := s.r.APIReader.Get(ctx, types.NamespacedName{Namespace: s.cj.Namespace, Name: r.JobName}, &live)
		switch {
		case apierrors.IsNotFound(err) || (err == nil && !jobs.IsOwnedBy(&live, s.cj)):
			s.endGone(r.JobName)
		case err != nil:
			return fmt.Errorf("getting job %s of status.recentRuns: %w", r.JobName, err)
		default:
			s.followRun(&live, time.Time{}) // not in the cache yet: the server says how it stands
		}
	}
	return nil
}

// pruneHistory deletes the finished Jobs beyond the history limits, oldest first, with background
// propagation so their Pods go too. It runs even when the CronJob is suspended, as in batch/v1.
func (s *syncer) pruneHistory(ctx context.Context) error {
	for _, job := range jobs.BeyondHistory(s.cj, s.jobs) {
		if err := s.deleteJob(ctx, job, metrics.DeletedHistory); err != nil {
			return err
		}
	}
	return nil
}

// deleteJob deletes a Job with background propagation, guarded by its UID, and counts it under reason
// (jobs_deleted_total). A Job already gone is fine, and not counted.
func (s *syncer) deleteJob(ctx context.Context, job *batchv1.Job, reason string) error {
	deleted, err := jobs.Delete(ctx, s.r.Client, job)
	if err != nil {
		s.event(corev1.EventTypeWarning, cronjobv1.ReasonFailedDelete, "Delete", "Error deleting job %s: %v", job.Name, errors.Unwrap(err))
		return err
	}
	if !deleted {
		return nil
	}
	ctrl.LoggerFrom(ctx).Info("Deleted Job", "job", klog.KObj(job))
	s.out.Deleted = append(s.out.Deleted, job.Name)
	s.r.Metrics.JobDeleted(reason)
	s.event(corev1.EventTypeNormal, cronjobv1.ReasonSuccessfulDelete, "Delete", "Deleted job %s", job.Name)
	return nil
}
