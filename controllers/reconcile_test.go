package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

const testNamespace = "ns"

// created is when the test CronJobs were created: an hour before topOfTheHour.
var created = topOfTheHour.Add(-time.Hour)

// testScheme is built once: registering every client-go type is the slowest part of building a fixture.
var testScheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(cronjobv1.AddToScheme(s))
	return s
})

// testCodecs decodes for the fake client's object tracker, built once.
var testCodecs = sync.OnceValue(func() serializer.CodecFactory { return serializer.NewCodecFactory(testScheme()) })

// testRESTMapper is built once too: without it the fake client builds a mapper of every scheme type.
var testRESTMapper = sync.OnceValue(func() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(batchv1.SchemeGroupVersion.WithKind("Job"), meta.RESTScopeNamespace)
	m.Add(cronjobv1.GroupVersion.WithKind("CronJob"), meta.RESTScopeNamespace)
	return m
})

// testCronJob is an hourly CronJob "hourly" created at `created`.
func testCronJob(mutate ...func(*cronjobv1.CronJob)) *cronjobv1.CronJob {
	cj := &cronjobv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "hourly", Namespace: testNamespace, UID: "cj-uid",
			CreationTimestamp: metav1.NewTime(created), Generation: 1},
		Spec: cronjobv1.CronJobSpec{
			Schedule:          "0 * * * *",
			ConcurrencyPolicy: cronjobv1.AllowConcurrent,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "hourly"}},
				Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
				}}},
			},
		},
	}
	for _, m := range mutate {
		m(cj)
	}
	return cj
}

// testJob is a Job of the test CronJob for the run scheduled at `scheduled`, started at that time.
func testJob(cj *cronjobv1.CronJob, scheduled time.Time, finished batchv1.JobConditionType) *batchv1.Job {
	job := newJob(cj, scheduled, time.UTC)
	job.UID = types.UID("uid-" + job.Name)
	job.CreationTimestamp = metav1.NewTime(scheduled)
	job.Status.StartTime = ptr.To(metav1.NewTime(scheduled))
	if finished != "" {
		end := metav1.NewTime(scheduled.Add(time.Minute))
		job.Status.Conditions = []batchv1.JobCondition{{Type: finished, Status: corev1.ConditionTrue, LastTransitionTime: end}}
		if finished == batchv1.JobComplete {
			job.Status.CompletionTime = &end
		}
	}
	return job
}

// fixture is a reconciler on a fake client, a fake clock and a fake event recorder.
type fixture struct {
	client   client.Client
	recorder *events.FakeRecorder
	r        *CronJobReconciler
}

// newFixture builds the fixture. Created objects get UID "uid-<name>", as the API server would give one.
// The fake client gets a plain object tracker: the default, field-managed one builds a client-go scheme per
// client and tracks managedFields on every write, which makes a case several times slower under -race; the
// controller does not use server-side apply.
func newFixture(t *testing.T, now time.Time, funcs interceptor.Funcs, objs ...client.Object) *fixture {
	t.Helper()
	create := funcs.Create
	funcs.Create = func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		obj.SetUID(types.UID("uid-" + obj.GetName()))
		if create != nil {
			return create(ctx, c, obj, opts...)
		}
		return c.Create(ctx, obj, opts...)
	}
	c := fake.NewClientBuilder().WithScheme(testScheme()).WithRESTMapper(testRESTMapper()).
		WithObjectTracker(clienttesting.NewObjectTracker(testScheme(), testCodecs().UniversalDecoder())).WithObjects(objs...).
		WithStatusSubresource(&cronjobv1.CronJob{}).
		WithIndex(&batchv1.Job{}, jobOwnerKey, indexJobOwner).
		WithInterceptorFuncs(funcs).Build()
	rec := events.NewFakeRecorder(100)
	return &fixture{client: c, recorder: rec, r: &CronJobReconciler{
		Client: c, Scheme: c.Scheme(), Clock: clocktesting.NewFakePassiveClock(now), Recorder: rec,
	}}
}

