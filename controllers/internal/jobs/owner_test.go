package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// controllerRef is a controller owner reference to a "hourly" of the given group version and kind.
func controllerRef(apiVersion, kind string) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: apiVersion, Kind: kind, Name: "hourly", UID: "owner-uid",
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}
}

func TestControllingCronJob(t *testing.T) {
	type controller struct {
		Name string
		Ours bool
	}
	cases := map[string]struct {
		owners []metav1.OwnerReference
		want   controller
	}{
		"controlled by our CronJob: its name": {
			owners: []metav1.OwnerReference{controllerRef(cronjobv1.GroupVersion.String(), "CronJob")},
			want:   controller{Name: "hourly", Ours: true},
		},
		"no owner: none": {},
		"owned by our CronJob, not as controller: none": {
			owners: func() []metav1.OwnerReference {
				ref := controllerRef(cronjobv1.GroupVersion.String(), "CronJob")
				ref.Controller = ptr.To(false)
				return []metav1.OwnerReference{ref}
			}(),
		},
		"controlled by a batch/v1 CronJob of the same name: not ours": {
			owners: []metav1.OwnerReference{controllerRef(batchv1.SchemeGroupVersion.String(), "CronJob")},
		},
		"controlled by a CronJobRun of our group: not a CronJob": {
			owners: []metav1.OwnerReference{controllerRef(cronjobv1.GroupVersion.String(), "CronJobRun")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := builders.MakeJob(JobName(TopOfTheHour), Namespace).Obj()
			job.OwnerReferences = tc.owners
			var got controller
			got.Name, got.Ours = jobs.ControllingCronJob(job)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ControllingCronJob (-want,+got):\n%s", diff)
			}
		})
	}
}

// errUnavailable is the API server's answer while etcd is down.
var errUnavailable = apierrors.NewServiceUnavailable("etcd is unavailable")

func TestDelete(t *testing.T) {
	running := RunningJob(TopOfTheHour)
	type outcome struct {
		Deleted bool
		Err     string
		// what the API server was asked
		Propagation     *metav1.DeletionPropagation
		PreconditionUID *types.UID
		// what it holds after
		Jobs []string
	}
	cases := map[string]struct {
		// environment
		existing  []client.Object
		job       *batchv1.Job
		deleteErr error
		// expectations
		want outcome
	}{
		"a Job read from the API server: deleted with its Pods, only if it is still the one of that UID": {
			existing: []client.Object{running}, job: running,
			want: outcome{
				Deleted: true, Propagation: ptr.To(metav1.DeletePropagationBackground),
				PreconditionUID: ptr.To(running.UID), Jobs: []string{},
			},
		},
		"a Job without a UID: deleted with its Pods, unguarded": {
			existing: []client.Object{running}, job: builders.FromJob(running).UID("").Obj(),
			want: outcome{Deleted: true, Propagation: ptr.To(metav1.DeletePropagationBackground), Jobs: []string{}},
		},
		"a Job already gone: not deleted, no error": {
			job: running,
			want: outcome{
				Propagation: ptr.To(metav1.DeletePropagationBackground), PreconditionUID: ptr.To(running.UID), Jobs: []string{},
			},
		},
		"the API server unavailable: not deleted, the error wrapped with the Job's name": {
			existing: []client.Object{running}, job: running, deleteErr: errUnavailable,
			want: outcome{
				Err:         "deleting job hourly-29540760: etcd is unavailable",
				Propagation: ptr.To(metav1.DeletePropagationBackground), PreconditionUID: ptr.To(running.UID),
				Jobs: []string{"hourly-29540760"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got outcome
			c := FakeClient(nil, interceptor.Funcs{
				Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
					sent := (&client.DeleteOptions{}).ApplyOptions(opts)
					got.Propagation = sent.PropagationPolicy
					if sent.Preconditions != nil {
						got.PreconditionUID = sent.Preconditions.UID
					}
					if tc.deleteErr != nil {
						return tc.deleteErr
					}
					return c.Delete(ctx, obj, opts...)
				},
			}, tc.existing...)
			deleted, err := jobs.Delete(context.Background(), c, tc.job)
			got.Deleted = deleted
			if err != nil {
				got.Err = err.Error()
				if !errors.Is(err, tc.deleteErr) {
					t.Errorf("error %v does not wrap the API server's %v", err, tc.deleteErr)
				}
			}
			got.Jobs = JobNames(t, c)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Delete (-want,+got):\n%s", diff)
			}
		})
	}
}

