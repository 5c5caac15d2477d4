package webhooks

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

var jobsResource = schema.GroupResource{Group: "batch", Resource: "jobs"}

// invalidJob is the API server's answer to a Job whose pod template has restartPolicy Always.
var invalidJob = apierrors.NewInvalid(schema.GroupKind{Group: "batch", Kind: "Job"}, "hourly-29540820", field.ErrorList{
	field.NotSupported(field.NewPath("spec", "template", "spec", "restartPolicy"), corev1.RestartPolicyAlways, []string{"OnFailure", "Never"}),
	field.Invalid(field.NewPath("metadata", "labels"), "-bad", "name part must consist of alphanumeric characters"),
})

func TestPreflight(t *testing.T) {
	cases := map[string]struct {
		// environment: what the API server answers to the dry-run create, and the warnings it sends
		answer   error
		warnings []string
		block    bool // the create answers only when its context is done (the API server is slow)
		// the object before an update; nil for a create
		old *cronjobv1.CronJob
		// expectations
		wantDryRun   bool
		wantCauses   map[string]string // field to a part of its message; nil for no error
		wantWarnings []string          // parts of each warning, in order
	}{
		"accepted": {wantDryRun: true},
		"accepted with warnings, passed through": {
			warnings:   []string{`would violate PodSecurity "restricted:latest": privileged`, "deprecated field"},
			wantDryRun: true, wantWarnings: []string{`a Job made from it gets this warning: would violate PodSecurity "restricted:latest": privileged`, "deprecated field"},
		},
		"invalid: refused, each cause under spec.jobTemplate": {
			answer: invalidJob, wantDryRun: true,
			wantCauses: map[string]string{
				"spec.jobTemplate.spec.template.spec.restartPolicy": `Unsupported value: "Always"`,
				"spec.jobTemplate.metadata.labels":                  "alphanumeric",
			},
		},
		"forbidden by a quota full now: admitted, warned": {
			answer:     apierrors.NewForbidden(jobsResource, "hourly-29540820", errors.New("exceeded quota: jobs, requested: count/jobs.batch=1, used: count/jobs.batch=5, limited: count/jobs.batch=5")),
			wantDryRun: true, wantWarnings: []string{"ResourceQuota refuses a Job now (jobs.batch \"hourly-29540820\" is forbidden: exceeded quota"},
		},
		"forbidden by an admission policy: refused": {
			answer:     apierrors.NewForbidden(jobsResource, "hourly-29540820", errors.New(`ValidatingAdmissionPolicy 'no-privileged' with binding 'no-privileged' denied request: privileged containers are not allowed`)),
			wantDryRun: true, wantCauses: map[string]string{"spec.jobTemplate": "privileged containers are not allowed"},
		},
		"name taken: the template passed validation": {
			answer: apierrors.NewAlreadyExists(jobsResource, "hourly-29540820"), wantDryRun: true,
		},
		"no right to create Jobs here (namespace-scoped manager): admitted, warned": {
			answer:     apierrors.NewForbidden(jobsResource, "", errors.New(`User "system:serviceaccount:cronjob-operator-system:cronjob-operator-controller-manager" cannot create resource "jobs" in API group "batch" in the namespace "default"`)),
			wantDryRun: true, wantWarnings: []string{"was not checked against the API server"},
		},
		"a webhook on Jobs that does not support dry runs: admitted, warned": {
			answer:     apierrors.NewBadRequest(`admission webhook "jobs.example.com" does not support dry run`),
			wantDryRun: true, wantWarnings: []string{"does not support dry run"},
		},
		"API server error: admitted, warned": {
			answer: apierrors.NewInternalError(errors.New("etcd unavailable")), wantDryRun: true, wantWarnings: []string{"etcd unavailable"},
		},
		"API server slow: admitted after the timeout, warned": {
			block: true, wantDryRun: true, wantWarnings: []string{"no answer within 10ms"},
		},
		"update keeping the template: not asked": {
			answer: invalidJob, old: Hourly().Schedule("*/5 * * * *").Obj(),
		},
		"update changing the template: asked": {
			answer: invalidJob, old: Hourly().JobLabel("app", "other").Obj(), wantDryRun: true,
			wantCauses: map[string]string{
				"spec.jobTemplate.spec.template.spec.restartPolicy": "Always",
				"spec.jobTemplate.metadata.labels":                  "alphanumeric",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var dryRun *batchv1.Job
			c := FakeClient(nil, interceptor.Funcs{
				Create: func(ctx context.Context, _ client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					o := (&client.CreateOptions{}).ApplyOptions(opts)
					if len(o.DryRun) != 1 || o.DryRun[0] != metav1.DryRunAll {
						t.Errorf("create options %+v, want a dry run", o)
					}
					dryRun = obj.(*batchv1.Job).DeepCopy()
					for _, w := range tc.warnings {
						contextWarnings{}.HandleWarningHeaderWithContext(ctx, 299, "-", w)
					}
					if tc.block {
						<-ctx.Done()
						return ctx.Err()
					}
					return tc.answer
				},
			})
			v := &CronJobCustomValidator{Clock: clocktesting.NewFakePassiveClock(IsTime), Client: c, PreflightTimeout: 10 * time.Millisecond}
			cj := Hourly().TimeZone("Europe/Berlin").Obj()
			var warnings []string
			var err error
			if tc.old == nil {
				warnings, err = v.ValidateCreate(context.Background(), cj)
			} else {
				warnings, err = v.ValidateUpdate(context.Background(), tc.old, cj)
			}

			if got := dryRun != nil; got != tc.wantDryRun {
				t.Fatalf("dry run made: %v, want %v", got, tc.wantDryRun)
			}
			if dryRun != nil {
				// The Job of the next run after 10:00:05, 11:00 UTC, as the controller builds it.
				if want := "hourly-29540820"; dryRun.Name != want || dryRun.Namespace != cj.Namespace {
					t.Errorf("dry-run Job %s/%s, want %s/%s", dryRun.Namespace, dryRun.Name, cj.Namespace, want)
				}
				if got, want := dryRun.Annotations[cronjobv1.ScheduledAtAnnotation], "2026-03-02T12:00:00+01:00"; got != want {
					t.Errorf("scheduled-at %q, want %q (the next run, in the CronJob's time zone)", got, want)
				}
				if diff := cmp.Diff(cj.Spec.JobTemplate.Spec, dryRun.Spec); diff != "" {
					t.Errorf("dry-run Job spec (-template,+job):\n%s", diff)
				}
			}
			checkCauses(t, err, tc.wantCauses)
			if len(warnings) != len(tc.wantWarnings) {
				t.Fatalf("warnings = %q, want %d containing %q", warnings, len(tc.wantWarnings), tc.wantWarnings)
			}
			for i, want := range tc.wantWarnings {
				if !strings.Contains(warnings[i], want) {
					t.Errorf("warning %d = %q, want it to contain %q", i, warnings[i], want)
				}
			}
		})
	}
}