func (f *fixture) reconcile(t *testing.T) (ctrl.Result, error) {
	t.Helper()
	return f.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: testNamespace, Name: "hourly"}})
}

// jobNames lists the Jobs in the namespace, sorted.
func (f *fixture) jobNames(t *testing.T) []string {
	t.Helper()
	var list batchv1.JobList
	if err := f.client.List(context.Background(), &list, client.InNamespace(testNamespace)); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, j := range list.Items {
		names = append(names, j.Name)
	}
	sort.Strings(names)
	return names
}

// eventReasons drains the recorder into "Type Reason" strings.
func (f *fixture) eventReasons() []string {
	got := []string{}
	for {
		select {
		case e := <-f.recorder.Events:
			fields := strings.Fields(e)
			got = append(got, fields[0]+" "+fields[1])
		default:
			return got
		}
	}
}

func (f *fixture) cronJob(t *testing.T) *cronjobv1.CronJob {
	t.Helper()
	var cj cronjobv1.CronJob
	if err := f.client.Get(context.Background(), types.NamespacedName{Namespace: testNamespace, Name: "hourly"}, &cj); err != nil {
		t.Fatal(err)
	}
	return &cj
}

func activeNames(cj *cronjobv1.CronJob) []string {
	names := []string{}
	for _, ref := range cj.Status.Active {
		names = append(names, ref.Name)
	}
	sort.Strings(names)
	return names
}

func name(t time.Time) string { return jobName("hourly", t) }

func timePtr(t time.Time) *metav1.Time { return ptr.To(metav1.NewTime(t)) }

// observed sets status.observedSchedule: the controller last saw this schedule (UTC) and suspend state,
// since `since`.
func observed(schedule string, suspended bool, since time.Time) func(*cronjobv1.CronJob) {
	return func(cj *cronjobv1.CronJob) {
		cj.Status.ObservedSchedule = &cronjobv1.ObservedSchedule{Schedule: schedule, Suspended: suspended, Since: metav1.NewTime(since)}
	}
}

