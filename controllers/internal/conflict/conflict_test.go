package conflict_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/conflict"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

func TestWriteStatus(t *testing.T) {
	errConflict := apierrors.NewConflict(cronjobv1.GroupVersion.WithResource("cronjobs").GroupResource(), "hourly",
		errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	errUnavailable := apierrors.NewServiceUnavailable("etcd is unavailable")
	errSync := errors.New("listing jobs: timeout")
	type outcome struct {
		Requeue bool
		Err     string
		// what the API server holds after
		LastScheduleTime string
	}
	cases := map[string]struct {
		// environment
		writeErr error
		syncErr  error
		// expectations
		want     outcome
		wantErrs []error // each wrapped by the error returned
	}{
		"written: no requeue, no error": {
			want: outcome{LastScheduleTime: "2026-03-02T10:00:00Z"},
		},
		"a conflict, the reconcile otherwise fine: requeue, no error": {
			writeErr: errConflict,
			want:     outcome{Requeue: true, LastScheduleTime: "2026-03-02T09:00:00Z"},
		},
		"a conflict after the reconcile failed: no requeue, both errors": {
			writeErr: errConflict, syncErr: errSync,
			want: outcome{
				Err:              "listing jobs: timeout\nwriting status: " + errConflict.Error(),
				LastScheduleTime: "2026-03-02T09:00:00Z",
			},
			wantErrs: []error{errSync, errConflict},
		},
		"another write error: no requeue, the error as writing status": {
			writeErr: errUnavailable,
			want:     outcome{Err: "writing status: etcd is unavailable", LastScheduleTime: "2026-03-02T09:00:00Z"},
			wantErrs: []error{errUnavailable},
		},
		"another write error after the reconcile failed: no requeue, both errors": {
			writeErr: errUnavailable, syncErr: errSync,
			want: outcome{
				Err:              "listing jobs: timeout\nwriting status: etcd is unavailable",
				LastScheduleTime: "2026-03-02T09:00:00Z",
			},
			wantErrs: []error{errSync, errUnavailable},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := FakeClient(nil, interceptor.Funcs{
				SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
					if tc.writeErr != nil {
						return tc.writeErr
					}
					return c.SubResource(sub).Update(ctx, obj, opts...)
				},
			}, Hourly().LastScheduleTime(PriorHour).Obj())
			ctx := context.Background()
			cj := &cronjobv1.CronJob{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: "hourly"}, cj); err != nil {
				t.Fatal(err)
			}
			cj.Status.LastScheduleTime = TimePtr(TopOfTheHour)

			requeue, err := conflict.WriteStatus(ctx, c.Status(), cj, "CronJob", tc.syncErr)
			got := outcome{Requeue: requeue}
			if err != nil {
				got.Err = err.Error()
			}
			for _, want := range tc.wantErrs {
				if !errors.Is(err, want) {
					t.Errorf("error %v does not wrap %v", err, want)
				}
			}
			stored := &cronjobv1.CronJob{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(cj), stored); err != nil {
				t.Fatal(err)
			}
			got.LastScheduleTime = stored.Status.LastScheduleTime.UTC().Format("2006-01-02T15:04:05Z07:00")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("WriteStatus (-want,+got):\n%s", diff)
			}
		})
	}
}
