package cronjob

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// planStep is one reconcile of the plan tests: the clock, then what the user sees after it.
type planStep struct {
	at         time.Time
	before     func(t *testing.T, f *fixture) // an edit before the reconcile, if any
	wantJobs   []string
	wantEvents []string
	wantReady  string // the Ready condition's reason
	wantNext   time.Time
	wantWake   time.Duration // RequeueAfter; 0 means none
}

func runPlanSteps(t *testing.T, f *fixture, steps []planStep) {
	t.Helper()
	for i, st := range steps {
		f.setTime(st.at)
		if st.before != nil {
			st.before(t, f)
		}
		out := f.outcome()
		if out.Err != nil {
			t.Fatalf("step %d at %s: %v", i, st.at.Format(time.TimeOnly), out.Err)
		}
		cj := f.cronJob(t)
		got := planStep{wantJobs: f.jobNames(t), wantEvents: f.eventReasons(), wantWake: out.RequeueAfter}
		if c := meta.FindStatusCondition(cj.Status.Conditions, cronjobv1.ConditionReady); c != nil {
			got.wantReady = c.Reason
		}
		if cj.Status.NextScheduleTime != nil {
			got.wantNext = cj.Status.NextScheduleTime.UTC()
		}
		want := st
		want.at, want.before = time.Time{}, nil
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(planStep{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("step %d at %s (-want,+got):\n%s", i, st.at.Format(time.TimeOnly), diff)
		}
	}
}

// setHolidays edits the stored CronCalendar "holidays" to exclude the given dates instead.
func (f *fixture) setHolidays(t *testing.T, dates ...string) {
	t.Helper()
	var cal cronjobv1.CronCalendar
	if err := f.client.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: "holidays"}, &cal); err != nil {
		t.Fatal(err)
	}
	cal.Spec.ExcludeDates = dates
	if err := f.client.Update(context.Background(), &cal); err != nil {
		t.Fatal(err)
	}
}

// holidaysCalendar is the CronCalendar "holidays" that excludes the given dates (YYYY-MM-DD, UTC).
func holidaysCalendar(dates ...string) *cronjobv1.CronCalendar {
	return &cronjobv1.CronCalendar{
		ObjectMeta: metav1.ObjectMeta{Name: "holidays", Namespace: Namespace},
		Spec:       cronjobv1.CronCalendarSpec{ExcludeDates: dates},
	}
}