func TestReconcileDecisions(t *testing.T) {
	justAfterTheHour := topOfTheHour.Add(2 * time.Second)
	beforeTheHour := topOfTheHour.Add(-time.Minute)
	lastHour := topOfTheHour.Add(-time.Hour)
	ranLastHour := func(cj *cronjobv1.CronJob) { cj.Status.LastScheduleTime = timePtr(lastHour) }
	forbid := func(cj *cronjobv1.CronJob) { cj.Spec.ConcurrencyPolicy = cronjobv1.ForbidConcurrent }
	replace := func(cj *cronjobv1.CronJob) { cj.Spec.ConcurrencyPolicy = cronjobv1.ReplaceConcurrent }
	activeLastHour := func(cj *cronjobv1.CronJob) {
		cj.Status.Active = []corev1.ObjectReference{jobRef(testJob(cj, lastHour, ""))}
	}

	cases := map[string]struct {
		// spec and status
		mutate []func(*cronjobv1.CronJob)
		// existing Jobs, built from the CronJob after mutate
		jobs func(cj *cronjobv1.CronJob) []*batchv1.Job
		// environment
		now   time.Time
		funcs interceptor.Funcs
		// expectations
		wantJobs            []string
		wantActive          []string
		wantLastSchedule    *metav1.Time
		wantLastSuccessful  *metav1.Time
		wantEvents          []string
		wantRequeue         time.Duration
		wantErr             bool
		wantConditionReason string
	}{
		"never ran, not time yet": {
			now:                 beforeTheHour,
			wantJobs:            []string{},
			wantActive:          []string{},
			wantEvents:          []string{},
			wantRequeue:         time.Minute + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"never ran, is time, Allow": {
			now:                 justAfterTheHour,
			wantJobs:            []string{name(topOfTheHour)},
			wantActive:          []string{name(topOfTheHour)},
			wantLastSchedule:    timePtr(topOfTheHour),
			wantEvents:          []string{"Normal SuccessfulCreate"},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"prev still active, is time, Allow": {
			mutate:              []func(*cronjobv1.CronJob){ranLastHour, activeLastHour},
			jobs:                func(cj *cronjobv1.CronJob) []*batchv1.Job { return []*batchv1.Job{testJob(cj, lastHour, "")} },
			now:                 justAfterTheHour,
			wantJobs:            []string{name(lastHour), name(topOfTheHour)},
			wantActive:          []string{name(lastHour), name(topOfTheHour)},
			wantLastSchedule:    timePtr(topOfTheHour),
			wantEvents:          []string{"Normal SuccessfulCreate"},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"prev still active, is time, Forbid": {
			mutate:              []func(*cronjobv1.CronJob){forbid, ranLastHour, activeLastHour},
			jobs:                func(cj *cronjobv1.CronJob) []*batchv1.Job { return []*batchv1.Job{testJob(cj, lastHour, "")} },
			now:                 justAfterTheHour,
			wantJobs:            []string{name(lastHour)},
			wantActive:          []string{name(lastHour)},
			wantLastSchedule:    timePtr(lastHour),
			wantEvents:          []string{"Normal JobAlreadyActive"},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"prev still active, is time, Replace": {
			mutate:              []func(*cronjobv1.CronJob){replace, ranLastHour, activeLastHour},
			jobs:                func(cj *cronjobv1.CronJob) []*batchv1.Job { return []*batchv1.Job{testJob(cj, lastHour, "")} },
			now:                 justAfterTheHour,
			wantJobs:            []string{name(topOfTheHour)},
			wantActive:          []string{name(topOfTheHour)},
			wantLastSchedule:    timePtr(topOfTheHour),
			wantEvents:          []string{"Normal SuccessfulDelete", "Normal SuccessfulCreate"},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"prev ran but done, is time, Forbid": {
			mutate: []func(*cronjobv1.CronJob){forbid, ranLastHour, activeLastHour},
			jobs: func(cj *cronjobv1.CronJob) []*batchv1.Job {
				return []*batchv1.Job{testJob(cj, lastHour, batchv1.JobComplete)}
			},
			now:                 justAfterTheHour,
			wantJobs:            []string{name(lastHour), name(topOfTheHour)},
			wantActive:          []string{name(topOfTheHour)},
			wantLastSchedule:    timePtr(topOfTheHour),
			wantLastSuccessful:  timePtr(lastHour.Add(time.Minute)),
			wantEvents:          []string{"Normal SawCompletedJob", "Normal SuccessfulCreate"},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"active Job gone from the API server": {
			mutate:              []func(*cronjobv1.CronJob){forbid, ranLastHour, activeLastHour},
			now:                 justAfterTheHour,
			wantJobs:            []string{name(topOfTheHour)},
			wantActive:          []string{name(topOfTheHour)},
			wantLastSchedule:    timePtr(topOfTheHour),
			wantEvents:          []string{"Normal MissingJob", "Normal SuccessfulCreate"},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"running Job of ours missing from status.active is tracked, and Forbid respects it": {
			mutate:              []func(*cronjobv1.CronJob){forbid, ranLastHour},
			jobs:                func(cj *cronjobv1.CronJob) []*batchv1.Job { return []*batchv1.Job{testJob(cj, lastHour, "")} },
			now:                 justAfterTheHour,
			wantJobs:            []string{name(lastHour)},
			wantActive:          []string{name(lastHour)},
			wantLastSchedule:    timePtr(lastHour),
			wantEvents:          []string{"Normal JobAlreadyActive"},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"Job of the due run exists but the status write was lost, Forbid: adopted, not skipped": {
			mutate:              []func(*cronjobv1.CronJob){forbid, ranLastHour},
			jobs:                func(cj *cronjobv1.CronJob) []*batchv1.Job { return []*batchv1.Job{testJob(cj, topOfTheHour, "")} },
			now:                 justAfterTheHour,
			wantJobs:            []string{name(topOfTheHour)},
			wantActive:          []string{name(topOfTheHour)},
			wantLastSchedule:    timePtr(topOfTheHour),
			wantEvents:          []string{},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"Job of the due run exists but the status write was lost, Replace: adopted, not replaced": {
			mutate:              []func(*cronjobv1.CronJob){replace, ranLastHour},
			jobs:                func(cj *cronjobv1.CronJob) []*batchv1.Job { return []*batchv1.Job{testJob(cj, topOfTheHour, "")} },
			now:                 justAfterTheHour,
			wantJobs:            []string{name(topOfTheHour)},
			wantActive:          []string{name(topOfTheHour)},
			wantLastSchedule:    timePtr(topOfTheHour),
			wantEvents:          []string{},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"Job of the due run exists and already finished, status write lost: recorded, not run again": {
			mutate: []func(*cronjobv1.CronJob){forbid, ranLastHour},
			jobs: func(cj *cronjobv1.CronJob) []*batchv1.Job {
				return []*batchv1.Job{testJob(cj, topOfTheHour, batchv1.JobComplete)}
			},
			now:                 justAfterTheHour.Add(2 * time.Minute),
			wantJobs:            []string{name(topOfTheHour)},
			wantActive:          []string{},
			wantLastSchedule:    timePtr(topOfTheHour),
			wantLastSuccessful:  timePtr(topOfTheHour.Add(time.Minute)),
			wantEvents:          []string{},
			wantRequeue:         time.Hour - 2*time.Minute - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"schedule edited: the new schedule's run due before the edit was seen does not start": {
			mutate:   []func(*cronjobv1.CronJob){ranLastHour, observed("30 * * * *", false, lastHour)},
			now:      justAfterTheHour,
			wantJobs: []string{}, wantActive: []string{}, wantEvents: []string{},
			wantLastSchedule:    timePtr(lastHour),
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"resumed after a suspension: the run missed while suspended does not start": {
			mutate:   []func(*cronjobv1.CronJob){ranLastHour, observed("0 * * * *", true, lastHour)},
			now:      justAfterTheHour.Add(30 * time.Minute),
			wantJobs: []string{}, wantActive: []string{}, wantEvents: []string{},
			wantLastSchedule:    timePtr(lastHour),
			wantRequeue:         30*time.Minute - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"resumed after a suspension: the first run after the resume starts": {
			mutate:              []func(*cronjobv1.CronJob){ranLastHour, observed("0 * * * *", false, topOfTheHour.Add(-30*time.Minute))},
			now:                 justAfterTheHour,
			wantJobs:            []string{name(topOfTheHour)},
			wantActive:          []string{name(topOfTheHour)},
			wantLastSchedule:    timePtr(topOfTheHour),
			wantEvents:          []string{"Normal SuccessfulCreate"},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"time zone edited: the run due before the edit was seen does not start": {
			mutate: []func(*cronjobv1.CronJob){ranLastHour, observed("0 * * * *", false, lastHour), func(cj *cronjobv1.CronJob) {
				cj.Spec.TimeZone = ptr.To("Asia/Kolkata") // +05:30: the hour mark is at :30 UTC
				cj.Status.ObservedSchedule.TimeZone = "UTC"
			}},
			now:      topOfTheHour.Add(31 * time.Minute),
			wantJobs: []string{}, wantActive: []string{}, wantEvents: []string{},
			wantLastSchedule:    timePtr(lastHour),
			wantRequeue:         59*time.Minute + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"Ready recovers once the schedule is fixed": {
			mutate: []func(*cronjobv1.CronJob){ranLastHour, func(cj *cronjobv1.CronJob) {
				cj.Status.Conditions = []metav1.Condition{{Type: cronjobv1.ConditionReady, Status: metav1.ConditionFalse,
					Reason: cronjobv1.ReasonUnparseableSchedule, LastTransitionTime: metav1.NewTime(lastHour)}}
			}},
			now:      beforeTheHour,
			wantJobs: []string{}, wantActive: []string{}, wantEvents: []string{},
			wantLastSchedule:    timePtr(lastHour),
			wantRequeue:         time.Minute + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"past a 10 s deadline": {
			mutate:              []func(*cronjobv1.CronJob){ranLastHour, func(cj *cronjobv1.CronJob) { cj.Spec.StartingDeadlineSeconds = ptr.To[int64](10) }},
			now:                 topOfTheHour.Add(11 * time.Second),
			wantJobs:            []string{},
			wantActive:          []string{},
			wantLastSchedule:    timePtr(lastHour),
			wantEvents:          []string{"Warning MissSchedule"},
			wantRequeue:         time.Hour - 11*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"more than 100 missed: warn and start only the most recent": {
			mutate:              []func(*cronjobv1.CronJob){ranLastHour},
			now:                 topOfTheHour.Add(7*24*time.Hour + 2*time.Second),
			wantJobs:            []string{name(topOfTheHour.Add(7 * 24 * time.Hour))},
			wantActive:          []string{name(topOfTheHour.Add(7 * 24 * time.Hour))},
			wantLastSchedule:    timePtr(topOfTheHour.Add(7 * 24 * time.Hour)),
			wantEvents:          []string{"Warning TooManyMissedTimes", "Normal SuccessfulCreate"},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"suspended: nothing created, no requeue, history still pruned": {
			mutate: []func(*cronjobv1.CronJob){ranLastHour, func(cj *cronjobv1.CronJob) {
				cj.Spec.Suspend = ptr.To(true)
				cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
			}},
			jobs: func(cj *cronjobv1.CronJob) []*batchv1.Job {
				return []*batchv1.Job{testJob(cj, lastHour, batchv1.JobFailed)}
			},
			now:                 justAfterTheHour,
			wantJobs:            []string{},
			wantActive:          []string{},
			wantLastSchedule:    timePtr(lastHour),
			wantEvents:          []string{"Normal SuccessfulDelete"},
			wantConditionReason: cronjobv1.ReasonSuspended,
		},
		"unparseable schedule: warning, condition, no requeue": {
			mutate:              []func(*cronjobv1.CronJob){func(cj *cronjobv1.CronJob) { cj.Spec.Schedule = "61 * * * *" }},
			now:                 justAfterTheHour,
			wantJobs:            []string{},
			wantActive:          []string{},
			wantEvents:          []string{"Warning UnparseableSchedule"},
			wantConditionReason: cronjobv1.ReasonUnparseableSchedule,
		},
		"unknown time zone: warning, condition, no requeue": {
			mutate:              []func(*cronjobv1.CronJob){func(cj *cronjobv1.CronJob) { cj.Spec.TimeZone = ptr.To("Mars/Olympus_Mons") }},
			now:                 justAfterTheHour,
			wantJobs:            []string{},
			wantActive:          []string{},
			wantEvents:          []string{"Warning UnknownTimeZone"},
			wantConditionReason: cronjobv1.ReasonUnknownTimeZone,
		},
		"create meets AlreadyExists for a Job of ours: adopted, no error": {
			jobs:                func(cj *cronjobv1.CronJob) []*batchv1.Job { return []*batchv1.Job{testJob(cj, topOfTheHour, "")} },
			now:                 justAfterTheHour,
			wantJobs:            []string{name(topOfTheHour)},
			wantActive:          []string{name(topOfTheHour)},
			wantLastSchedule:    timePtr(topOfTheHour),
			wantEvents:          []string{},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"create meets AlreadyExists for a stranger's Job: warning, not adopted, no retry": {
			jobs: func(cj *cronjobv1.CronJob) []*batchv1.Job {
				j := testJob(cj, topOfTheHour, "")
				j.OwnerReferences = nil
				return []*batchv1.Job{j}
			},
			now:                 justAfterTheHour,
			wantJobs:            []string{name(topOfTheHour)},
			wantActive:          []string{},
			wantEvents:          []string{"Warning FailedCreate"},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonFailedCreate,
		},
		"create fails because the namespace is terminating: no error, nothing recorded": {
			now: justAfterTheHour,
			funcs: interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				err := apierrors.NewForbidden(batchv1.Resource("jobs"), obj.GetName(), fmt.Errorf("namespace is terminating"))
				err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}
				return err
			}},
			wantJobs:            []string{},
			wantActive:          []string{},
			wantEvents:          []string{},
			wantRequeue:         time.Hour - 2*time.Second + requeuePadding,
			wantConditionReason: cronjobv1.ReasonScheduled,
		},
		"create fails with a server error: FailedCreate and the error returned": {
			now: justAfterTheHour,
			funcs: interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				return apierrors.NewInternalError(fmt.Errorf("etcd is down"))
			}},
			wantJobs:            []string{},
			wantActive:          []string{},
			wantEvents:          []string{"Warning FailedCreate"},
			wantErr:             true,
			wantConditionReason: cronjobv1.ReasonFailedCreate,
		},
	}
	for tcName, tc := range cases {
		t.Run(tcName, func(t *testing.T) {
			t.Parallel()
			cj := testCronJob(tc.mutate...)
			objs := []client.Object{cj}
			if tc.jobs != nil {
				for _, j := range tc.jobs(cj) {
					objs = append(objs, j)
				}
			}
			f := newFixture(t, tc.now, tc.funcs, objs...)

			res, err := f.reconcile(t)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Reconcile error = %v, wantErr %v", err, tc.wantErr)
			}
			if res.RequeueAfter != tc.wantRequeue {
				t.Errorf("RequeueAfter = %v, want %v", res.RequeueAfter, tc.wantRequeue)
			}
			if diff := cmp.Diff(tc.wantJobs, f.jobNames(t)); diff != "" {
				t.Errorf("Jobs (-want,+got):\n%s", diff)
			}
			got := f.cronJob(t)
			if diff := cmp.Diff(tc.wantActive, activeNames(got)); diff != "" {
				t.Errorf("status.active (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantLastSchedule, got.Status.LastScheduleTime); diff != "" {
				t.Errorf("status.lastScheduleTime (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantLastSuccessful, got.Status.LastSuccessfulTime); diff != "" {
				t.Errorf("status.lastSuccessfulTime (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantEvents, f.eventReasons()); diff != "" {
				t.Errorf("events (-want,+got):\n%s", diff)
			}
			reason := ""
			for _, c := range got.Status.Conditions {
				if c.Type == cronjobv1.ConditionReady {
					reason = c.Reason
				}
			}
			if reason != tc.wantConditionReason {
				t.Errorf("Ready reason = %q, want %q", reason, tc.wantConditionReason)
			}
		})
	}
}

func TestReconcileStatusConflictRequeuesQuietly(t *testing.T) {
	cj := testCronJob()
	f := newFixture(t, topOfTheHour.Add(2*time.Second), interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			return apierrors.NewConflict(cronjobv1.GroupVersion.WithResource("cronjobs").GroupResource(), obj.GetName(), fmt.Errorf("the object has been modified"))
		},
	}, cj)

	res, err := f.reconcile(t)
	if err != nil {
		t.Fatalf("Reconcile error = %v, want none: a conflict is requeued quietly", err)
	}
	if res.RequeueAfter != conflictRequeueDelay {
		t.Errorf("RequeueAfter = %v, want %v", res.RequeueAfter, conflictRequeueDelay)
	}
	// The Job was created; the next reconcile adopts it by name instead of creating another.
	if diff := cmp.Diff([]string{name(topOfTheHour)}, f.jobNames(t)); diff != "" {
		t.Errorf("Jobs (-want,+got):\n%s", diff)
	}
}
