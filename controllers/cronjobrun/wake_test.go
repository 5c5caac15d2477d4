package cronjobrun

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// Which events of Jobs and CronJobs wake the runs of a CronJob: each wake re-syncs every waiting run of
// it, so only the changes that can unblock a run or move its phase do; none that unblocks is lost.

// wakes reports whether predicate p passes the event: a create (old nil), a delete (new nil) or an update.
func wakes(p predicate.Predicate, old, new client.Object) bool {
	switch {
	case old == nil:
		return p.Create(event.CreateEvent{Object: new})
	case new == nil:
		return p.Delete(event.DeleteEvent{Object: old})
	}
	return p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: new})
}

func TestCronJobRunWakeOnJobEvents(t *testing.T) {
	running := RunningJob(PriorHour) // a scheduled Job: no CronJobRun annotation
	ownJob := RunningJob(TopOfTheHour)
	ownJob.Name, ownJob.Annotations = manualJob, map[string]string{cronjobv1.CronJobRunAnnotation: "manual"}
	deleting := running.DeepCopy()
	deleting.DeletionTimestamp, deleting.Finalizers = TimePtr(IsTime), []string{"batch.kubernetes.io/job-tracking"}
	for what, tc := range map[string]struct {
		// event: a create when old is nil, a delete when new is nil, else an update
		old, new *batchv1.Job
		// expectations
		want bool
	}{
		"a Job created by the schedule: takes a slot, frees none":           {new: running, want: false},
		"a run's own Job created: the run waiting on it follows it":         {new: ownJob, want: true},
		"a Job created finished (seen first after a relist): frees a slot":  {new: DoneJob(PriorHour), want: true},
		"a Job created being deleted (seen first after a relist)":           {new: deleting, want: true},
		"a Job finished: frees a slot":                                      {old: running, new: DoneJob(PriorHour), want: true},
		"a Job failed: frees a slot":                                        {old: running, new: FailedJob(PriorHour), want: true},
		"a run's own Job finished: moves the run's phase":                   {old: ownJob, new: finishedCopy(ownJob), want: true},
		"a Job being deleted":                                               {old: running, new: deleting, want: true},
		"a Job deleted: frees a slot":                                       {old: running, want: true},
		"a run's own Job deleted: the run goes":                             {old: ownJob, want: true},
		"a finished Job deleted":                                            {old: DoneJob(PriorHour), want: true},
		"only its Pods' counts changed":                                     {old: running, new: progressed(running), want: false},
		"a run's own Job, only its Pods' counts changed: the phase is kept": {old: ownJob, new: progressed(ownJob), want: false},
		"nothing changed (a resync)":                                        {old: running, new: running.DeepCopy(), want: false},
	} {
		var o, n client.Object
		if tc.old != nil {
			o = tc.old
		}
		if tc.new != nil {
			n = tc.new
		}
		if got := wakes(jobChange(), o, n); got != tc.want {
			t.Errorf("%s: wakes the runs = %v, want %v", what, got, tc.want)
		}
	}
}

func TestCronJobRunWakeOnCronJobEvents(t *testing.T) {
	// The runs read of their CronJob its spec (schedule, time zone, jobTemplate, concurrency policy,
	// maxActiveJobs), status.active, its deletion and its UID (a new UID is a new CronJob: a create).
	running := RunningJob(PriorHour)
	old := Hourly().Generation(1).Active(running).LastScheduleTime(PriorHour).NextScheduleTime(TopOfTheHour).Obj()
	edited := func(edit func(cj *cronjobv1.CronJob)) *cronjobv1.CronJob {
		cj := old.DeepCopy()
		edit(cj)
		return cj
	}
	specEdit := func(edit func(spec *cronjobv1.CronJobSpec)) *cronjobv1.CronJob {
		return edited(func(cj *cronjobv1.CronJob) { edit(&cj.Spec); cj.Generation++ })
	}
	for what, tc := range map[string]struct {
		// event: a create when old is nil, a delete when new is nil, else an update
		old, new *cronjobv1.CronJob
		// expectations
		want bool
	}{
		"created: runs waiting for their CronJob start":       {new: old, want: true},
		"deleted: runs waiting are rejected":                  {old: old, want: true},
		"deletion started":                                    {old: old, new: edited(func(cj *cronjobv1.CronJob) { cj.DeletionTimestamp = TimePtr(IsTime) }), want: true},
		"concurrencyPolicy changed":                           {old: old, new: specEdit(func(s *cronjobv1.CronJobSpec) { s.ConcurrencyPolicy = cronjobv1.AllowConcurrent }), want: true},
		"maxActiveJobs raised":                                {old: old, new: specEdit(func(s *cronjobv1.CronJobSpec) { s.MaxActiveJobs = ptr.To[int32](3) }), want: true},
		"schedule changed":                                    {old: old, new: specEdit(func(s *cronjobv1.CronJobSpec) { s.Schedule = "30 * * * *" }), want: true},
		"status.active lost a Job (the cache missed its end)": {old: old, new: edited(func(cj *cronjobv1.CronJob) { cj.Status.Active = nil }), want: true},
		"status.active gained a Job the cache has not shown": {old: old, new: edited(func(cj *cronjobv1.CronJob) {
			cj.Status.Active = append(cj.Status.Active, Hourly().Active(RunningJob(TopOfTheHour)).Obj().Status.Active...)
		}), want: true},
		"status.active, only a resourceVersion": {old: old, new: edited(func(cj *cronjobv1.CronJob) { cj.Status.Active[0].ResourceVersion = "42" }), want: false},
		"status only: lastScheduleTime and nextScheduleTime": {old: old, new: edited(func(cj *cronjobv1.CronJob) {
			cj.Status.LastScheduleTime, cj.Status.NextScheduleTime = TimePtr(TopOfTheHour), TimePtr(TopOfTheHour.Add(time.Hour))
		}), want: false},
		"status only: a condition": {old: old, new: edited(func(cj *cronjobv1.CronJob) {
			cj.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}
		}), want: false},
		"status only: a catch-up step (queued)": {old: old, new: edited(func(cj *cronjobv1.CronJob) { cj.Status.Queued = Hourly().Queued(TopOfTheHour).Obj().Status.Queued }), want: false},
		"metadata only: a label":                {old: old, new: edited(func(cj *cronjobv1.CronJob) { cj.Labels = map[string]string{"team": "a"} }), want: false},
		"nothing changed (a resync)":            {old: old, new: old.DeepCopy(), want: false},
	} {
		var o, n client.Object
		if tc.old != nil {
			o = tc.old
		}
		if tc.new != nil {
			n = tc.new
		}
		if got := wakes(cronJobChange(), o, n); got != tc.want {
			t.Errorf("%s: wakes the runs = %v, want %v", what, got, tc.want)
		}
	}
}

// finishedCopy is a copy of job, completed.
func finishedCopy(job *batchv1.Job) *batchv1.Job {
	done := job.DeepCopy()
	done.Status.Conditions = DoneJob(PriorHour).Status.Conditions
	return done
}

// progressed is a copy of job whose Pods moved on: more of them active and ready.
func progressed(job *batchv1.Job) *batchv1.Job {
	p := job.DeepCopy()
	p.Status.Active = 3
	p.Status.Ready = ptr.To[int32](1)
	return p
}
