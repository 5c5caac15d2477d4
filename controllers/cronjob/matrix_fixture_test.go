package cronjob

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// Deadlines of the matrix, in seconds: the short, medium and long deadlines of the batch/v1 suite.
const (
	shortDeadline  int64 = 10
	mediumDeadline int64 = 2 * 60 * 60
	longDeadline   int64 = 1000000 // over 11 days
)

// suspendedMessage is the message of the Ready condition of a suspended CronJob (sync.go), needed to build
// the status a previous reconcile would have left.
const suspendedMessage = "spec.suspend is true: no new runs start"

// scenario is one reconcile of the CronJob "hourly".
type scenario struct {
	// spec and status: Hourly() and what the case changes, such as Hourly().Forbid().LastScheduleTime(PriorHour);
	// nil is Hourly() as it is. steadyStatus then fills in what an earlier reconcile would have written
	// (observedSchedule, the Ready condition), so that a status write means that something changed. The
	// scenario only reads it (Obj copies), so cases can share one builder.
	cronJob *builders.CronJobWrapper
	// environment
	jobs       []*batchv1.Job // Jobs in the cache (and on the API server)
	serverOnly []*batchv1.Job // Jobs on the API server that the cache has not seen yet (read through APIReader)
	now        time.Time
	funcs      interceptor.Funcs // fault injection; the recording wrappers go around them
	twice      bool              // reconcile once before, at the same time: the outcome is the second one's
	// expectations
	want          outcome
	wantNext      *metav1.Time // status.nextScheduleTime after the reconcile; nil: not checked
	wantNextUnset bool         // status.nextScheduleTime must be unset after the reconcile
}

// outcome is what one reconcile did. Time fields are compared with metav1.Time.Equal.
type outcome struct {
	Created        []createdJob // Jobs created, in order
	Deleted        []string     // Jobs deleted, in order
	Active         []string     // status.active, sorted
	LastSchedule   *metav1.Time
	LastSuccessful *metav1.Time
	LastFailure    *metav1.Time
	Queued         []time.Time // status.queued, scheduled times in order
	Events         []string    // "Type Reason", in order
	StatusWrites   int         // status writes sent (updates of the status subresource)
	Ready          string      // reason of the Ready condition
	Requeue        time.Duration
	Err            bool
}

// createdJob is a created Job: its name and its scheduled-at annotation.
type createdJob struct {
	Name        string
	ScheduledAt string
}

// newRun is the Job created for the run scheduled at `slot` of a CronJob in UTC.
func newRun(slot time.Time) createdJob { return newRunIn(slot, time.UTC) }

// newRunIn is the Job created for the run scheduled at `slot` of a CronJob in time zone loc.
func newRunIn(slot time.Time, loc *time.Location) createdJob {
	return createdJob{Name: JobName(slot), ScheduledAt: slot.In(loc).Format(time.RFC3339)}
}

// runMatrix runs each scenario as a parallel subtest and compares its outcome with the expected one.
func runMatrix(t *testing.T, cases map[string]scenario) {
	t.Helper()
	for caseName, sc := range cases {
		t.Run(caseName, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(sc.want, sc.run(t), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("outcome (-want,+got):\n%s", diff)
			}
		})
	}
}

// run reconciles the scenario's CronJob once (twice with sc.twice) and returns what the last reconcile did.
func (sc scenario) run(t *testing.T) outcome {
	t.Helper()
	cj := CronJobOf(sc.cronJob)
	steadyStatus(cj, sc.jobs...)
	objs := []client.Object{cj}
	for _, j := range sc.jobs {
		objs = append(objs, j.DeepCopy())
	}
	var server client.Client
	if len(sc.serverOnly) > 0 {
		all := append([]client.Object(nil), objs[1:]...)
		for _, j := range sc.serverOnly {
			all = append(all, j.DeepCopy())
		}
		server = fake.NewClientBuilder().WithScheme(Scheme()).WithRESTMapper(RESTMapper()).
			WithObjectTracker(clienttesting.NewObjectTracker(Scheme(), Codecs().UniversalDecoder())).
			WithObjects(all...).Build()
	}

	var got outcome
	f := newFixture(t, sc.now, recording(sc.funcs, server, &got), objs...)
	if server != nil {
		f.r.APIReader = server
	}
	f.r.APIReader = withManagedFields(f.r.APIReader, cj)
	if sc.twice {
		_, _ = f.reconcile(t)
		f.eventReasons()
		got = outcome{}
	}
	res, err := f.reconcile(t)
	got.Requeue, got.Err, got.Events = res.RequeueAfter, err != nil, f.eventReasons()
	if res.RequeueAfter < 0 {
		t.Errorf("RequeueAfter = %v: negative", res.RequeueAfter)
	}

	after := f.cronJob(t)
	for _, ref := range after.Status.Active {
		got.Active = append(got.Active, ref.Name)
	}
	sort.Strings(got.Active)
	got.LastSchedule, got.LastSuccessful, got.LastFailure =
		after.Status.LastScheduleTime, after.Status.LastSuccessfulTime, after.Status.LastFailureTime
	for _, q := range after.Status.Queued {
		got.Queued = append(got.Queued, q.ScheduledTime.Time)
	}
	if next := after.Status.NextScheduleTime; sc.wantNextUnset && next != nil {
		t.Errorf("status.nextScheduleTime = %v, want it unset", next)
	}
	if sc.wantNext != nil {
		if next := after.Status.NextScheduleTime; next == nil || !next.Equal(sc.wantNext) {
			t.Errorf("status.nextScheduleTime = %v, want %v", next, sc.wantNext)
		}
	}
	if c := meta.FindStatusCondition(after.Status.Conditions, cronjobv1.ConditionReady); c != nil {
		got.Ready = c.Reason
	}
	return got
}

