package webhooks

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
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

			if tc.wantCauses == nil && err != nil {
				t.Fatalf("ValidateCreate: %v, want the run admitted", err)
			}
			if tc.wantCauses != nil {
				if diff := cmp.Diff(tc.wantCauses, causes(t, err)); diff != "" {
					t.Errorf("causes of the refusal (-want,+got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.wantWarnings, []string(warnings)); diff != "" {
				t.Errorf("warnings (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestCronJobParameterPatternsMustCompile(t *testing.T) {
	broken := func() *builders.CronJobWrapper {
		return Hourly().Parameter("NOTE", "").PatternParameter("ID", "a", `[a-`)
	}
	cases := map[string]struct {
		// spec
		cronJob *cronjobv1.CronJob
		old     *cronjobv1.CronJob // nil for a create
		// expectations
		wantCauses []metav1.StatusCause // nil: admitted
	}{
		"patterns that compile: admitted": {
			cronJob: Hourly().PatternParameter("DATE", "2026-01-01", `^\d{4}-\d{2}-\d{2}$`).Obj(),
		},
		"a pattern that does not compile: refused at its index, naming the parameter": {
			cronJob: broken().Obj(),
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.parameters[1].pattern",
				Message: "Invalid value: \"[a-\": must be an RE2 regular expression (https://github.com/google/re2/wiki/Syntax): error parsing regexp: missing closing ]: `[a-`; correct the pattern of parameter ID"}},
		},
		"an update that makes a pattern one that does not compile: refused": {
			cronJob: broken().Obj(), old: Hourly().Parameter("NOTE", "").PatternParameter("ID", "a", `[a-z]`).Obj(),
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.parameters[1].pattern",
				Message: "Invalid value: \"[a-\": must be an RE2 regular expression (https://github.com/google/re2/wiki/Syntax): error parsing regexp: missing closing ]: `[a-`; correct the pattern of parameter ID"}},
		},
		"an update of another field keeping a stored pattern that does not compile: admitted (finalizers can go)": {
			cronJob: broken().Schedule("30 * * * *").Obj(), old: broken().Obj(),
		},
	}
	a := &CronJobCustomValidator{Clock: clocktesting.NewFakePassiveClock(TopOfTheHour)}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var err error
			if tc.old == nil {
				_, err = a.ValidateCreate(context.Background(), tc.cronJob)
			} else {
				_, err = a.ValidateUpdate(context.Background(), tc.old, tc.cronJob)
			}
			if tc.wantCauses == nil {
				if err != nil {
					t.Fatalf("error = %v, want none", err)
				}
				return
			}
			if diff := cmp.Diff(tc.wantCauses, causes(t, err)); diff != "" {
				t.Errorf("causes of the refusal (-want,+got):\n%s", diff)
			}
		})
	}
}
