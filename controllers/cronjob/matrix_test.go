package cronjob

import (
	"fmt"
	"testing"
	"time"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// matrixHistory is what ran before the reconcile, in the batch/v1 suite's terms.
type matrixHistory struct {
	label  string
	ran    bool // the 09:00 run started: lastScheduleTime is 09:00 and its Job is in status.active
	active bool // ... and its Job is still running (else it completed at 09:01, unseen so far)
}

// TestMatrixHistoryTimePolicy is the cross product of the batch/v1 suite (TestControllerV2SyncCronJob):
// history × time × starting deadline × concurrency policy, for the hourly CronJob. The expectations come
// from hourlyRules, which restates the rules of README "Semantics"; the case names read
// "<history>, <time>, <deadline>, <policy>".
func TestMatrixHistoryTimePolicy(t *testing.T) {
	histories := []matrixHistory{
		{label: "never ran"},
		{label: "prev ran but done", ran: true},
		{label: "still active", ran: true, active: true},
	}
	times := []struct {
		label string
		now   time.Time
	}{
		{"not time yet", BeforeHour},
		{"is time", IsTime},
		{"a minute late", MinLate},
		{"a week late", WeekLate},
	}
	deadlines := []struct {
		label   string
		seconds *int64
	}{
		{"", nil},
		{"10 s", ptrTo(shortDeadline)},
		{"2 h", ptrTo(mediumDeadline)},
		{"11 days", ptrTo(longDeadline)},
	}
	policies := []cronjobv1.ConcurrencyPolicy{cronjobv1.AllowConcurrent, cronjobv1.ForbidConcurrent, cronjobv1.ReplaceConcurrent}

	cases := map[string]scenario{}
	for _, h := range histories {
		for _, tm := range times {
			for _, d := range deadlines {
				for _, p := range policies {
					sc := scenario{now: tm.now, cronJob: Hourly().ConcurrencyPolicy(p)}
					if d.seconds != nil {
						sc.cronJob.StartingDeadlineSeconds(*d.seconds)
					}
					if h.ran {
						job := DoneJob(PriorHour)
						if h.active {
							job = RunningJob(PriorHour)
						}
						sc.cronJob.LastScheduleTime(PriorHour).Active(job)
						sc.jobs = append(sc.jobs, job)
					}
					var dueState string
					sc.want, dueState = hourlyRules(h, tm.now, d.seconds, p)

					dl := "no deadline"
					switch {
					case d.seconds == nil:
					case dueState == "":
						dl = "with a " + d.label + " deadline"
					default:
						dl = dueState + " a " + d.label + " deadline"
					}
					cases[fmt.Sprintf("%s, %s, %s, %s", h.label, tm.label, dl, p)] = sc
				}
			}
		}
	}
	if len(cases) != 144 {
		t.Fatalf("%d cases, want 3 histories × 4 times × 4 deadlines × 3 policies = 144", len(cases))
	}
	runMatrix(t, cases)
}

// hourlyRules is the oracle of TestMatrixHistoryTimePolicy: what README "Semantics" says one reconcile at
// `now` does for the hourly CronJob created at 09:00 whose previous run (if h.ran) was scheduled at 09:00.
// dueState is "" when no run is due, else "within" or "past" (the starting deadline).
//
//   - the run to start is the most recent scheduled time in (max(lastScheduleTime or creation,
//     now - deadline), now]; a run exactly at the deadline still starts; past the deadline: MissSchedule;
//   - more than 100 unmet times: TooManyMissedTimes, and the most recent one starts;
//   - Forbid skips while a Job is active (JobAlreadyActive); Replace deletes the active Jobs first;
//   - a finished Job in status.active leaves it (SawCompletedJob) and sets lastSuccessfulTime;
//   - status is written once, only if it changed (schedule.Next changes once a scheduled time has passed,
//     whether its run started or not); the requeue is the next scheduled time + 10 ms.
func hourlyRules(h matrixHistory, now time.Time, deadline *int64, p cronjobv1.ConcurrencyPolicy) (want outcome, dueState string) {
	earliest := PriorHour           // lastScheduleTime, or the creation time when it never ran
	slot := now.Truncate(time.Hour) // the most recent scheduled time at or before now
	inWindow := func(s time.Time) bool {
		return s.After(earliest) && (deadline == nil || now.Sub(s) <= time.Duration(*deadline)*time.Second)
	}
	unmet := 0
	for s := slot; inWindow(s); s = s.Add(-time.Hour) {
		unmet++
	}

	want.Ready = cronjobv1.ReasonScheduled
	want.Requeue = slot.Add(time.Hour).Sub(now) + 10*time.Millisecond
	changed := false
	var active []string
	if h.ran {
		want.LastSchedule = TimePtr(PriorHour)
		if h.active {
			active = []string{JobName(PriorHour)}
		} else {
			want.Events = append(want.Events, evSawCompleted)
			want.LastSuccessful = TimePtr(PriorHour.Add(time.Minute))
			changed = true
		}
	}

	if slot.After(earliest) {
		changed = true // a scheduled time passed: status.nextScheduleTime moves to the next one
	}
	switch {
	case !slot.After(earliest):
		// not time yet
	case !inWindow(slot):
		dueState = "past"
		want.Events = append(want.Events, evMissed)
	default:
		dueState = "within"
		if unmet > 100 {
			want.Events = append(want.Events, evTooMany)
		}
		if p == cronjobv1.ForbidConcurrent && len(active) > 0 {
			want.Events = append(want.Events, evAlreadyActive)
			break
		}
		if p == cronjobv1.ReplaceConcurrent {
			for _, a := range active {
				want.Deleted = append(want.Deleted, a)
				want.Events = append(want.Events, evDeleted)
			}
			active = nil
		}
		want.Created = []createdJob{newRun(slot)}
		want.Events = append(want.Events, evCreated)
		active = append(active, JobName(slot))
		want.LastSchedule = TimePtr(slot)
		changed = true
	}
	want.Active = active
	if changed {
		want.StatusWrites = 1
	}
	return want, dueState
}

func ptrTo[T any](v T) *T { return &v }