func TestPlannedRuns(t *testing.T) {
	const pad = 10 * time.Millisecond
	cases := map[string]struct {
		cj    *builders.CronJobWrapper
		objs  []client.Object
		steps []planStep
	}{
		"two schedules meeting at 10:00 start one Job, then each of their own": {
			cj: Hourly().Schedules("0 10 * * *", "0 10,11 * * * @ UTC"),
			steps: []planStep{
				{at: IsTime, wantJobs: []string{JobName(HM(10, 0))}, wantEvents: []string{"Normal SuccessfulCreate"},
					wantReady: "Scheduled", wantNext: HM(11, 0), wantWake: HM(11, 0).Sub(IsTime) + pad},
				{at: HM(11, 0).Add(5 * time.Second), wantJobs: []string{JobName(HM(10, 0)), JobName(HM(11, 0))}, wantEvents: []string{"Normal SuccessfulCreate"},
					wantReady: "Scheduled", wantNext: MustTime("2026-03-03T10:00:00Z"), wantWake: MustTime("2026-03-03T10:00:00Z").Sub(HM(11, 0).Add(5*time.Second)) + pad},
			},
		},
		"a time the calendar excludes starts nothing and is reported once; the controller wakes for the next": {
			cj:   Hourly().Calendars("holidays"),
			objs: []client.Object{holidaysCalendar("2026-03-02")},
			steps: []planStep{
				{at: IsTime, wantEvents: []string{"Normal ExcludedByCalendar"}, wantReady: "Scheduled",
					wantNext: MustTime("2026-03-03T00:00:00Z"), wantWake: HM(11, 0).Sub(IsTime) + pad},
				{at: IsTime.Add(time.Second), wantReady: "Scheduled",
					wantNext: MustTime("2026-03-03T00:00:00Z"), wantWake: HM(11, 0).Sub(IsTime.Add(time.Second)) + pad},
				{at: MustTime("2026-03-03T00:00:05Z"), wantJobs: []string{JobName(MustTime("2026-03-03T00:00:00Z"))},
					wantEvents: []string{"Normal ExcludedByCalendar", "Normal ExcludedByCalendar", "Normal ExcludedByCalendar", "Normal ExcludedByCalendar", "Normal ExcludedByCalendar", "Normal ExcludedByCalendar", "Normal ExcludedByCalendar", "Normal ExcludedByCalendar", "Normal ExcludedByCalendar", "Normal ExcludedByCalendar", "Normal ExcludedByCalendar", "Normal SuccessfulCreate"},
					wantReady:  "Scheduled", wantNext: MustTime("2026-03-03T01:00:00Z"), wantWake: time.Hour - 5*time.Second + pad},
			},
		},
		"a missing calendar holds every run; its creation re-plans with no surprise run": {
			cj: Hourly().Calendars("holidays"),
			steps: []planStep{
				{at: IsTime, wantEvents: []string{"Warning CalendarNotFound"}, wantReady: "CalendarNotFound"},
				{at: IsTime.Add(time.Minute), before: func(t *testing.T, f *fixture) {
					if err := f.client.Create(context.Background(), holidaysCalendar("2026-12-25")); err != nil {
						t.Fatal(err)
					}
				}, wantReady: "Scheduled", wantNext: HM(11, 0), wantWake: HM(11, 0).Sub(IsTime.Add(time.Minute)) + pad},
				{at: HM(11, 0).Add(time.Second), wantJobs: []string{JobName(HM(11, 0))}, wantEvents: []string{"Normal SuccessfulCreate"},
					wantReady: "Scheduled", wantNext: HM(12, 0), wantWake: time.Hour - time.Second + pad},
			},
		},
		"suspendUntil: nothing before it, a wakeup at it for Ready, no surprise run, the first time after it runs": {
			cj: Hourly().SuspendUntil(HM(10, 30)),
			steps: []planStep{
				{at: IsTime, wantReady: "SuspendedUntil", wantNext: HM(11, 0), wantWake: HM(10, 30).Sub(IsTime) + pad},
				{at: HM(10, 30), wantReady: "Scheduled", wantNext: HM(11, 0), wantWake: 30*time.Minute + pad},
				{at: HM(11, 0).Add(time.Second), wantJobs: []string{JobName(HM(11, 0))}, wantEvents: []string{"Normal SuccessfulCreate"},
					wantReady: "Scheduled", wantNext: HM(12, 0), wantWake: time.Hour - time.Second + pad},
			},
		},
		"an active window that ended: no run, no warning, no wakeup": {
			cj: Hourly().ActiveWindow(time.Time{}, HM(9, 30)),
			steps: []planStep{
				{at: IsTime, wantReady: "ActiveWindowEnded"},
			},
		},
		"an active window that starts later: nothing before it, its first time runs": {
			cj: Hourly().ActiveWindow(HM(11, 0), time.Time{}),
			steps: []planStep{
				{at: IsTime, wantReady: "Scheduled", wantNext: HM(11, 0), wantWake: HM(11, 0).Sub(IsTime) + pad},
				{at: HM(11, 0), wantJobs: []string{JobName(HM(11, 0))}, wantEvents: []string{"Normal SuccessfulCreate"},
					wantReady: "Scheduled", wantNext: HM(12, 0), wantWake: time.Hour + pad},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, IsTime, interceptor.Funcs{}, append(tc.objs, tc.cj.Obj())...)
			runPlanSteps(t, f, tc.steps)
		})
	}
}

// TestCalendarChangeStartsNoSurpriseRun pins "editing a calendar re-plans with no surprise run" when the
// API server has timed the CronJob's own last edit (managedFields) long before the calendar changes: a
// calendar's change takes effect when the controller sees it, so the times it no longer excludes that are
// already past do not start, and the next one does.
func TestCalendarChangeStartsNoSurpriseRun(t *testing.T) {
	for name, change := range map[string]func(t *testing.T, f *fixture){
		"the calendar edited to exclude only a date in 2030": func(t *testing.T, f *fixture) { f.setHolidays(t, "2030-01-01") },
		"the calendar deleted (then missing: nothing starts at all)": func(t *testing.T, f *fixture) {
			if err := f.client.Delete(context.Background(), holidaysCalendar()); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			cj := Hourly().Calendars("holidays").Edited(edit(CreationTime, "f:schedule", "f:calendars"))
			f := newFixture(t, IsTime, interceptor.Funcs{}, cj.Obj(), holidaysCalendar("2026-03-02"))
			f.r.APIReader = withManagedFields(f.client, cj.Obj())
			f.setTime(IsTime)
			if out := f.outcome(); out.Err != nil {
				t.Fatal(out.Err)
			}
			f.setTime(HM(12, 30))
			change(t, f)
			if out := f.outcome(); out.Err != nil {
				t.Fatal(out.Err)
			}
			if jobs := f.jobNames(t); len(jobs) != 0 {
				t.Errorf("Jobs %v after the change at 12:30: 10:00, 11:00 and 12:00 were excluded when due and must not start now", jobs)
			}
			if since := f.cronJob(t).Status.ObservedSchedule.Since.UTC(); !since.Equal(HM(12, 30)) {
				t.Errorf("observedSchedule.since = %s, want 12:30, when the controller saw the change", since)
			}
		})
	}
	t.Run("the CronJob's own edit keeps its recorded time", func(t *testing.T) {
		obs := &cronjobv1.ObservedSchedule{Schedule: "0 * * * *", Plan: planDigest(&Hourly().Calendars("a").Obj().Spec, nil), Since: metav1.NewTime(PriorHour)}
		cj := Hourly().Calendars("a", "b").Obj()
		cj.Status.ObservedSchedule = obs
		observeSchedule(cj, HM(12, 30), HM(11, 10), planDigest(&cj.Spec, nil))
		if since := cj.Status.ObservedSchedule.Since.UTC(); !since.Equal(HM(11, 10)) {
			t.Errorf("since = %s after spec.calendars was edited at 11:10, want 11:10", since)
		}
	})
}

