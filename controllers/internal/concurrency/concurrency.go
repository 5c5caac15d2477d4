package concurrency

import (
	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// Verdict is what the policy says about a run that is due.
type Verdict string

const (
	// Start: the run's Job may be created now.
	Start Verdict = "Start"
	// Replace: concurrencyPolicy Replace; the active Jobs are deleted, then the run's Job is created.
	Replace Verdict = "Replace"
	// Hold: the limit is reached; what becomes of the run is the caller's rule (a scheduled run is skipped,
	// or queued under Enqueue; a manual run waits).
	Hold Verdict = "Hold"
)

// Limit is how many Jobs of the CronJob may be active at once, and false when the policy sets none:
//   - Forbid: 1 (spec.maxActiveJobs does not apply);
//   - Enqueue: spec.maxActiveJobs, default 1;
//   - Allow (or unset): spec.maxActiveJobs, no limit when unset (batch/v1 has no such field);
//   - Replace: none; it deletes the active Jobs instead.
func Limit(spec *cronjobv1.CronJobSpec) (int32, bool) {
	switch spec.ConcurrencyPolicy {
	case cronjobv1.ReplaceConcurrent:
		return 0, false
	case cronjobv1.ForbidConcurrent:
		return 1, true
	case cronjobv1.EnqueueConcurrent:
		if spec.MaxActiveJobs == nil {
			return 1, true
		}
	}
	if spec.MaxActiveJobs == nil {
		return 0, false
	}
	return *spec.MaxActiveJobs, true
}

// Admit is the verdict for a run that is due while `active` Jobs of the CronJob are active and `ahead`
// runs wait before it, which take the free places first: Replace under Replace, else Start while
// active+ahead is below Limit (always, without a limit), else Hold.
func Admit(spec *cronjobv1.CronJobSpec, active, ahead int) Verdict {
	if spec.ConcurrencyPolicy == cronjobv1.ReplaceConcurrent {
		return Replace
	}
	if limit, ok := Limit(spec); ok && active+ahead >= int(limit) {
		return Hold
	}
	return Start
}
