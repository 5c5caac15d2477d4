package cronjob

import (
	"cmp"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
)

// The run history (status.recentRuns, README "Run history"). An entry is added when a run starts, or when
// trackJobs first sees a Job that has none, and ended once, when its Job finishes, is deleted by a
// timeout or Replace, or goes missing; the counters (succeededRuns, failedRuns, consecutiveFailures) and
// runs_ended_total move at that one transition out of Running. All of it rides in the status write the
// reconcile makes anyway: a run's start or end changes status.active or a last*Time in that write too.

// historyCutoff is the start of the oldest finished entry of status.recentRuns, or zero when there is
// none. A finished Job without an entry that started before it is history the list let go of (the
// history limits may keep more Jobs than recentRunsLimit keeps entries): it is neither listed nor counted
// again. One that started after it is a run the list never had (a Job finished while the status write of
// its start was lost): it is listed and counted.
func historyCutoff(status *cronjobv1.CronJobStatus) time.Time {
	var cutoff time.Time
	for _, r := range status.RecentRuns {
		if r.Result != cronjobv1.RunResultRunning && (cutoff.IsZero() || r.StartTime.Time.Before(cutoff)) {
			cutoff = r.StartTime.Time
		}
	}
	return cutoff
}

// findRun returns the index of the entry of the Job named name in status.recentRuns, or -1.
func findRun(status *cronjobv1.CronJobStatus, name string) int {
	return slices.IndexFunc(status.RecentRuns, func(r cronjobv1.RunRecord) bool { return r.JobName == name })
}

// runRecord is a new Running entry for job, started (jobs.StartTime) and triggered as the Job tells, unless
// trigger is set. Times are kept to the second, as metav1.Time serializes them.
func runRecord(job *batchv1.Job, trigger cronjobv1.RunTrigger) cronjobv1.RunRecord {
	rec := cronjobv1.RunRecord{
		JobName:   job.Name,
		StartTime: metav1.NewTime(jobs.StartTime(job).Truncate(time.Second)),
		Result:    cronjobv1.RunResultRunning,
		Trigger:   trigger,
	}
	scheduled, err := time.Parse(time.RFC3339, job.Annotations[cronjobv1.ScheduledAtAnnotation])
	if err == nil {
		rec.ScheduledTime = ptr.To(metav1.NewTime(scheduled.UTC()))
	}
	if rec.Trigger == "" {
		rec.Trigger = cronjobv1.TriggeredBySchedule
		if job.Annotations[cronjobv1.CronJobRunAnnotation] != "" {
			rec.Trigger = cronjobv1.TriggeredByManual
			if rec.ScheduledTime != nil && job.Name == jobs.Name(controllerName(job), scheduled) {
				rec.Trigger = cronjobv1.TriggeredByBackfill
			}
		}
	}
	return rec
}

// controllerName is the name of the Job's controlling owner (its CronJob).
func controllerName(job *batchv1.Job) string {
	if ref := metav1.GetControllerOf(job); ref != nil {
		return ref.Name
	}
	return ""
}

// recordStart lists the run of job as Running, triggered by trigger, unless it is listed already.
func (s *syncer) recordStart(job *batchv1.Job, trigger cronjobv1.RunTrigger) {
	if findRun(&s.cj.Status, job.Name) >= 0 {
		return
	}
	s.cj.Status.RecentRuns = append(s.cj.Status.RecentRuns, runRecord(job, trigger))
}

// retrigger sets the trigger of the entry of the Job named name to trigger (CatchUp, Queue) when the entry
// has the one its Job tells (Schedule: the Job's trigger label says only schedule or manual). It is for a
// Job adopted as the run due (created by a reconcile whose status write was lost), which trackJobs listed
// before the decision said which run it is. A manual run's entry (Manual, Backfill) keeps its trigger.
func (s *syncer) retrigger(name string, trigger cronjobv1.RunTrigger) {
	i := findRun(&s.cj.Status, name)
	if i < 0 || trigger == "" || s.cj.Status.RecentRuns[i].Trigger != cronjobv1.TriggeredBySchedule {
		return
	}
	s.cj.Status.RecentRuns[i].Trigger = trigger
}

