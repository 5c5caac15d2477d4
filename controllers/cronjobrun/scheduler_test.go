package cronjobrun

import (
	"slices"
	"testing"
	"time"

	"github.com/cronjob-operator/cronjob-operator/controllers/cronjob"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// The CronJob controller treats a manual run's Job as one of its own (status.active, history limits) but
// never as the run of a scheduled time: lastScheduleTime comes only from the scheduler's own runs, and a
// backfill of the due time is that time's run.

// scheduledState is what the CronJob controller recorded, and the Jobs there are.
type scheduledState struct {
	Jobs         []string
	Active       []string
	LastSchedule time.Time
}

func (f *runFixture) scheduledState(t *testing.T) scheduledState {
	t.Helper()
	cj := f.cronJob(t)
	st := scheduledState{Jobs: f.jobNames(t)}
	for _, ref := range cj.Status.Active {
		st.Active = append(st.Active, ref.Name)
	}
	if cj.Status.LastScheduleTime != nil {
		st.LastSchedule = cj.Status.LastScheduleTime.UTC()
	}
	return st
}

func TestRunNowNeverSkipsNorDuplicatesTheScheduledRun(t *testing.T) {
	for caseName, ranAt := range map[string]time.Time{
		"run now at 09:30":                     HM(9, 30),
		"run now at 10:00:00, the due instant": TopOfTheHour,
	} {
		t.Run(caseName, func(t *testing.T) {
			t.Parallel()
			f := newRunFixture(t, ranAt, interceptor.Funcs{}, Hourly().LastScheduleTime(PriorHour).Obj(), manualRun().CreationTimestamp(ranAt).Obj())
			f.mustReconcileRun(t, "manual")
			f.reconcileCronJob(t)
			if ranAt.Before(TopOfTheHour) {
				want := scheduledState{Jobs: []string{manualJob}, Active: []string{manualJob}, LastSchedule: PriorHour}
				if diff := cmp.Diff(want, f.scheduledState(t)); diff != "" {
					t.Errorf("before the hour (-want,+got): the manual Job is active, lastScheduleTime unchanged:\n%s", diff)
				}
			}

			f.clock.SetTime(IsTime)
			f.reconcileCronJob(t)
			f.reconcileCronJob(t)
			want := scheduledState{
				Jobs:   sortedNames(manualJob, JobName(TopOfTheHour)),
				Active: []string{manualJob, JobName(TopOfTheHour)}, LastSchedule: TopOfTheHour,
			}
			if diff := cmp.Diff(want, f.scheduledState(t), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("after the hour (-want,+got): one scheduled Job beside the manual one:\n%s", diff)
			}
		})
	}
}

func TestBackfillOfTheDueTimeIsThatTimesOnlyJob(t *testing.T) {
	t.Run("backfill first, then the scheduler", func(t *testing.T) {
		f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().LastScheduleTime(PriorHour).Obj(), manualRun().ScheduledTime(TopOfTheHour).Obj())
		f.mustReconcileRun(t, "manual")
		if out := f.reconcileCronJob(t); out.Run != cronjob.RunAdopted {
			t.Errorf("scheduler's run at 10:00 = %q, want Adopted: the backfill's Job is that run", out.Run)
		}
		want := scheduledState{Jobs: []string{JobName(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)}, LastSchedule: TopOfTheHour}
		if diff := cmp.Diff(want, f.scheduledState(t)); diff != "" {
			t.Errorf("(-want,+got):\n%s", diff)
		}
	})
	t.Run("the scheduler first, then the backfill", func(t *testing.T) {
		f := newRunFixture(t, IsTime, interceptor.Funcs{}, Hourly().LastScheduleTime(PriorHour).Obj(), manualRun().ScheduledTime(TopOfTheHour).Obj())
		f.reconcileCronJob(t)
		f.eventReasons()
		f.mustReconcileRun(t, "manual")
		run := f.run(t, "manual")
		if run.Status.JobName != JobName(TopOfTheHour) || run.Status.Phase != cronjobv1.RunRunning || readyReason(run) != cronjobv1.ReasonJobExisted {
			t.Errorf("run status = %s %s %s, want %s Running %s", run.Status.JobName, run.Status.Phase, readyReason(run), JobName(TopOfTheHour), cronjobv1.ReasonJobExisted)
		}
		if diff := cmp.Diff([]string{JobName(TopOfTheHour)}, f.jobNames(t)); diff != "" {
			t.Errorf("Jobs (-want,+got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"Normal JobExisted"}, f.eventReasons()); diff != "" {
			t.Errorf("events (-want,+got): the run reports the Job it did not create:\n%s", diff)
		}
	})
}

// sortedNames returns the names, sorted.
func sortedNames(names ...string) []string {
	out := append([]string(nil), names...)
	slices.Sort(out)
	return out
}
