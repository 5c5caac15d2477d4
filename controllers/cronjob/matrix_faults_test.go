package cronjob

import (
	"context"
	"errors"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

var (
	errInternal  = apierrors.NewInternalError(errors.New("etcd is down"))
	errForbidden = apierrors.NewForbidden(batchv1.Resource("jobs"), "", errors.New("RBAC says no"))
	errNotFound  = apierrors.NewNotFound(batchv1.Resource("jobs"), "")
)

// TestMatrixReplaceFailures pins Replace when a call about the active Job fails: a failed DELETE leaves the
// Job active, starts nothing, reports FailedDelete and the Ready condition FailedCreate, and returns the
// error (so the retry backs off); a DELETE or GET that finds the Job gone lets the run start; a failed GET
// of an active Job the cache lacks stops the reconcile before any policy applies.
func TestMatrixReplaceFailures(t *testing.T) {
	const pad = schedule.RequeuePadding
	scheduled, failedCreate := cronjobv1.ReasonScheduled, cronjobv1.ReasonFailedCreate
	activeBefore := Hourly().Replace().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour))
	missingFromCache := Hourly().Replace().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour))
	deleteFails := outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Events: []string{evFailedDelete},
		StatusWrites: 1, Ready: failedCreate, Err: true}
	getFails := outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Ready: scheduled, Err: true}
	startsNew := outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)},
		LastSchedule: TimePtr(TopOfTheHour), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled,
		Requeue: time.Hour - 5*time.Second + pad}
	onlyFor := func(job string, err error) interceptor.Funcs {
		return interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if obj.GetName() == job {
				return err
			}
			return c.Delete(ctx, obj, opts...)
		}}
	}
	alreadyExists := func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		return apierrors.NewAlreadyExists(batchv1.Resource("jobs"), obj.GetName())
	}

	runMatrix(t, map[string]scenario{
		"still active, is time, Replace, DELETE fails with a server error": {
			cronJob: activeBefore, jobs: jobsOf(RunningJob(PriorHour)), now: IsTime, funcs: jobFaults("delete", errInternal),
			want: deleteFails,
		},
		"still active, is time, Replace, DELETE is forbidden": {
			cronJob: activeBefore, jobs: jobsOf(RunningJob(PriorHour)), now: IsTime, funcs: jobFaults("delete", errForbidden),
			want: deleteFails,
		},
		"still active, is time, Replace, DELETE finds the Job already gone: the run starts": {
			cronJob: activeBefore, jobs: jobsOf(RunningJob(PriorHour)), now: IsTime, funcs: jobFaults("delete", errNotFound),
			want: startsNew,
		},
		"two still active, is time, Replace, the second DELETE fails: the first is gone, nothing starts": {
			cronJob: Hourly().Replace().LastScheduleTime(PriorHour).Active(RunningJob(HM(8, 0)), RunningJob(PriorHour)),
			jobs:    jobsOf(RunningJob(HM(8, 0)), RunningJob(PriorHour)), now: IsTime, funcs: onlyFor(JobName(PriorHour), errInternal),
			want: outcome{Deleted: []string{JobName(HM(8, 0))}, Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour),
				Events: []string{evDeleted, evFailedDelete}, StatusWrites: 1, Ready: failedCreate, Err: true},
		},
		"still active, is time, Replace, the CREATE after the DELETE fails: FailedCreate, the error is returned": {
			cronJob: activeBefore, jobs: jobsOf(RunningJob(PriorHour)), now: IsTime,
			funcs: interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				return errInternal
			}},
			want: outcome{Deleted: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Events: []string{evDeleted, evFailedCreate},
				StatusWrites: 1, Ready: failedCreate, Err: true},
		},
		"still active, is time, Replace, CREATE meets AlreadyExists and the GET of that Job fails": {
			cronJob: activeBefore, jobs: jobsOf(RunningJob(PriorHour)), now: IsTime,
			funcs: interceptor.Funcs{Create: alreadyExists, Get: jobFaults("get", errInternal).Get},
			want: outcome{Deleted: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Events: []string{evDeleted},
				StatusWrites: 1, Ready: scheduled, Err: true},
		},
		"still active but not in the cache, is time, Replace, GET fails with a server error: nothing done": {
			cronJob: missingFromCache, now: IsTime, funcs: jobFaults("get", errInternal),
			want: getFails,
		},
		"still active but not in the cache, is time, Replace, GET is forbidden: nothing done": {
			cronJob: missingFromCache, now: IsTime, funcs: jobFaults("get", errForbidden),
			want: getFails,
		},
		"still active but not in the cache, is time, Forbid, GET fails: nothing done": {
			cronJob: Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)),
			now:     IsTime, funcs: jobFaults("get", errInternal),
			want: getFails,
		},
		"still active but not in the cache, is time, Replace, GET finds it gone: MissingJob, the run starts": {
			cronJob: missingFromCache, now: IsTime,
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)},
				LastSchedule: TimePtr(TopOfTheHour), Events: []string{evMissingJob, evCreated}, StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 5*time.Second + pad},
		},
		"never ran, is time, create fails because the namespace is terminating: nothing recorded, no error": {
			now: IsTime,
			funcs: interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				err := apierrors.NewForbidden(batchv1.Resource("jobs"), obj.GetName(), errors.New("namespace ns is being terminated"))
				err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}
				return err
			}},
			want: outcome{StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
	})
}