// namespaceTerminating is the API server's answer to a create in a namespace being deleted.
func namespaceTerminating(name string) error {
	err := apierrors.NewForbidden(batchv1.Resource("jobs"), name,
		errors.New("unable to create new content in namespace ns because it is being terminated"))
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    corev1.NamespaceTerminatingCause,
		Message: "namespace ns is being terminated",
		Field:   "metadata.namespace",
	}}
	return err
}

func TestCreate(t *testing.T) {
	hourly := Hourly().Obj()
	name := JobName(TopOfTheHour)
	predecessor := Hourly().UID("cj-uid-of-a-deleted-hourly").Obj()
	errGet := apierrors.NewTooManyRequests("slow down", 1)
	type outcome struct {
		Result jobs.CreateResult
		// JobUID identifies the Job returned: "uid-<name>" for the one created (FakeClient's UID), the
		// existing one's otherwise; "" for none.
		JobUID types.UID
		Err    string
		// what the API server holds after
		Jobs []string
	}
	cases := map[string]struct {
		// environment
		existing  []client.Object
		createErr error
		getErr    error
		// expectations
		want    outcome
		wantErr error // wrapped by the error returned
	}{
		"no Job of that name: Created": {
			want: outcome{Result: jobs.Created, JobUID: "uid-" + types.UID(name), Jobs: []string{name}},
		},
		"our Job exists (its create's status write was lost): Exists, with the Job of the first create": {
			existing: []client.Object{HourlyJob(TopOfTheHour).UID("uid-of-the-first-create").Obj()},
			want:     outcome{Result: jobs.Exists, JobUID: "uid-of-the-first-create", Jobs: []string{name}},
		},
		"a Job of that name controlled by nobody: Taken, with that Job": {
			existing: []client.Object{builders.MakeJob(name, Namespace).UID("stranger-uid").Obj()},
			want:     outcome{Result: jobs.Taken, JobUID: "stranger-uid", Jobs: []string{name}},
		},
		"a Job of a deleted CronJob of the same name: Taken, not adopted": {
			existing: []client.Object{builders.MakeJob(name, Namespace).OwnedBy(predecessor).UID("predecessor-job-uid").Obj()},
			want:     outcome{Result: jobs.Taken, JobUID: "predecessor-job-uid", Jobs: []string{name}},
		},
		"a Job of that name that cannot be read: Unread, the error wrapped": {
			existing: []client.Object{HourlyJob(TopOfTheHour).UID("uid-of-the-first-create").Obj()},
			getErr:   errGet,
			want: outcome{
				Result: jobs.Unread, Err: "getting existing job hourly-29540760: slow down", Jobs: []string{name},
			},
			wantErr: errGet,
		},
		"the namespace is being deleted: NamespaceTerminating, no error": {
			createErr: namespaceTerminating(name),
			want:      outcome{Result: jobs.NamespaceTerminating, JobUID: "uid-" + types.UID(name), Jobs: []string{}},
		},
		"forbidden for another reason: Failed, the error wrapped": {
			createErr: apierrors.NewForbidden(batchv1.Resource("jobs"), name, errors.New("exceeded quota: jobs")),
			want: outcome{
				Result: jobs.Failed, JobUID: "uid-" + types.UID(name), Jobs: []string{},
				Err: `creating job hourly-29540760: jobs.batch "hourly-29540760" is forbidden: exceeded quota: jobs`,
			},
		},
		"the API server unavailable: Failed, the error wrapped": {
			createErr: errUnavailable,
			want: outcome{
				Result: jobs.Failed, JobUID: "uid-" + types.UID(name), Jobs: []string{},
				Err: "creating job hourly-29540760: etcd is unavailable",
			},
			wantErr: errUnavailable,
		},
	}
	for caseName, tc := range cases {
		t.Run(caseName, func(t *testing.T) {
			c := FakeClient(func() time.Time { return TopOfTheHour }, interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					if tc.createErr != nil {
						return tc.createErr
					}
					return c.Create(ctx, obj, opts...)
				},
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					if tc.getErr != nil {
						return tc.getErr
					}
					return c.Get(ctx, key, obj, opts...)
				},
			}, tc.existing...)
			result, job, err := jobs.Create(context.Background(), c, c, hourly, jobs.New(hourly, TopOfTheHour, time.UTC, TopOfTheHour))
			got := outcome{Result: result}
			if job != nil {
				got.JobUID = job.UID
			}
			if err != nil {
				got.Err = err.Error()
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tc.wantErr)
			}
			got.Jobs = JobNames(t, c)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Create (-want,+got):\n%s", diff)
			}
		})
	}
}
