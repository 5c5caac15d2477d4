package webhooks

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// causes returns the causes of an Invalid status error, or fails the test.
func causes(t *testing.T, err error) []metav1.StatusCause {
	t.Helper()
	status, ok := err.(apierrors.APIStatus)
	if !ok || !apierrors.IsInvalid(err) {
		t.Fatalf("error = %v, want an Invalid status error", err)
	}
	return status.Status().Details.Causes
}

// checkAdmission compares what ValidateCreate returned with the causes of the refusal wanted (nil: the
// object admitted) and the warnings wanted.
func checkAdmission(t *testing.T, warnings admission.Warnings, err error, wantCauses []metav1.StatusCause, wantWarnings []string) {
	t.Helper()
	if wantCauses == nil && err != nil {
		t.Fatalf("ValidateCreate: %v, want the run admitted", err)
	}
	if wantCauses != nil {
		if diff := cmp.Diff(wantCauses, causes(t, err)); diff != "" {
			t.Errorf("causes of the refusal (-want,+got):\n%s", diff)
		}
	}
	if diff := cmp.Diff(wantWarnings, []string(warnings)); diff != "" {
		t.Errorf("warnings (-want,+got):\n%s", diff)
	}
}

func TestCronJobRunParametersAreChecked(t *testing.T) {
	// nightly declares DATE (a date pattern) and MODE (an enum).
	nightly := Hourly().PatternParameter("DATE", "2026-01-01", `^\d{4}-\d{2}-\d{2}$`).EnumParameter("MODE", "full", "full", "delta")
	cases := map[string]struct {
		// spec
		run *builders.CronJobRunWrapper
		// environment
		objs []client.Object
		// expectations
		wantCauses   []metav1.StatusCause // nil: admitted
		wantWarnings []string
	}{
		"values that fit: admitted without a warning": {
			run:  builders.MakeCronJobRun("now", Namespace, "hourly").Parameter("DATE", "2026-03-02").Parameter("MODE", "delta"),
			objs: []client.Object{nightly.Obj()},
		},
		"no values: admitted (the defaults apply)": {
			run: builders.MakeCronJobRun("now", Namespace, "hourly"), objs: []client.Object{nightly.Obj()},
		},
		"a value not matching the pattern: refused, naming the parameter and the pattern": {
			run:  builders.MakeCronJobRun("now", Namespace, "hourly").Parameter("DATE", "2026-13-1"),
			objs: []client.Object{nightly.Obj()},
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.parameters[DATE]",
				Message: `Invalid value: "2026-13-1": does not match the pattern ^\d{4}-\d{2}-\d{2}$ of CronJob hourly's parameter DATE`}},
		},
		"a value outside the enum: refused, listing the enum": {
			run:  builders.MakeCronJobRun("now", Namespace, "hourly").Parameter("MODE", "fast"),
			objs: []client.Object{nightly.Obj()},
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.parameters[MODE]",
				Message: `Invalid value: "fast": is not one of the values of CronJob hourly's parameter MODE: "full", "delta"`}},
		},
		"an undeclared name: refused, naming the declared ones": {
			run:  builders.MakeCronJobRun("now", Namespace, "hourly").Parameter("DAY", "monday"),
			objs: []client.Object{nightly.Obj()},
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.parameters[DAY]",
				Message: `Invalid value: "monday": CronJob hourly declares no parameter DAY (it declares DATE, MODE): remove the value or correct its name`}},
		},
		"the CronJob does not exist: admitted with the warning, the values left to the controller": {
			run:          builders.MakeCronJobRun("now", Namespace, "hourly").Parameter("DAY", "monday"),
			wantWarnings: []string{`spec.cronJobName: CronJob "hourly" does not exist in namespace "ns": the run will be Rejected (CronJobNotFound) unless the CronJob is created before the controller starts the run; check spec.cronJobName`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := &CronJobRunCustomValidator{Client: FakeClient(nil, interceptor.Funcs{}, tc.objs...)}

			warnings, err := v.ValidateCreate(context.Background(), tc.run.Obj())

			checkAdmission(t, warnings, err, tc.wantCauses, tc.wantWarnings)
		})
	}
}