// checkCauses checks that err is a 422 Invalid on the CronJob "hourly" with one cause per field of want,
// whose message contains want's, or that err is nil when want is.
func checkCauses(t *testing.T, err error, want map[string]string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("error = %v, want none", err)
		}
		return
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || !apierrors.IsInvalid(err) {
		t.Fatalf("error = %v, want an Invalid status", err)
	}
	st := status.Status()
	if st.Code != 422 || st.Details.Kind != "CronJob" || st.Details.Name != "hourly" {
		t.Errorf("status %d on %s %q, want 422 on CronJob hourly", st.Code, st.Details.Kind, st.Details.Name)
	}
	if !strings.Contains(st.Message, "the API server would refuse its Jobs") {
		t.Errorf("message %q does not say the Job would be refused", st.Message)
	}
	got := map[string]string{}
	for _, c := range st.Details.Causes {
		got[c.Field] = c.Message
	}
	if len(got) != len(want) {
		t.Errorf("causes %v, want fields %v", got, want)
	}
	for f, msg := range want {
		if !strings.Contains(got[f], msg) {
			t.Errorf("cause on %s = %q, want it to contain %q", f, got[f], msg)
		}
	}
}

func TestStartingDeadlineZeroWarns(t *testing.T) {
	v := &CronJobCustomValidator{Clock: clocktesting.NewFakePassiveClock(IsTime)}
	cases := map[string]struct {
		deadline *int64
		old      *cronjobv1.CronJob
		want     bool
	}{
		"create with 0":                 {deadline: ptr.To[int64](0), want: true},
		"create with 10":                {deadline: ptr.To[int64](10)},
		"create without":                {},
		"update to 0":                   {deadline: ptr.To[int64](0), old: Hourly().Obj(), want: true},
		"update keeping 0 (not again)":  {deadline: ptr.To[int64](0), old: Hourly().StartingDeadlineSeconds(0).Obj()},
		"update from 0 to 60 (no more)": {deadline: ptr.To[int64](60), old: Hourly().StartingDeadlineSeconds(0).Obj()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cj := Hourly().Obj()
			cj.Spec.StartingDeadlineSeconds = tc.deadline
			var warnings []string
			var err error
			if tc.old == nil {
				warnings, err = v.ValidateCreate(context.Background(), cj)
			} else {
				warnings, err = v.ValidateUpdate(context.Background(), tc.old, cj)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(warnings) == 1 && strings.Contains(warnings[0], "every run will be missed"); got != tc.want || (!tc.want && len(warnings) > 0) {
				t.Errorf("warnings = %q, want a warning that every run is missed: %v", warnings, tc.want)
			}
		})
	}
}
