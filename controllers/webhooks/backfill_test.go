package webhooks

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

func TestCronJobRunRangeIsChecked(t *testing.T) {
	now := MustTime("2026-03-03T00:00:00Z")
	ranged := func(from, to string) *builders.CronJobRunWrapper {
		return builders.MakeCronJobRun("fill", Namespace, "hourly").Range(MustTime(from), MustTime(to))
	}
	freeze := &cronjobv1.CronCalendar{ObjectMeta: metav1.ObjectMeta{Name: "freeze", Namespace: Namespace},
		Spec: cronjobv1.CronCalendarSpec{ExcludeDates: []string{"2026-03-02"}}}
	cases := map[string]struct {
		run          *builders.CronJobRunWrapper
		objs         []client.Object
		wantCauses   []metav1.StatusCause // nil: admitted
		wantWarnings []string
	}{
		"a past range with slots: admitted": {
			run: ranged("2026-03-02T05:00:00Z", "2026-03-02T08:00:00Z"), objs: []client.Object{Hourly().Obj()},
		},
		"exactly 1000 slots: admitted": {
			run:  ranged("2026-03-01T00:00:00Z", "2026-03-01T16:39:00Z"),
			objs: []client.Object{Hourly().Schedule("* * * * *").Obj()},
		},
		"range.to in the future: refused, saying what now is": {
			run: ranged("2026-03-02T05:00:00Z", "2026-03-03T01:00:00Z"), objs: []client.Object{Hourly().Obj()},
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.range.to",
				Message: `Invalid value: "2026-03-03T01:00:00Z": is in the future (now is 2026-03-03T00:00:00Z): a backfill runs past scheduled times; set it to now or earlier`}},
		},
		"range.to in the future, no CronJob: refused, with the warning": {
			run: ranged("2026-03-02T05:00:00Z", "2026-03-03T01:00:00Z"),
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.range.to",
				Message: `Invalid value: "2026-03-03T01:00:00Z": is in the future (now is 2026-03-03T00:00:00Z): a backfill runs past scheduled times; set it to now or earlier`}},
			wantWarnings: []string{`spec.cronJobName: CronJob "hourly" does not exist in namespace "ns": the run will be Rejected (CronJobNotFound) unless the CronJob is created before the controller starts the run; check spec.cronJobName`},
		},
		"no slot in the range: refused": {
			run: ranged("2026-03-02T05:01:00Z", "2026-03-02T05:59:00Z"), objs: []client.Object{Hourly().Obj()},
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.range",
				Message: `Invalid value: "2026-03-02T05:01:00Z to 2026-03-02T05:59:00Z": holds no scheduled time of CronJob hourly (schedule, calendars and active window): widen the range`}},
		},
		"every slot excluded by a calendar: refused": {
			run:  ranged("2026-03-02T05:00:00Z", "2026-03-02T08:00:00Z"),
			objs: []client.Object{Hourly().Calendars("freeze").Obj(), freeze},
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.range",
				Message: `Invalid value: "2026-03-02T05:00:00Z to 2026-03-02T08:00:00Z": holds no scheduled time of CronJob hourly (schedule, calendars and active window): widen the range`}},
		},
		"1001 slots: refused, naming where a first run of 1000 ends": {
			run:  ranged("2026-03-01T00:00:00Z", "2026-03-01T16:40:00Z"),
			objs: []client.Object{Hourly().Schedule("* * * * *").Obj()},
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.range",
				Message: `Invalid value: "2026-03-01T00:00:00Z to 2026-03-01T16:40:00Z": holds more than 1000 scheduled times of CronJob hourly: split it into CronJobRuns of at most 1000, the first from 2026-03-01T00:00:00Z to 2026-03-01T16:39:00Z`}},
		},
		"a calendar that does not exist: admitted, the slots not counted": {
			run: ranged("2026-03-02T05:00:00Z", "2026-03-02T08:00:00Z"), objs: []client.Object{Hourly().Calendars("freeze").Obj()},
			wantWarnings: []string{`spec.range: the slots of the range were not counted (spec.calendars: CronCalendar "freeze" does not exist in namespace ns: create it, or remove it from spec.calendars (no run starts while a listed calendar is missing)): the run will be Rejected unless the CronJob is fixed first`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := &CronJobRunCustomValidator{Client: FakeClient(nil, interceptor.Funcs{}, tc.objs...), Clock: clocktesting.NewFakePassiveClock(now)}

			warnings, err := v.ValidateCreate(context.Background(), tc.run.Obj())

			checkAdmission(t, warnings, err, tc.wantCauses, tc.wantWarnings)
		})
	}
}