// recording wraps funcs so that successful creates and deletes and all status writes are recorded in got.
// With a server (the API server behind a stale cache), a create meets AlreadyExists for a Job the server
// has, and a delete of a Job the cache lacks goes to the server, as the writes of a real client would.
func recording(funcs interceptor.Funcs, server client.Client, got *outcome) interceptor.Funcs {
	create, del, update := funcs.Create, funcs.Delete, funcs.SubResourceUpdate
	funcs.Create = func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		var err error
		switch {
		case create != nil:
			err = create(ctx, c, obj, opts...)
		case server != nil && server.Get(ctx, client.ObjectKeyFromObject(obj), &batchv1.Job{}) == nil:
			err = apierrors.NewAlreadyExists(batchv1.Resource("jobs"), obj.GetName())
		default:
			err = c.Create(ctx, obj, opts...)
		}
		if err == nil {
			got.Created = append(got.Created, createdJob{Name: obj.GetName(), ScheduledAt: obj.GetAnnotations()[cronjobv1.ScheduledAtAnnotation]})
		}
		return err
	}
	funcs.Delete = func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
		var err error
		if del != nil {
			err = del(ctx, c, obj, opts...)
		} else {
			err = c.Delete(ctx, obj, opts...)
			if apierrors.IsNotFound(err) && server != nil {
				err = server.Delete(ctx, obj, opts...)
			}
		}
		if err == nil {
			got.Deleted = append(got.Deleted, obj.GetName())
		}
		return err
	}
	funcs.SubResourceUpdate = func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
		got.StatusWrites++
		if update != nil {
			return update(ctx, c, sub, obj, opts...)
		}
		return c.SubResource(sub).Update(ctx, obj, opts...)
	}
	return funcs
}

// steadyStatus fills in the status an earlier reconcile would have left: observedSchedule (the schedule in
// force since the last run, or since creation), the Ready condition (Scheduled, or Suspended) and
// schedule.Next (the first scheduled time after the last run, or after creation; none when suspended;
// without jitter).
func steadyStatus(cj *cronjobv1.CronJob, jobs ...*batchv1.Job) {
	steadyHistory(cj, jobs)
	suspended := ptr.Deref(cj.Spec.Suspend, false)
	if cj.Status.NextScheduleTime == nil && !suspended && ptr.Deref(cj.Spec.JitterSeconds, 0) == 0 {
		if sched, _, err := schedule.Parse(cj.Spec.Schedule, cj.Spec.TimeZone); err == nil {
			from := cj.CreationTimestamp.Time
			if cj.Status.LastScheduleTime != nil {
				from = cj.Status.LastScheduleTime.Time
			}
			if next := schedule.Next(sched, from, from); !next.IsZero() {
				cj.Status.NextScheduleTime = &metav1.Time{Time: next}
			}
		}
	}
	if cj.Status.ObservedSchedule == nil {
		since := cj.CreationTimestamp
		if cj.Status.LastScheduleTime != nil {
			since = *cj.Status.LastScheduleTime
		}
		cj.Status.ObservedSchedule = &cronjobv1.ObservedSchedule{Schedule: cj.Spec.Schedule,
			TimeZone: ptr.Deref(cj.Spec.TimeZone, ""), Suspended: suspended, Since: since}
	}
	if len(cj.Status.Conditions) == 0 {
		reason, msg := cronjobv1.ReasonScheduled, ""
		if suspended {
			reason, msg = cronjobv1.ReasonSuspended, suspendedMessage
		}
		cj.Status.Conditions = []metav1.Condition{{Type: cronjobv1.ConditionReady, Status: metav1.ConditionTrue,
			Reason: reason, Message: msg, ObservedGeneration: cj.Generation, LastTransitionTime: cj.CreationTimestamp}}
	}
}

