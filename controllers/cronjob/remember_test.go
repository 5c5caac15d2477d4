package cronjob

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/conflict"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// hourlyKey is the key of the test CronJob.
var hourlyKey = types.NamespacedName{Namespace: Namespace, Name: "hourly"}

// outcomeOf reconciles the fixture's CronJob once and returns the Outcome.
func (f *fixture) outcome() Outcome {
	return f.r.reconcile(context.Background(), ctrl.Request{NamespacedName: hourlyKey})
}

// setTime moves the fixture's clock.
func (f *fixture) setTime(t time.Time) { f.r.Clock.(*clocktesting.FakePassiveClock).SetTime(t) }

// editSpec changes the stored CronJob's spec the way a user's update does (the generation goes up).
func (f *fixture) editSpec(t *testing.T, edit func(*cronjobv1.CronJob)) {
	t.Helper()
	cj := f.cronJob(t)
	edit(cj)
	cj.Generation++
	if err := f.client.Update(context.Background(), cj); err != nil {
		t.Fatal(err)
	}
}

// TestWarningsOncePerCause pins that a Warning is reported once per cause however often the CronJob is
// reconciled (its Jobs' events trigger reconciles all the time), and again when the cause is new: a new
// generation of a bad spec, a new missed or failed scheduled time.
func TestWarningsOncePerCause(t *testing.T) {
	t.Run("an unknown time zone: once per generation", func(t *testing.T) {
		f := newFixture(t, IsTime, interceptor.Funcs{}, Hourly().TimeZone("Mars/Phobos").Obj())
		for range 3 {
			if out := f.outcome(); out.Err != nil || out.RequeueAfter != 0 {
				t.Fatalf("Outcome = %+v, want no error and no requeue (a user error)", out)
			}
		}
		if diff := cmp.Diff([]string{evUnknownZone}, f.eventReasons()); diff != "" {
			t.Errorf("events of three reconciles (-want,+got):\n%s", diff)
		}
		f.editSpec(t, func(cj *cronjobv1.CronJob) { cj.Spec.JobTemplate.Labels = map[string]string{"edited": "yes"} })
		f.outcome()
		f.outcome()
		if diff := cmp.Diff([]string{evUnknownZone}, f.eventReasons()); diff != "" {
			t.Errorf("events after an edit that left the zone unknown (-want,+got):\n%s", diff)
		}
	})

	t.Run("a run past its deadline: once per missed scheduled time", func(t *testing.T) {
		f := newFixture(t, MinLate, interceptor.Funcs{}, Hourly().StartingDeadlineSeconds(shortDeadline).LastScheduleTime(PriorHour).Obj())
		for range 3 {
			if out := f.outcome(); out.Run != RunMissed || !out.Scheduled.Equal(TopOfTheHour) {
				t.Fatalf("Outcome = %+v, want the 10:00 run missed", out)
			}
		}
		if diff := cmp.Diff([]string{evMissed}, f.eventReasons()); diff != "" {
			t.Errorf("events of three reconciles at 10:01 (-want,+got):\n%s", diff)
		}
		f.setTime(TopOfTheHour.Add(time.Hour + time.Minute))
		if out := f.outcome(); out.Run != RunMissed || !out.Scheduled.Equal(TopOfTheHour.Add(time.Hour)) {
			t.Fatalf("Outcome = %+v, want the 11:00 run missed", out)
		}
		if diff := cmp.Diff([]string{evMissed}, f.eventReasons()); diff != "" {
			t.Errorf("events at 11:01, the 11:00 run missed too (-want,+got):\n%s", diff)
		}
	})

	t.Run("a create that fails: retried, but reported once per scheduled time", func(t *testing.T) {
		f := newFixture(t, IsTime, createFails(errInternal), Hourly().LastScheduleTime(PriorHour).Obj())
		for range 3 {
			out := f.outcome()
			if out.Run != RunFailed || out.Err == nil {
				t.Fatalf("Outcome = %+v, want the run failed with an error to retry", out)
			}
		}
		if diff := cmp.Diff([]string{evFailedCreate}, f.eventReasons()); diff != "" {
			t.Errorf("events of three failed creates of the 10:00 run (-want,+got):\n%s", diff)
		}
		f.setTime(IsTime.Add(time.Hour))
		f.outcome()
		if diff := cmp.Diff([]string{evFailedCreate}, f.eventReasons()); diff != "" {
			t.Errorf("events of the failed create of the 11:00 run (-want,+got):\n%s", diff)
		}
	})
}

// calls counts the calls a reconcile makes about Jobs: creates (attempted) and live GETs.
type calls struct{ creates, liveGets atomic.Int32 }

// countingReader counts the GETs of Jobs through r.
type countingReader struct {
	client.Reader
	gets *atomic.Int32
}

func (c countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*batchv1.Job); ok {
		c.gets.Add(1)
	}
	return c.Reader.Get(ctx, key, obj, opts...)
}