// followRun brings the entry of a Job of the cache up to date: a running Job gets a Running entry if it
// has none; a finished one ends its entry (endRun), or, with no entry, is listed and counted if it started
// after cutoff (historyCutoff, taken before this reconcile changed the list).
func (s *syncer) followRun(job *batchv1.Job, cutoff time.Time) {
	finished, how := jobs.Finished(job)
	i := findRun(&s.cj.Status, job.Name)
	if !finished {
		if i < 0 {
			s.recordStart(job, "")
		}
		return
	}
	if i < 0 {
		if !cutoff.IsZero() && !jobs.StartTime(job).Truncate(time.Second).After(cutoff) {
			return // history the list let go of
		}
		s.cj.Status.RecentRuns = append(s.cj.Status.RecentRuns, runRecord(job, ""))
	}
	if how == batchv1.JobComplete {
		s.endRun(job.Name, cronjobv1.RunResultSucceeded, "", endOf(job.Status.CompletionTime, s.now))
		return
	}
	reason := ""
	if c := jobs.FailedCondition(job); c != nil {
		reason = c.Reason
	}
	s.endRun(job.Name, cronjobv1.RunResultFailed, reason, endOf(jobs.FailedTime(job), s.now))
}

// endOf is t, or now when the Job does not say when it ended.
func endOf(t *metav1.Time, now time.Time) time.Time {
	if t == nil {
		return now
	}
	return t.Time
}

// endRun ends the Running entry of the Job named name with result and reason at end, and counts the run:
// once, as only a Running entry moves. A Job without an entry (gone before the controller listed it) gets
// none. Succeeded resets consecutiveFailures; a failure (failedResult) adds to it; Replaced and Deleted
// leave it. A run the controller ended by a timeout also moves lastFailureTime to end (a Job that failed
// on its own moves it in trackJobs, to its Failed condition's time).
func (s *syncer) endRun(name string, result cronjobv1.RunResult, reason string, end time.Time) {
	st := &s.cj.Status
	i := findRun(st, name)
	if i < 0 || st.RecentRuns[i].Result != cronjobv1.RunResultRunning {
		return
	}
	r := &st.RecentRuns[i]
	r.Result, r.Reason, r.EndTime = result, reason, ptr.To(metav1.NewTime(end.Truncate(time.Second)))
	switch {
	case result == cronjobv1.RunResultSucceeded:
		st.SucceededRuns++
		st.ConsecutiveFailures = 0
	case failedResult(result):
		st.FailedRuns++
		st.ConsecutiveFailures++
	}
	if result == cronjobv1.RunResultTimedOut || result == cronjobv1.RunResultNeverStarted {
		st.LastFailureTime = laterTime(st.LastFailureTime, r.EndTime)
	}
	s.r.Metrics.RunEnded(endedLabel[result])
}

// failedResult reports whether a run that ended so counts as failed: Failed, TimedOut or NeverStarted.
func failedResult(r cronjobv1.RunResult) bool {
	return r == cronjobv1.RunResultFailed || r == cronjobv1.RunResultTimedOut || r == cronjobv1.RunResultNeverStarted
}

// endedLabel is the runs_ended_total result of each RunResult.
var endedLabel = map[cronjobv1.RunResult]string{
	cronjobv1.RunResultSucceeded:    metrics.EndedSucceeded,
	cronjobv1.RunResultFailed:       metrics.EndedFailed,
	cronjobv1.RunResultTimedOut:     metrics.EndedTimedOut,
	cronjobv1.RunResultNeverStarted: metrics.EndedNeverStarted,
	cronjobv1.RunResultReplaced:     metrics.EndedReplaced,
	cronjobv1.RunResultDeleted:      metrics.EndedDeleted,
}

// boundHistory orders status.recentRuns newest first by start (then by Job name, so the order is stable)
// and keeps every Running entry (at most cronjobv1.MaxActiveListed, the oldest: those status.active lists)
// and the newest spec.recentRunsLimit finished ones.
func boundHistory(cj *cronjobv1.CronJob) {
	runs := cj.Status.RecentRuns
	if len(runs) == 0 {
		return
	}
	slices.SortStableFunc(runs, func(a, b cronjobv1.RunRecord) int {
		return cmp.Or(b.StartTime.Compare(a.StartTime.Time), strings.Compare(b.JobName, a.JobName))
	})
	limit := int(ptr.Deref(cj.Spec.RecentRunsLimit, cronjobv1.DefaultRecentRunsLimit))
	running := 0
	for _, r := range runs {
		if r.Result == cronjobv1.RunResultRunning {
			running++
		}
	}
	kept := make([]cronjobv1.RunRecord, 0, len(runs))
	finished := 0
	for _, r := range runs {
		if r.Result == cronjobv1.RunResultRunning {
			if running > cronjobv1.MaxActiveListed {
				running-- // the newest beyond the bound go first
				continue
			}
		} else {
			if finished >= limit {
				continue
			}
			finished++
		}
		kept = append(kept, r)
	}
	cj.Status.RecentRuns = kept
}