// jobFaults injects err into every call of verb ("get" or "delete") on a Job; other calls go through.
func jobFaults(verb string, err error) interceptor.Funcs {
	switch verb {
	case "get":
		return interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*batchv1.Job); ok {
				return err
			}
			return c.Get(ctx, key, obj, opts...)
		}}
	case "delete":
		return interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if _, ok := obj.(*batchv1.Job); ok {
				return err
			}
			return c.Delete(ctx, obj, opts...)
		}}
	}
	panic("jobFaults: unknown verb " + verb)
}

// Events, as "Type Reason".
var (
	evCreated       = corev1.EventTypeNormal + " " + cronjobv1.ReasonSuccessfulCreate
	evDeleted       = corev1.EventTypeNormal + " " + cronjobv1.ReasonSuccessfulDelete
	evAlreadyActive = corev1.EventTypeNormal + " " + cronjobv1.ReasonJobAlreadyActive
	evSawCompleted  = corev1.EventTypeNormal + " " + cronjobv1.ReasonSawCompletedJob
	evMissingJob    = corev1.EventTypeNormal + " " + cronjobv1.ReasonMissingJob // Normal, as in batch/v1
	evUnexpectedJob = corev1.EventTypeWarning + " " + cronjobv1.ReasonUnexpectedJob
	evMissed        = corev1.EventTypeWarning + " " + cronjobv1.ReasonMissSchedule
	evTooMany       = corev1.EventTypeWarning + " " + cronjobv1.ReasonTooManyMissedTimes
	evFailedCreate  = corev1.EventTypeWarning + " " + cronjobv1.ReasonFailedCreate
	evFailedDelete  = corev1.EventTypeWarning + " " + cronjobv1.ReasonFailedDelete
	evNeverFires    = corev1.EventTypeWarning + " " + cronjobv1.ReasonScheduleNeverFires
	evUnparseable   = corev1.EventTypeWarning + " " + cronjobv1.ReasonUnparseableSchedule
	evUnknownZone   = corev1.EventTypeWarning + " " + cronjobv1.ReasonUnknownTimeZone
)

// jobsOf lists Jobs.
func jobsOf(jobs ...*batchv1.Job) []*batchv1.Job { return jobs }

// readyTrue is the Ready condition (True) an earlier reconcile of Hourly() left, to set instead of the
// one steadyStatus derives from the spec: Hourly().Condition(readyTrue(reason, message)).
func readyTrue(reason, message string) metav1.Condition {
	return metav1.Condition{Type: cronjobv1.ConditionReady, Status: metav1.ConditionTrue,
		Reason: reason, Message: message, ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(CreationTime)}
}

// observed is a status.observedSchedule: the controller last saw this schedule (UTC) and suspend state,
// since `since`.
func observed(expr string, suspended bool, since time.Time) cronjobv1.ObservedSchedule {
	return cronjobv1.ObservedSchedule{Schedule: expr, Suspended: suspended, Since: metav1.NewTime(since)}
}

// createFails makes every create fail with err.
func createFails(err error) interceptor.Funcs {
	return interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		return err
	}}
}

// steadyFixture is the fixture of a reconcile of w's CronJob in its steady state (steadyStatus with the
// cached Jobs), with those Jobs in the cache and on the server, at now; its writes are recorded in rec.
func steadyFixture(t *testing.T, w *builders.CronJobWrapper, cached []*batchv1.Job, now time.Time, rec *outcome) *fixture {
	t.Helper()
	cj := CronJobOf(w)
	steadyStatus(cj, cached...)
	objs := []client.Object{cj}
	for _, j := range cached {
		objs = append(objs, j.DeepCopy())
	}
	f := newFixture(t, now, recording(interceptor.Funcs{}, nil, rec), objs...)
	f.r.APIReader = withManagedFields(f.r.APIReader, cj)
	return f
}

// steadyHistory fills in status.recentRuns and its counters as the reconciles that saw jobs (the Jobs of
// the cache) would have left them, unless the case sets recentRuns itself: a Job's entry, with its
// outcome if it finished, is part of the steady state, so that a status write means something changed.
func steadyHistory(cj *cronjobv1.CronJob, jobs []*batchv1.Job) {
	if len(cj.Status.RecentRuns) > 0 {
		return
	}
	s := &syncer{r: &Reconciler{}, cj: cj}
	for _, job := range jobs {
		if metav1.IsControlledBy(job, cj) {
			s.followRun(job, time.Time{})
		}
	}
	boundHistory(cj)
}
