package jobs_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

func TestIsOwnedBy(t *testing.T) {
	hourly := Hourly().Obj()
	predecessor := Hourly().UID("cj-uid-of-a-deleted-hourly").Obj()
	cases := map[string]struct {
		job  *batchv1.Job
		want bool
	}{
		"controlled by the CronJob: owned": {job: RunningJob(TopOfTheHour), want: true},
		"controlled by a deleted CronJob of the same name (another UID): not owned": {
			job: builders.MakeJob(JobName(TopOfTheHour), Namespace).OwnedBy(predecessor).Obj(),
		},
		"no owner: not owned": {job: builders.MakeJob(JobName(TopOfTheHour), Namespace).Obj()},
		"owned by the CronJob, but not as its controller: not owned": {
			job: func() *batchv1.Job {
				job := RunningJob(TopOfTheHour)
				job.OwnerReferences[0].Controller = nil
				return job
			}(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := jobs.IsOwnedBy(tc.job, hourly); got != tc.want {
				t.Errorf("IsOwnedBy = %v, want %v", got, tc.want)
			}
		})
	}
}

// activeRef is the status.active entry of RunningJob(hour:00).
func activeRef(hour int) corev1.ObjectReference {
	job := RunningJob(HM(hour, 0))
	return corev1.ObjectReference{
		APIVersion: "batch/v1", Kind: "Job", Namespace: job.Namespace, Name: job.Name, UID: job.UID,
	}
}

func TestInActive(t *testing.T) {
	cases := map[string]struct {
		// status
		active []corev1.ObjectReference
		// environment
		uid types.UID
		// expectations
		want bool
	}{
		"listed alone: in": {active: []corev1.ObjectReference{activeRef(10)}, uid: RunningJob(HM(10, 0)).UID, want: true},
		"listed second: in": {
			active: []corev1.ObjectReference{activeRef(9), activeRef(10)}, uid: RunningJob(HM(10, 0)).UID, want: true,
		},
		"another Job listed: not in": {active: []corev1.ObjectReference{activeRef(9)}, uid: RunningJob(HM(10, 0)).UID},
		"none listed: not in":        {uid: RunningJob(HM(10, 0)).UID},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			status := &cronjobv1.CronJobStatus{Active: tc.active}
			if got := jobs.InActive(status, tc.uid); got != tc.want {
				t.Errorf("InActive = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAddActive(t *testing.T) {
	cases := map[string]struct {
		// status
		active []corev1.ObjectReference
		// environment
		job *batchv1.Job
		// expectations
		want []corev1.ObjectReference
	}{
		"none listed: the Job is": {
			job: RunningJob(HM(10, 0)), want: []corev1.ObjectReference{activeRef(10)},
		},
		"another listed: the Job is added after it": {
			active: []corev1.ObjectReference{activeRef(9)}, job: RunningJob(HM(10, 0)),
			want: []corev1.ObjectReference{activeRef(9), activeRef(10)},
		},
		"listed already: not twice": {
			active: []corev1.ObjectReference{activeRef(9), activeRef(10)}, job: RunningJob(HM(10, 0)),
			want: []corev1.ObjectReference{activeRef(9), activeRef(10)},
		},
		"a Job read from the API server: listed with its resourceVersion": {
			job: func() *batchv1.Job {
				job := RunningJob(HM(10, 0))
				job.ResourceVersion = "42"
				return job
			}(),
			want: func() []corev1.ObjectReference {
				ref := activeRef(10)
				ref.ResourceVersion = "42"
				return []corev1.ObjectReference{ref}
			}(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			status := &cronjobv1.CronJobStatus{Active: tc.active}
			jobs.AddActive(status, tc.job)
			if diff := cmp.Diff(tc.want, status.Active); diff != "" {
				t.Errorf("status.active (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestRemoveActive(t *testing.T) {
	cases := map[string]struct {
		// status
		active []corev1.ObjectReference
		// environment
		uid types.UID
		// expectations: nil when none is left, as the API server returns an empty status.active
		want []corev1.ObjectReference
	}{
		"the last one: none left, nil": {
			active: []corev1.ObjectReference{activeRef(10)}, uid: RunningJob(HM(10, 0)).UID,
		},
		"one of three: the others kept in order": {
			active: []corev1.ObjectReference{activeRef(8), activeRef(9), activeRef(10)},
			uid:    RunningJob(HM(9, 0)).UID,
			want:   []corev1.ObjectReference{activeRef(8), activeRef(10)},
		},
		"a Job not listed: all kept": {
			active: []corev1.ObjectReference{activeRef(9)}, uid: RunningJob(HM(10, 0)).UID,
			want: []corev1.ObjectReference{activeRef(9)},
		},
		"none listed: nil": {uid: RunningJob(HM(10, 0)).UID},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			status := &cronjobv1.CronJobStatus{Active: tc.active}
			jobs.RemoveActive(status, tc.uid)
			if diff := cmp.Diff(tc.want, status.Active); diff != "" {
				t.Errorf("status.active (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestBoundActive(t *testing.T) {
	// refs are n distinct status.active entries, in order.
	refs := func(n int) []corev1.ObjectReference {
		out := make([]corev1.ObjectReference, n)
		for i := range out {
			out[i] = corev1.ObjectReference{Name: fmt.Sprintf("hourly-%d", i), UID: types.UID(fmt.Sprintf("uid-%d", i))}
		}
		return out
	}
	cases := map[string]struct {
		// status
		active []corev1.ObjectReference
		// expectations
		want []corev1.ObjectReference
	}{
		"none: none":                   {},
		"3: all 3":                     {active: refs(3), want: refs(3)},
		"exactly 100: all 100":         {active: refs(cronjobv1.MaxActiveListed), want: refs(cronjobv1.MaxActiveListed)},
		"101: the first 100, in order": {active: refs(cronjobv1.MaxActiveListed + 1), want: refs(cronjobv1.MaxActiveListed)},
		"250: the first 100, in order": {active: refs(250), want: refs(cronjobv1.MaxActiveListed)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			status := cronjobv1.CronJobStatus{Active: tc.active}
			jobs.BoundActive(&status)
			if diff := cmp.Diff(tc.want, status.Active); diff != "" {
				t.Errorf("status.active (-want,+got):\n%s", diff)
			}
		})
	}
}