// TestBlockedRun pins what happens to a run whose Job name a Job of someone else holds: one create, one live
// GET and one FailedCreate, then nothing more on later reconciles until that Job changes or goes (the watch
// maps its events to the CronJob) or the CronJob's spec changes; then the run is tried again, and starts.
func TestBlockedRun(t *testing.T) {
	stranger := RunningJob(TopOfTheHour)
	stranger.OwnerReferences = nil
	stranger.UID = "stranger-uid"
	// A Job of ours whose events trigger reconciles.
	ours := RunningJob(PriorHour)

	setup := func(t *testing.T) (*fixture, *calls) {
		t.Helper()
		var n calls
		f := newFixture(t, IsTime, interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				n.creates.Add(1)
				return c.Create(ctx, obj, opts...)
			},
		}, Hourly().LastScheduleTime(PriorHour).Active(ours).Obj(), stranger, ours)
		f.r.APIReader = countingReader{Reader: f.client, gets: &n.liveGets}
		return f, &n
	}
	expectBlocked := func(t *testing.T, f *fixture, n *calls, out Outcome, creates, gets int32, events []string) {
		t.Helper()
		if out.Run != RunBlocked || out.Job != stranger.Name || out.Err != nil {
			t.Errorf("Outcome = %+v, want the run blocked by %s, no error", out, stranger.Name)
		}
		if got := n.creates.Load(); got != creates {
			t.Errorf("creates so far = %d, want %d", got, creates)
		}
		if got := n.liveGets.Load(); got != gets {
			t.Errorf("live GETs of Jobs so far = %d, want %d", got, gets)
		}
		if diff := cmp.Diff(events, f.eventReasons()); diff != "" {
			t.Errorf("events (-want,+got):\n%s", diff)
		}
		cond := meta.FindStatusCondition(f.cronJob(t).Status.Conditions, cronjobv1.ConditionReady)
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != cronjobv1.ReasonFailedCreate {
			t.Errorf("Ready = %+v, want False, FailedCreate", cond)
		}
	}

	t.Run("reconciled again and again: tried once", func(t *testing.T) {
		f, n := setup(t)
		expectBlocked(t, f, n, f.outcome(), 1, 1, []string{evFailedCreate})
		for range 3 {
			out := f.outcome()
			expectBlocked(t, f, n, out, 1, 1, []string{})
			if out.Status != StatusUnchanged {
				t.Errorf("Outcome.Status = %q, want no status write", out.Status)
			}
		}
		want := []reconcile.Request{{NamespacedName: hourlyKey}}
		if diff := cmp.Diff(want, f.r.blocked.cronJobsBlockedBy(context.Background(), stranger)); diff != "" {
			t.Errorf("CronJobs reconciled on an event of the blocking Job (-want,+got):\n%s", diff)
		}
		if got := f.r.blocked.cronJobsBlockedBy(context.Background(), ours); got != nil {
			t.Errorf("CronJobs reconciled on an event of another Job = %v, want none", got)
		}
	})

	t.Run("the blocking Job deleted: the run starts", func(t *testing.T) {
		f, n := setup(t)
		f.outcome()
		if err := f.client.Delete(context.Background(), stranger.DeepCopy()); err != nil {
			t.Fatal(err)
		}
		out := f.outcome()
		if out.Run != RunCreated || out.Job != stranger.Name || n.creates.Load() != 2 {
			t.Errorf("Outcome = %+v after %d creates, want the run created by the second create", out, n.creates.Load())
		}
		if got := f.r.blocked.cronJobsBlockedBy(context.Background(), stranger); got != nil {
			t.Errorf("CronJobs reconciled on an event of a Job that blocks nothing now = %v, want none", got)
		}
	})

	t.Run("the blocking Job changed: tried once more, still blocked, no second warning", func(t *testing.T) {
		f, n := setup(t)
		expectBlocked(t, f, n, f.outcome(), 1, 1, []string{evFailedCreate})
		changed := &batchv1.Job{}
		if err := f.client.Get(context.Background(), client.ObjectKeyFromObject(stranger), changed); err != nil {
			t.Fatal(err)
		}
		changed.Labels = map[string]string{"touched": "yes"}
		if err := f.client.Update(context.Background(), changed); err != nil {
			t.Fatal(err)
		}
		expectBlocked(t, f, n, f.outcome(), 2, 2, []string{})
		expectBlocked(t, f, n, f.outcome(), 2, 2, []string{})
	})

	t.Run("the CronJob's spec changed: tried once more", func(t *testing.T) {
		f, n := setup(t)
		expectBlocked(t, f, n, f.outcome(), 1, 1, []string{evFailedCreate})
		f.editSpec(t, func(cj *cronjobv1.CronJob) { cj.Spec.JobTemplate.Labels = map[string]string{"edited": "yes"} })
		expectBlocked(t, f, n, f.outcome(), 2, 2, []string{})
	})

	t.Run("the CronJob deleted: the block is forgotten", func(t *testing.T) {
		f, _ := setup(t)
		f.outcome()
		if err := f.client.Delete(context.Background(), f.cronJob(t)); err != nil {
			t.Fatal(err)
		}
		if out := f.outcome(); out.Err != nil || out.Run != RunNone {
			t.Errorf("Outcome = %+v, want nothing for a CronJob that is gone", out)
		}
		if got := f.r.blocked.cronJobsBlockedBy(context.Background(), stranger); got != nil {
			t.Errorf("CronJobs reconciled on an event of the Job = %v, want none", got)
		}
	})
}

