package index_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/index"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// ownedJob is a Job of "hourly" at 10:00 with the given owner references.
func ownedJob(owners ...metav1.OwnerReference) *batchv1.Job {
	job := builders.MakeJob(JobName(TopOfTheHour), Namespace).Obj()
	job.OwnerReferences = owners
	return job
}

// ownerRef is an owner reference to a "hourly" of the given group version and kind.
func ownerRef(apiVersion, kind string, controller bool) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: apiVersion, Kind: kind, Name: "hourly", UID: "owner-uid", Controller: ptr.To(controller),
	}
}

func TestJobOwner(t *testing.T) {
	ours := cronjobv1.GroupVersion.String()
	cases := map[string]struct {
		job  *batchv1.Job
		want []string
	}{
		"controlled by our CronJob: indexed under its name": {job: RunningJob(TopOfTheHour), want: []string{"hourly"}},
		"no owner: not indexed":                             {job: ownedJob()},
		"owned by our CronJob, not as controller: not indexed": {
			job: ownedJob(ownerRef(ours, "CronJob", false)),
		},
		"controlled by a batch/v1 CronJob: not indexed": {
			job: ownedJob(ownerRef(batchv1.SchemeGroupVersion.String(), "CronJob", true)),
		},
		"controlled by a CronJobRun of our group: not indexed": {
			job: ownedJob(ownerRef(ours, "CronJobRun", true)),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, index.JobOwner(tc.job)); diff != "" {
				t.Errorf("JobOwner (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestRunCronJob(t *testing.T) {
	cases := map[string]struct {
		run  *cronjobv1.CronJobRun
		want []string
	}{
		"a run of hourly: indexed under hourly": {
			run: builders.MakeCronJobRun("hourly-now", Namespace, "hourly").Obj(), want: []string{"hourly"},
		},
		"a run named for another CronJob: indexed under the CronJob of its spec": {
			run: builders.MakeCronJobRun("hourly-now", Namespace, "nightly").Obj(), want: []string{"nightly"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, index.RunCronJob(tc.run)); diff != "" {
				t.Errorf("RunCronJob (-want,+got):\n%s", diff)
			}
		})
	}
}

// recordingIndexer is a client.FieldIndexer that records each registration as "<type> <field>: <what its
// function extracts from a sample object of that type>", and fails the one of the field in errs.
type recordingIndexer struct {
	calls []string
	errs  map[string]error
}

func (r *recordingIndexer) IndexField(_ context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	var sample client.Object
	switch obj.(type) {
	case *batchv1.Job:
		sample = RunningJob(TopOfTheHour)
	case *cronjobv1.CronJobRun:
		sample = builders.MakeCronJobRun("hourly-now", Namespace, "hourly").Obj()
	case *cronjobv1.CronJob:
		sample = Hourly().Calendars("holidays", "freeze").Obj()
	}
	r.calls = append(r.calls, fmt.Sprintf("%T %s: %v", obj, field, extract(sample)))
	return r.errs[field]
}

func TestSetup(t *testing.T) {
	errIndex := errors.New("informer already started")
	cases := map[string]struct {
		// environment
		errs map[string]error
		// expectations
		wantCalls []string
		wantErr   string
	}{
		"every index registered": {
			wantCalls: []string{
				"*v1.Job .metadata.controller: [hourly]",
				"*v1.CronJobRun .spec.cronJobName: [hourly]",
				"*v1.CronJob .spec.calendars: [holidays freeze]",
			},
		},
		"the Job index fails: its error, wrapped, and no further index": {
			errs:      map[string]error{index.JobOwnerKey: errIndex},
			wantCalls: []string{"*v1.Job .metadata.controller: [hourly]"},
			wantErr:   "indexing jobs by owner: informer already started",
		},
		"the CronJobRun index fails: its error, wrapped": {
			errs: map[string]error{index.RunCronJobKey: errIndex},
			wantCalls: []string{
				"*v1.Job .metadata.controller: [hourly]",
				"*v1.CronJobRun .spec.cronJobName: [hourly]",
			},
			wantErr: "indexing cronjobruns by cronjob: informer already started",
		},
		"the CronJob index fails: its error, wrapped": {
			errs: map[string]error{index.CalendarKey: errIndex},
			wantCalls: []string{
				"*v1.Job .metadata.controller: [hourly]",
				"*v1.CronJobRun .spec.cronJobName: [hourly]",
				"*v1.CronJob .spec.calendars: [holidays freeze]",
			},
			wantErr: "indexing cronjobs by calendar: informer already started",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fi := &recordingIndexer{errs: tc.errs}
			err := index.Setup(context.Background(), fi)
			if diff := cmp.Diff(tc.wantCalls, fi.calls); diff != "" {
				t.Errorf("indexes registered (-want,+got):\n%s", diff)
			}
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
				if !errors.Is(err, errIndex) {
					t.Errorf("error %v does not wrap %v", err, errIndex)
				}
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("error (-want,+got):\n%s", diff)
			}
		})
	}
}