func TestNeverFiresNamesWhatToFix(t *testing.T) {
	cases := map[string]struct {
		cj   *builders.CronJobWrapper
		objs []client.Object
		want string
	}{
		"two schedules, neither with a date": {
			cj:   Hourly().Schedules("0 0 31 2 *", "0 0 30 2 *"),
			want: `spec.schedules ("0 0 31 2 *", "0 0 30 2 *") has no scheduled time in the next five years (a date that does not exist, such as 31 February?): fix spec.schedules`,
		},
		"a minutely schedule a calendar excludes for a year": {
			cj:   Hourly().Schedule("* * * * *").Calendars("freeze"),
			objs: []client.Object{&cronjobv1.CronCalendar{ObjectMeta: metav1.ObjectMeta{Name: "freeze", Namespace: Namespace}, Spec: cronjobv1.CronCalendarSpec{ExcludeRanges: []cronjobv1.CalendarRange{{Start: "2026-01-01", End: "2026-12-31"}}}}},
			want: `spec.schedule "* * * * *" has no scheduled time that its calendars (freeze) do not exclude, in the next five years or the next 100800 times: fix spec.schedule or the calendars`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, IsTime, interceptor.Funcs{}, append(tc.objs, tc.cj.Obj())...)
			if out := f.outcome(); out.Err != nil {
				t.Fatal(out.Err)
			}
			c := meta.FindStatusCondition(f.cronJob(t).Status.Conditions, cronjobv1.ConditionReady)
			if c == nil || c.Reason != cronjobv1.ReasonScheduleNeverFires || c.Message != tc.want {
				t.Errorf("Ready %+v, want ScheduleNeverFires with %q", c, tc.want)
			}
		})
	}
}

