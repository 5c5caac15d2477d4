package webhooks

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

func TestCronJobRunNamesACronJob(t *testing.T) {
	cases := map[string]struct {
		// environment
		objs  []client.Object
		get   func(ctx context.Context) error // answers the read of the CronJob instead of the fake API server
		block bool                            // the read waits until its context is done
		// expectations
		wantWarnings []string
	}{
		"CronJob exists: admitted without a warning": {
			objs: []client.Object{Hourly().Obj()},
		},
		"CronJob does not exist: admitted with a warning that the run will be Rejected": {
			wantWarnings: []string{`spec.cronJobName: CronJob "hourly" does not exist in namespace "ns": the run will be Rejected (CronJobNotFound) unless the CronJob is created before the controller starts the run; check spec.cronJobName`},
		},
		"CronJob being deleted: admitted with a warning that the run will be Rejected": {
			objs:         []client.Object{Hourly().Finalizers("example.com/keep").DeletionTimestamp(IsTime).Obj()},
			wantWarnings: []string{`spec.cronJobName: CronJob "hourly" in namespace "ns" is being deleted: the run will be Rejected (CronJobDeleting); create the CronJob again once it is gone, then another CronJobRun`},
		},
		"read fails: admitted with a warning that the CronJob was not checked": {
			objs:         []client.Object{Hourly().Obj()},
			get:          func(context.Context) error { return errors.New("connection refused") },
			wantWarnings: []string{`spec.cronJobName: CronJob "hourly" was not checked (reading it failed: connection refused): if it does not exist in namespace "ns", the run will be Rejected (CronJobNotFound)`},
		},
		"read times out: admitted with a warning that the CronJob was not checked": {
			objs:         []client.Object{Hourly().Obj()},
			block:        true,
			wantWarnings: []string{`spec.cronJobName: CronJob "hourly" was not checked (reading it failed: context deadline exceeded): if it does not exist in namespace "ns", the run will be Rejected (CronJobNotFound)`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := FakeClient(nil, interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					if _, ok := obj.(*cronjobv1.CronJob); !ok {
						t.Errorf("read a %T, want a CronJob", obj)
					}
					if tc.block {
						<-ctx.Done()
						return ctx.Err()
					}
					if tc.get != nil {
						return tc.get(ctx)
					}
					return c.Get(ctx, key, obj, opts...)
				},
			}, tc.objs...)
			v := &CronJobRunCustomValidator{Client: c, LookupTimeout: 10 * time.Millisecond}
			run := builders.MakeCronJobRun("now", Namespace, "hourly").Obj()

			warnings, err := v.ValidateCreate(context.Background(), run)

			if err != nil {
				t.Fatalf("ValidateCreate: %v, want the run admitted", err)
			}
			if diff := cmp.Diff(tc.wantWarnings, []string(warnings)); diff != "" {
				t.Errorf("warnings (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestCronJobRunWithoutClientIsAdmitted(t *testing.T) {
	warnings, err := (&CronJobRunCustomValidator{}).ValidateCreate(context.Background(), builders.MakeCronJobRun("now", Namespace, "hourly").Obj())
	if err != nil || warnings != nil {
		t.Errorf("ValidateCreate = %v, %v; want nil, nil", warnings, err)
	}
}
