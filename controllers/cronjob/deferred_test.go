package cronjob

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// fakeRecordQueue is a RecordQueue with `waiting` requests ready; it records what is added.
type fakeRecordQueue struct {
	waiting int
	added   []reconcile.Request // by AddLast
	given   []reconcile.Request // by Add
}

func (q *fakeRecordQueue) Len() int                      { return q.waiting }
func (q *fakeRecordQueue) AddLast(req reconcile.Request) { q.added = append(q.added, req) }
func (q *fakeRecordQueue) Add(req reconcile.Request)     { q.given = append(q.given, req) }

// busyFixture is the fixture of Hourly() at 10:00:02, its 10:00 run due, with `waiting` other reconciles
// in the queue.
func busyFixture(t *testing.T, waiting int) (*fixture, *fakeRecordQueue) {
	t.Helper()
	f := newFixture(t, TopOfTheHour.Add(2*time.Second), interceptor.Funcs{}, Hourly().Obj())
	q := &fakeRecordQueue{waiting: waiting}
	f.r.Queue = q
	return f, q
}

// recorded is what the stored CronJob's status says of the runs: lastScheduleTime and status.active.
type recorded struct {
	LastSchedule *metav1.Time
	Active       []string
}

func recordOf(cj *cronjobv1.CronJob) recorded {
	r := recorded{LastSchedule: cj.Status.LastScheduleTime}
	for _, ref := range cj.Status.Active {
		r.Active = append(r.Active, ref.Name)
	}
	return r
}