// TestUnionFeedsTheFeatures runs catch-up, the queue and jitter over the union of two schedules: each
// counts the union's times, an instant of both once.
func TestUnionFeedsTheFeatures(t *testing.T) {
	const pad = 10 * time.Millisecond
	union := func() *builders.CronJobWrapper {
		return Hourly().Schedules("0 * * * *", "30 * * * *", "0,30 */2 * * *")
	}
	cases := map[string]struct {
		cj    *builders.CronJobWrapper
		objs  []client.Object
		steps []planStep
	}{
		"catch-up (missedRunPolicy All, at most 3) after 08:00: 09:00, 09:30 and 10:00 start, oldest first, 08:30 is dropped": {
			cj: union().CatchUp(3).LastScheduleTime(HM(8, 0)),
			steps: []planStep{
				{at: HM(10, 5), wantJobs: []string{JobName(HM(9, 0))}, wantEvents: []string{"Warning MissedRunsDropped", "Normal SuccessfulCreate"},
					wantReady: "Scheduled", wantNext: HM(10, 30), wantWake: pad},
				{at: HM(10, 5), wantJobs: []string{JobName(HM(9, 0)), JobName(HM(9, 30))}, wantEvents: []string{"Normal SuccessfulCreate"},
					wantReady: "Scheduled", wantNext: HM(10, 30), wantWake: pad},
				{at: HM(10, 5), wantJobs: []string{JobName(HM(9, 0)), JobName(HM(9, 30)), JobName(HM(10, 0))}, wantEvents: []string{"Normal SuccessfulCreate"},
					wantReady: "Scheduled", wantNext: HM(10, 30), wantWake: 25*time.Minute + pad},
			},
		},
		"Enqueue: 10:30, of the second schedule, waits behind the 10:00 Job and starts when it ends": {
			cj:   union().Enqueue().LastScheduleTime(HM(10, 0)),
			objs: []client.Object{RunningJob(HM(10, 0))},
			steps: []planStep{
				{at: HM(10, 30), wantJobs: []string{JobName(HM(10, 0))}, wantEvents: []string{"Normal Queued"},
					wantReady: "Scheduled", wantNext: HM(11, 0), wantWake: 30*time.Minute + pad},
				{at: HM(10, 40), before: func(t *testing.T, f *fixture) { f.completeJob(t, JobName(HM(10, 0)), HM(10, 40)) },
					wantJobs: []string{JobName(HM(10, 0)), JobName(HM(10, 30))}, wantEvents: []string{"Normal SawCompletedJob", "Normal SuccessfulCreate"},
					wantReady: "Scheduled", wantNext: HM(11, 0), wantWake: 20*time.Minute + pad},
			},
		},
	}
	// Jitter: the union's 10:30 run is delayed by the CronJob's own delay, within the 30 minutes to 11:00.
	cj := union().JitterSeconds(1500).LastScheduleTime(HM(10, 0))
	delay := schedule.JitterDelay(string(cj.Obj().UID), 1500, HM(10, 30), HM(11, 0))
	if delay <= 0 || delay >= 25*time.Minute {
		t.Fatalf("jitter delay %v: want within (0, 1500 s)", delay)
	}
	start := HM(10, 30).Add(delay)
	cases["jitter: the 10:30 run of the second schedule starts at its delay, not before"] = struct {
		cj    *builders.CronJobWrapper
		objs  []client.Object
		steps []planStep
	}{cj: cj, steps: []planStep{
		{at: start.Add(-time.Second), wantReady: "Scheduled", wantNext: start, wantWake: time.Second + pad},
		{at: start, wantJobs: []string{JobName(HM(10, 30))}, wantEvents: []string{"Normal SuccessfulCreate"}, wantReady: "Scheduled",
			wantNext: HM(11, 0).Add(schedule.JitterDelay(string(cj.Obj().UID), 1500, HM(11, 0), HM(11, 30))),
			wantWake: HM(11, 0).Add(schedule.JitterDelay(string(cj.Obj().UID), 1500, HM(11, 0), HM(11, 30))).Sub(start) + pad},
	}}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, IsTime, interceptor.Funcs{}, append(tc.objs, tc.cj.Obj())...)
			runPlanSteps(t, f, tc.steps)
		})
	}
}

// completeJob marks the Job of that name Complete at done, as the Job controller would.
func (f *fixture) completeJob(t *testing.T, name string, done time.Time) {
	t.Helper()
	var job batchv1.Job
	if err := f.client.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: name}, &job); err != nil {
		t.Fatal(err)
	}
	if err := f.client.Status().Update(context.Background(), builders.FromJob(&job).Succeeded(done).Obj()); err != nil {
		t.Fatal(err)
	}
}

// TestCalendarReadErrorKeepsThePlan: a calendar that cannot be read for a while (not NotFound) leaves the
// observed plan as it was, so that its later edit is still seen as a calendar's change: no surprise run.
func TestCalendarReadErrorKeepsThePlan(t *testing.T) {
	failing := false
	funcs := interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
		if _, ok := obj.(*cronjobv1.CronCalendar); ok && failing {
			return apierrors.NewServiceUnavailable("etcd is slow")
		}
		return c.Get(ctx, key, obj, opts...)
	}}
	cj := Hourly().Calendars("holidays").Edited(edit(CreationTime, "f:schedule", "f:calendars"))
	f := newFixture(t, IsTime, funcs, cj.Obj(), holidaysCalendar("2026-03-02"))
	f.r.APIReader = withManagedFields(f.client, cj.Obj())
	_ = f.outcome()
	plan := f.cronJob(t).Status.ObservedSchedule.Plan
	f.setTime(HM(11, 30))
	failing = true
	_ = f.outcome()
	if got := f.cronJob(t).Status.ObservedSchedule.Plan; got != plan {
		t.Errorf("plan %q after a failed read, want %q kept", got, plan)
	}
	failing = false
	f.setHolidays(t, "2030-01-01")
	f.setTime(HM(12, 30))
	if out := f.outcome(); out.Err != nil {
		t.Fatal(out.Err)
	}
	if jobs := f.jobNames(t); len(jobs) != 0 {
		t.Errorf("Jobs %v: the times the calendar excluded when due must not start after its edit", jobs)
	}
}
