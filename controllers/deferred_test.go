package controllers

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
)

// fakeRecordQueue is a RecordQueue with `waiting` requests ready; it records what is added.
type fakeRecordQueue struct {
	waiting int
	added   []reconcile.Request
}

func (q *fakeRecordQueue) Len() int                      { return q.waiting }
func (q *fakeRecordQueue) AddLast(req reconcile.Request) { q.added = append(q.added, req) }

// busyFixture is the fixture of hourly() at 10:00:02, its 10:00 run due, with `waiting` other reconciles
// in the queue.
func busyFixture(t *testing.T, waiting int) (*fixture, *fakeRecordQueue) {
	t.Helper()
	f := newFixture(t, topOfTheHour.Add(2*time.Second), interceptor.Funcs{}, hourly().Obj())
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
	if diff := cmp.Diff([]string{"Normal SuccessfulCreate"}, f.eventReasons()); diff != "" {
		t.Errorf("events of the first reconcile (-want,+got):\n%s", diff)
	}

	// The next reconcile writes the record, though the queue is still busy: one unrecorded run at most.
	second := f.outcome()
	if second.Run != RunNone || second.Status != StatusWritten || second.Err != nil {
		t.Fatalf("second reconcile = %+v, want no run due and the status written", second)
	}
	if want := time.Hour - 2*time.Second + requeuePadding; second.RequeueAfter != want {
		t.Errorf("second reconcile RequeueAfter = %v, want %v (the 11:00 run)", second.RequeueAfter, want)
	}
	want := recorded{LastSchedule: timePtr(topOfTheHour), Active: []string{name(topOfTheHour)}}
	if diff := cmp.Diff(want, recordOf(f.cronJob(t))); diff != "" {
		t.Errorf("stored status after the second reconcile (-want,+got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{name(topOfTheHour)}, f.jobNames(t)); diff != "" {
		t.Errorf("Jobs (-want,+got):\n%s", diff)
	}
	if len(q.added) != 1 {
		t.Errorf("requests put back = %d, want 1: the second reconcile writes", len(q.added))
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
	want := recorded{LastSchedule: timePtr(topOfTheHour), Active: []string{name(topOfTheHour)}}
	if diff := cmp.Diff(want, recordOf(f.cronJob(t))); diff != "" {
		t.Errorf("stored status (-want,+got):\n%s", diff)
	}
}

func TestJobsFirstRecordSurvivesWhatHappensBeforeIt(t *testing.T) {
	cases := []struct {
		name string
		// between happens after the first reconcile deferred the record; it returns the reconciler that
		// runs the second reconcile.
		between  func(t *testing.T, f *fixture) *CronJobReconciler
		wantRun  RunOutcome
		want     recorded
		wantJobs []string
	}{{
		name: "the process restarts: a new reconciler adopts the Job by its name",
		between: func(_ *testing.T, f *fixture) *CronJobReconciler {
			return &CronJobReconciler{Client: f.client, APIReader: f.client, Scheme: f.r.Scheme, Clock: f.r.Clock, Recorder: f.recorder}
		},
		wantRun:  RunAdopted,
		want:     recorded{LastSchedule: timePtr(topOfTheHour), Active: []string{name(topOfTheHour)}},
		wantJobs: []string{name(topOfTheHour)},
	}, {
		name: "the Job is deleted (ttlSecondsAfterFinished 0, or a user): the run is recorded, never started again",
		between: func(t *testing.T, f *fixture) *CronJobReconciler {
			job := &batchv1.Job{}
			job.Namespace, job.Name = testNamespace, name(topOfTheHour)
			if err := f.client.Delete(context.Background(), job); err != nil {
				t.Fatal(err)
			}
			return f.r
		},
		wantRun:  RunNone,
		want:     recorded{LastSchedule: timePtr(topOfTheHour)},
		wantJobs: []string{},
	}, {
		name: "the spec is edited: the run is applied to the edited CronJob",
		between: func(t *testing.T, f *fixture) *CronJobReconciler {
			f.editSpec(t, func(cj *cronjobv1.CronJob) { cj.Spec.StartingDeadlineSeconds = ptr.To[int64](600) })
			return f.r
		},
		wantRun:  RunNone,
		want:     recorded{LastSchedule: timePtr(topOfTheHour), Active: []string{name(topOfTheHour)}},
		wantJobs: []string{name(topOfTheHour)},
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

func TestExpectedCreateEventOnlyOfADeferredRecord(t *testing.T) {
	jobOf := func(t *testing.T, f *fixture) *batchv1.Job {
		t.Helper()
		var job batchv1.Job
		if err := f.client.Get(context.Background(), client.ObjectKey{Namespace: testNamespace, Name: name(topOfTheHour)}, &job); err != nil {
			t.Fatal(err)
		}
		return &job
	}
	t.Run("written at once: the create event reconciles, as any Job event", func(t *testing.T) {
		f, _ := busyFixture(t, 0)
		f.outcome()
		if f.r.expected.observed(jobOf(t, f)) {
			t.Errorf("the create event of a Job whose run was recorded at once was dropped")
		}
	})
	t.Run("deferred: the first create event of that Job is dropped, no other", func(t *testing.T) {
		f, _ := busyFixture(t, 3)
		f.outcome()
		if f.r.expected.observed(runningJob(priorHour)) {
			t.Errorf("a Job the reconciler did not create was taken for its own")
		}
		job := jobOf(t, f)
		if !f.r.expected.observed(job) {
			t.Errorf("the create event of the Job whose record is deferred was not recognised: it would lift the CronJob ahead of those due")
		}
		if f.r.expected.observed(job) {
			t.Errorf("a second create event of the same Job was taken for the expected one")
		}
	})
	t.Run("deferred, then recorded: the expectation ends with the record's reconcile", func(t *testing.T) {
		f, _ := busyFixture(t, 3)
		f.outcome()
		f.outcome()
		if f.r.expected.observed(jobOf(t, f)) {
			t.Errorf("the expectation outlived the reconcile that wrote the record")
		}
	})
}
