package cronjob

import (
	"math"
	"testing"
	"time"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// TestMatrixRegressions holds the matrix scenarios that found bugs; each failed before its fix.
func TestMatrixRegressions(t *testing.T) {
	const pad = schedule.RequeuePadding
	scheduled := cronjobv1.ReasonScheduled
	startsOnTime := outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)},
		LastSchedule: TimePtr(TopOfTheHour), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
		Requeue: time.Hour - 5*time.Second + pad}
	adopted := outcome{Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), StatusWrites: 1,
		Ready: scheduled, Requeue: 59*time.Minute + pad}

	runMatrix(t, map[string]scenario{
		// startingDeadlineSeconds is "how late a run may start"; the CRD accepts any value >= 0. Beyond
		// 9223372036 s (292 years) time.Duration(seconds)*time.Second overflows in schedule.PlanRun, the window start
		// lands in the future, and a run 5 s late is reported missed (MissSchedule) and never starts.
		"is time, 5 s late, a 317-year deadline: starts (was: MissSchedule, nothing started)": {
			cronJob: Hourly().StartingDeadlineSeconds(10_000_000_000).LastScheduleTime(PriorHour), now: IsTime,
			want: startsOnTime,
		},
		"is time, 5 s late, the largest deadline the CRD accepts: starts (was: MissSchedule, nothing started)": {
			cronJob: Hourly().StartingDeadlineSeconds(math.MaxInt64).LastScheduleTime(PriorHour), now: IsTime,
			want: startsOnTime,
		},
		// startRun's godoc: "A Job of ours already named for the scheduled time is that run ... It is adopted
		// before the concurrency policy is applied, so that Forbid does not count the run as skipped and Replace
		// does not replace the run by itself." The lookup only searches the Job cache, so when the due run's
		// Job is in status.active (confirmed by the live GET in trackJobs) but not yet in the cache, and
		// lastScheduleTime is older (batch/v1's "this started but went missing" cases), Replace deletes the run
		// and creates it again, and Forbid reports it as skipped and leaves lastScheduleTime behind. Only a
		// status written by someone else (hand edit, restore) is this inconsistent: the controller writes
		// status.active and lastScheduleTime in one patch. Allow adopts it correctly (create meets AlreadyExists).
		"the 10:00 Job is in status.active, not in the cache, lastScheduleTime 09:00, a minute late, Replace: adopted (was: deleted and created again)": {
			cronJob:    Hourly().Replace().LastScheduleTime(PriorHour).Active(RunningJob(TopOfTheHour)),
			serverOnly: jobsOf(RunningJob(TopOfTheHour)), now: MinLate,
			want: adopted,
		},
		"the 10:00 Job is in status.active, not in the cache, lastScheduleTime 09:00, a minute late, Forbid: adopted (was: JobAlreadyActive)": {
			cronJob:    Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(TopOfTheHour)),
			serverOnly: jobsOf(RunningJob(TopOfTheHour)), now: MinLate,
			want: adopted,
		},
	})
}