// TestReconcileOutcome pins what Reconcile hands to OnReconcile and returns.
func TestReconcileOutcome(t *testing.T) {
	conflicted := interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return apierrors.NewConflict(cronjobv1.GroupVersion.WithResource("cronjobs").GroupResource(), obj.GetName(), fmt.Errorf("the object has been modified"))
		},
	}
	cases := map[string]struct {
		funcs   interceptor.Funcs
		cronJob *builders.CronJobWrapper // nil: Hourly()
		jobs    []client.Object
		now     time.Time
		want    Outcome
	}{
		"is time: the run's Job created, status written, requeued for 11:00": {
			now:  IsTime,
			want: Outcome{Run: RunCreated, Scheduled: TopOfTheHour, Job: JobName(TopOfTheHour), Status: StatusWritten, RequeueAfter: time.Hour - 5*time.Second + schedule.RequeuePadding},
		},
		"is time, the status write conflicts: the Job created, requeued shortly, no error": {
			funcs: conflicted, now: IsTime,
			want: Outcome{Run: RunCreated, Scheduled: TopOfTheHour, Job: JobName(TopOfTheHour), Status: StatusConflicted, RequeueAfter: conflict.RequeueDelay},
		},
		"is time, the run's Job exists already: adopted": {
			jobs: []client.Object{RunningJob(TopOfTheHour)}, now: IsTime,
			want: Outcome{Run: RunAdopted, Scheduled: TopOfTheHour, Job: JobName(TopOfTheHour), Status: StatusWritten, RequeueAfter: time.Hour - 5*time.Second + schedule.RequeuePadding},
		},
		"is time, Forbid, the 09:00 Job active: skipped": {
			cronJob: Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)),
			jobs:    []client.Object{RunningJob(PriorHour)}, now: IsTime,
			want: Outcome{Status: StatusWritten, Run: RunSkipped, Scheduled: TopOfTheHour, Job: JobName(TopOfTheHour), RequeueAfter: time.Hour - 5*time.Second + schedule.RequeuePadding},
		},
		"is time, Replace, the 09:00 Job active: deleted, the run's Job created": {
			cronJob: Hourly().Replace().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)),
			jobs:    []client.Object{RunningJob(PriorHour)}, now: IsTime,
			want: Outcome{Run: RunCreated, Scheduled: TopOfTheHour, Job: JobName(TopOfTheHour), Deleted: []string{JobName(PriorHour)},
				Status: StatusWritten, RequeueAfter: time.Hour - 5*time.Second + schedule.RequeuePadding},
		},
		"not time yet, nothing changed: nothing due, nothing written": {
			now:  BeforeHour,
			want: Outcome{RequeueAfter: time.Minute + schedule.RequeuePadding},
		},
	}
	for caseName, tc := range cases {
		t.Run(caseName, func(t *testing.T) {
			cj := CronJobOf(tc.cronJob)
			var cached []*batchv1.Job
			for _, o := range tc.jobs {
				if j, ok := o.(*batchv1.Job); ok {
					cached = append(cached, j)
				}
			}
			steadyStatus(cj, cached...)
			f := newFixture(t, tc.now, tc.funcs, append([]client.Object{cj}, tc.jobs...)...)
			var observed []Outcome
			f.r.OnReconcile = func(key types.NamespacedName, out Outcome) {
				if key != hourlyKey {
					t.Errorf("OnReconcile key = %v, want %v", key, hourlyKey)
				}
				observed = append(observed, out)
			}
			res, err := f.reconcile(t)
			if err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			if diff := cmp.Diff([]Outcome{tc.want}, observed); diff != "" {
				t.Errorf("outcomes handed to OnReconcile (-want,+got):\n%s", diff)
			}
			if res.RequeueAfter != tc.want.RequeueAfter {
				t.Errorf("RequeueAfter = %v, want the Outcome's %v", res.RequeueAfter, tc.want.RequeueAfter)
			}
		})
	}

	t.Run("no live reader: an error, never the cache", func(t *testing.T) {
		f := newFixture(t, IsTime, interceptor.Funcs{}, Hourly().Obj())
		f.r.APIReader = nil
		if _, err := f.reconcile(t); err == nil {
			t.Fatal("Reconcile without an APIReader succeeded, want an error")
		}
		if diff := cmp.Diff([]string{}, f.jobNames(t)); diff != "" {
			t.Errorf("Jobs (-want,+got):\n%s", diff)
		}
	})
}