// TestMatrixStaleCache pins the controller against a cache that lags the API server: a Job in
// status.active that the cache lacks is checked with a live GET (APIReader) before it is dropped; a Job
// created by a reconcile whose status write was lost is adopted, not created twice; a running Job of ours
// missing from status.active is tracked (batch/v1 only warns, so its Forbid can start a second Job); Jobs
// of another owner are never tracked, adopted or deleted.
func TestMatrixStaleCache(t *testing.T) {
	const pad = schedule.RequeuePadding
	scheduled := cronjobv1.ReasonScheduled
	recreated := HourlyJob(TopOfTheHour).UID("someone-elses-uid").Obj()
	orphaned := HourlyJob(PriorHour).Orphaned().Obj()
	predecessors := HourlyJob(PriorHour).Orphaned().OwnedBy(Hourly().UID("old-cj-uid").Obj()).Obj() // controlled by an earlier CronJob of the same name
	strangers := HourlyJob(TopOfTheHour).Orphaned().Obj()
	// lost is the CronJob after the 10:00 run whose status write was lost: lastScheduleTime is still 09:00.
	lost := func() *builders.CronJobWrapper { return Hourly().LastScheduleTime(PriorHour) }

	cases := map[string]scenario{
		"the 10:00 Job is active, not in the cache, running on the API server: kept": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).Active(RunningJob(TopOfTheHour)), serverOnly: jobsOf(RunningJob(TopOfTheHour)),
			now:  TopOfTheHour.Add(30 * time.Second),
			want: outcome{Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), Ready: scheduled, Requeue: 59*time.Minute + 30*time.Second + pad},
		},
		// lastSuccessfulTime is taken from the cached Job, on the reconcile its arrival in the cache triggers.
		"the 10:00 Job is active, not in the cache, finished on the API server: SawCompletedJob": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).Active(RunningJob(TopOfTheHour)), serverOnly: jobsOf(DoneJob(TopOfTheHour)),
			now:  HM(10, 2),
			want: outcome{LastSchedule: TimePtr(TopOfTheHour), Events: []string{evSawCompleted}, StatusWrites: 1, Ready: scheduled, Requeue: 58*time.Minute + pad},
		},
		"the 10:00 Job is active, neither in the cache nor on the API server: MissingJob": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).Active(RunningJob(TopOfTheHour)), now: TopOfTheHour.Add(30 * time.Second),
			want: outcome{LastSchedule: TimePtr(TopOfTheHour), Events: []string{evMissingJob}, StatusWrites: 1, Ready: scheduled, Requeue: 59*time.Minute + 30*time.Second + pad},
		},
		"the 10:00 Job is active, on the API server under another UID (recreated): MissingJob": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).Active(RunningJob(TopOfTheHour)), serverOnly: jobsOf(recreated),
			now:  TopOfTheHour.Add(30 * time.Second),
			want: outcome{LastSchedule: TimePtr(TopOfTheHour), Events: []string{evMissingJob}, StatusWrites: 1, Ready: scheduled, Requeue: 59*time.Minute + 30*time.Second + pad},
		},
		"the 09:00 Job is active but no longer controlled by this CronJob (orphaned): UnexpectedJob, dropped": {
			cronJob: Hourly().LastScheduleTime(PriorHour).Active(orphaned), jobs: jobsOf(orphaned), now: BeforeHour,
			want: outcome{LastSchedule: TimePtr(PriorHour), Events: []string{evUnexpectedJob}, StatusWrites: 1, Ready: scheduled, Requeue: time.Minute + pad},
		},
		"a Job of the due run exists and is a stranger's: FailedCreate, not adopted, no error": {
			cronJob: lost(), jobs: jobsOf(strangers), now: IsTime,
			want: outcome{LastSchedule: TimePtr(PriorHour), Events: []string{evFailedCreate}, StatusWrites: 1,
				Ready: cronjobv1.ReasonFailedCreate, Requeue: time.Hour - 5*time.Second + pad},
		},
		"a Job of the due run exists and is a stranger's, second reconcile: no second warning, no status write, no hot loop": {
			cronJob: lost(), jobs: jobsOf(strangers), now: IsTime, twice: true,
			want: outcome{LastSchedule: TimePtr(PriorHour),
				Ready: cronjobv1.ReasonFailedCreate, Requeue: time.Hour - 5*time.Second + pad},
		},
		// Only a status written by someone else is this inconsistent (the controller writes status.active and
		// lastScheduleTime in one patch); Forbid and Replace get it wrong, see TestBugsFound.
		"the 10:00 Job is in status.active, not in the cache, lastScheduleTime 09:00, a minute late, Allow: adopted": {
			cronJob:    Hourly().LastScheduleTime(PriorHour).Active(RunningJob(TopOfTheHour)),
			serverOnly: jobsOf(RunningJob(TopOfTheHour)), now: MinLate,
			want: outcome{Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), StatusWrites: 1, Ready: scheduled,
				Requeue: 59*time.Minute + pad},
		},
		"running Job of ours missing from status.active, not time: tracked": {
			cronJob: lost(), jobs: jobsOf(RunningJob(PriorHour)), now: BeforeHour,
			want: outcome{Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), StatusWrites: 1, Ready: scheduled, Requeue: time.Minute + pad},
		},
		"finished Job of ours missing from status.active: lastSuccessfulTime, no SawCompletedJob": {
			cronJob: lost(), jobs: jobsOf(DoneJob(PriorHour)), now: BeforeHour,
			want: outcome{LastSchedule: TimePtr(PriorHour), LastSuccessful: TimePtr(HM(9, 1)), StatusWrites: 1, Ready: scheduled, Requeue: time.Minute + pad},
		},
		"running Job of an earlier CronJob of the same name, is time, Forbid: ignored, the run starts": {
			cronJob: lost().Forbid(), jobs: jobsOf(predecessors), now: IsTime,
			want: outcome{Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour),
				Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
	}
	for p, want := range map[cronjobv1.ConcurrencyPolicy]outcome{
		cronjobv1.AllowConcurrent: {Created: []createdJob{newRun(TopOfTheHour)}, Active: []string{JobName(PriorHour), JobName(TopOfTheHour)},
			LastSchedule: TimePtr(TopOfTheHour), Events: []string{evCreated}, StatusWrites: 1},
		cronjobv1.ForbidConcurrent: {Active: []string{JobName(PriorHour)}, LastSchedule: TimePtr(PriorHour), Events: []string{evAlreadyActive},
			StatusWrites: 1}, // schedule.Next moves on
		cronjobv1.ReplaceConcurrent: {Created: []createdJob{newRun(TopOfTheHour)}, Deleted: []string{JobName(PriorHour)},
			Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), Events: []string{evDeleted, evCreated}, StatusWrites: 1},
	} {
		want.Ready, want.Requeue = scheduled, time.Hour-5*time.Second+pad
		cases["the 09:00 Job is active, not in the cache, running on the API server, is time, "+string(p)] = scenario{
			cronJob: Hourly().ConcurrencyPolicy(p).LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)), serverOnly: jobsOf(RunningJob(PriorHour)),
			now: IsTime, want: want,
		}
		cases["status write of the 10:00 run lost, its Job only on the API server, "+string(p)+": adopted, not created twice"] = scenario{
			cronJob: lost().ConcurrencyPolicy(p), serverOnly: jobsOf(RunningJob(TopOfTheHour)), now: IsTime,
			want: outcome{Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 5*time.Second + pad},
		}
		cases["status write of the 10:00 run lost, its Job in the cache, "+string(p)+": adopted, not created twice"] = scenario{
			cronJob: lost().ConcurrencyPolicy(p), jobs: jobsOf(RunningJob(TopOfTheHour)), now: IsTime,
			want: outcome{Active: []string{JobName(TopOfTheHour)}, LastSchedule: TimePtr(TopOfTheHour), StatusWrites: 1, Ready: scheduled,
				Requeue: time.Hour - 5*time.Second + pad},
		}
		// Tracking it changes status.active, so status is written whatever the policy does.
		want.StatusWrites = 1
		cases["running Job of ours missing from status.active, is time, "+string(p)] = scenario{
			cronJob: lost().ConcurrencyPolicy(p), jobs: jobsOf(RunningJob(PriorHour)), now: IsTime, want: want,
		}
	}
	runMatrix(t, cases)
}