func TestJobsFirstDefersTheRecordWhileOthersWaitAndWritesItNext(t *testing.T) {
	f, q := busyFixture(t, 3)

	first := f.outcome()
	if first.Run != RunCreated || first.Status != StatusDeferred || first.RequeueAfter != 0 || first.Err != nil {
		t.Fatalf("first reconcile = %+v, want the Job created and the status deferred, no RequeueAfter", first)
	}
	if diff := cmp.Diff([]reconcile.Request{{NamespacedName: hourlyKey}}, q.added); diff != "" {
		t.Errorf("requests put back behind the waiting ones (-want,+got):\n%s", diff)
	}
	if got := recordOf(f.cronJob(t)); got.LastSchedule != nil || got.Active != nil {
		t.Errorf("stored status after the first reconcile = %+v, want nothing recorded yet", got)
	}
	if got := f.eventReasons(); len(got) != 0 {
		t.Errorf("events of the first reconcile = %v, want none: SuccessfulCreate waits for the record, to go out after the Jobs", got)
	}

	// The next reconcile writes the record, though the queue is still busy: one unrecorded run at most.
	second := f.outcome()
	if second.Run != RunNone || second.Status != StatusWritten || second.Err != nil {
		t.Fatalf("second reconcile = %+v, want no run due and the status written", second)
	}
	if want := time.Hour - 2*time.Second + schedule.RequeuePadding; second.RequeueAfter != want {
		t.Errorf("second reconcile RequeueAfter = %v, want %v (the 11:00 run)", second.RequeueAfter, want)
	}
	want := recorded{LastSchedule: TimePtr(TopOfTheHour), Active: []string{JobName(TopOfTheHour)}}
	if diff := cmp.Diff(want, recordOf(f.cronJob(t))); diff != "" {
		t.Errorf("stored status after the second reconcile (-want,+got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{JobName(TopOfTheHour)}, f.jobNames(t)); diff != "" {
		t.Errorf("Jobs (-want,+got):\n%s", diff)
	}
	if len(q.added) != 1 {
		t.Errorf("requests put back = %d, want 1: the second reconcile writes", len(q.added))
	}
	if diff := cmp.Diff([]string{"Normal SuccessfulCreate"}, f.eventReasons()); diff != "" {
		t.Errorf("events of the second reconcile (-want,+got):\n%s", diff)
	}
	if third := f.outcome(); third.Status != StatusUnchanged || third.Run != RunNone {
		t.Errorf("third reconcile = %+v, want nothing to do", third)
	}
}

func TestJobsFirstWritesAtOnceWhenNothingWaits(t *testing.T) {
	f, q := busyFixture(t, 0)
	out := f.outcome()
	if out.Run != RunCreated || out.Status != StatusWritten {
		t.Fatalf("reconcile = %+v, want the Job created and the status written in the same reconcile", out)
	}
	if len(q.added) != 0 {
		t.Errorf("requests put back = %v, want none", q.added)
	}
	if diff := cmp.Diff([]string{"Normal SuccessfulCreate"}, f.eventReasons()); diff != "" {
		t.Errorf("events (-want,+got):\n%s", diff)
	}
	want := recorded{LastSchedule: TimePtr(TopOfTheHour), Active: []string{JobName(TopOfTheHour)}}
	if diff := cmp.Diff(want, recordOf(f.cronJob(t))); diff != "" {
		t.Errorf("stored status (-want,+got):\n%s", diff)
	}
}

func TestJobsFirstRecordSurvivesWhatHappensBeforeIt(t *testing.T) {
	cases := []struct {
		name string
		// between happens after the first reconcile deferred the record; it returns the reconciler that
		// runs the second reconcile.
		between  func(t *testing.T, f *fixture) *Reconciler
		wantRun  RunOutcome
		want     recorded
		wantJobs []string
	}{{
		name: "the process restarts: a new reconciler adopts the Job by its name",
		between: func(_ *testing.T, f *fixture) *Reconciler {
			return &Reconciler{Client: f.client, APIReader: f.client, Scheme: f.r.Scheme, Clock: f.r.Clock, Recorder: f.recorder}
		},
		wantRun:  RunAdopted,
		want:     recorded{LastSchedule: TimePtr(TopOfTheHour), Active: []string{JobName(TopOfTheHour)}},
		wantJobs: []string{JobName(TopOfTheHour)},
	}, {
		name: "the Job is deleted (ttlSecondsAfterFinished 0, or a user): the run is recorded, never started again",
		between: func(t *testing.T, f *fixture) *Reconciler {
			job := &batchv1.Job{}
			job.Namespace, job.Name = Namespace, JobName(TopOfTheHour)
			if err := f.client.Delete(context.Background(), job); err != nil {
				t.Fatal(err)
			}
			return f.r
		},
		wantRun:  RunNone,
		want:     recorded{LastSchedule: TimePtr(TopOfTheHour)},
		wantJobs: []string{},
	}, {
		name: "the spec is edited: the run is applied to the edited CronJob",
		between: func(t *testing.T, f *fixture) *Reconciler {
			f.editSpec(t, func(cj *cronjobv1.CronJob) { cj.Spec.StartingDeadlineSeconds = ptr.To[int64](600) })
			return f.r
		},
		wantRun:  RunNone,
		want:     recorded{LastSchedule: TimePtr(TopOfTheHour), Active: []string{JobName(TopOfTheHour)}},
		wantJobs: []string{JobName(TopOfTheHour)},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := busyFixture(t, 3)
			if out := f.outcome(); out.Status != StatusDeferred {
				t.Fatalf("first reconcile = %+v, want the status deferred", out)
			}
			r := tc.between(t, f)
			out := r.reconcile(context.Background(), reconcile.Request{NamespacedName: hourlyKey})
			if out.Run != tc.wantRun || out.Status != StatusWritten || out.Err != nil {
				t.Errorf("second reconcile = %+v, want run %q and the status written", out, tc.wantRun)
			}
			if diff := cmp.Diff(tc.want, recordOf(f.cronJob(t))); diff != "" {
				t.Errorf("stored status (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantJobs, f.jobNames(t)); diff != "" {
				t.Errorf("Jobs (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestCreateEventOfTheRunsJob(t *testing.T) {
	key := reconcile.Request{NamespacedName: hourlyKey}
	cases := []struct {
		name string
		// waiting is the queue's length; early delivers the create event before the create returns, as
		// the watch often does.
		waiting int
		early   bool
		// wantEarly is what the early event's predicate said (true: dropped); wantLater what a create
		// event after the reconcile is told, the first time.
		wantEarly, wantLater bool
		wantGiven            []reconcile.Request
	}{
		{name: "written at once, event after: it reconciles as any Job event", waiting: 0, wantLater: false},
		{name: "written at once, event before: dropped, then given back as a request", waiting: 0, early: true,
			wantEarly: true, wantGiven: []reconcile.Request{key}},
		{name: "deferred, event after: dropped", waiting: 3, wantLater: true},
		{name: "deferred, event before: dropped, not given back", waiting: 3, early: true, wantEarly: true, wantLater: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var gotEarly bool
			var f *fixture
			f = newFixture(t, TopOfTheHour.Add(2*time.Second), interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					err := c.Create(ctx, obj, opts...)
					if _, isJob := obj.(*batchv1.Job); isJob && err == nil && tc.early {
						gotEarly = f.r.expected.observed(obj)
					}
					return err
				},
			}, Hourly().Obj())
			q := &fakeRecordQueue{waiting: tc.waiting}
			f.r.Queue = q
			f.outcome()
			if gotEarly != tc.wantEarly {
				t.Errorf("early create event dropped = %v, want %v", gotEarly, tc.wantEarly)
			}
			var job batchv1.Job
			if err := f.client.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: JobName(TopOfTheHour)}, &job); err != nil {
				t.Fatal(err)
			}
			if f.r.expected.observed(RunningJob(PriorHour)) {
				t.Errorf("a Job the reconciler did not create was taken for its own")
			}
			if got := f.r.expected.observed(&job); got != tc.wantLater {
				t.Errorf("later create event dropped = %v, want %v", got, tc.wantLater)
			}
			if f.r.expected.observed(&job) {
				t.Errorf("a second create event of the same Job was dropped")
			}
			if diff := cmp.Diff(tc.wantGiven, q.given); diff != "" {
				t.Errorf("requests given back for a dropped event (-want,+got):\n%s", diff)
			}
		})
	}
	t.Run("deferred, then recorded: the expectation ends with the record's reconcile", func(t *testing.T) {
		f, _ := busyFixture(t, 3)
		f.outcome()
		f.outcome()
		var job batchv1.Job
		if err := f.client.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: JobName(TopOfTheHour)}, &job); err != nil {
			t.Fatal(err)
		}
		if f.r.expected.observed(&job) {
			t.Errorf("the expectation outlived the reconcile that wrote the record")
		}
	})
}
