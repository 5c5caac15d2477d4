package webhooks

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

func TestCronCalendarAdmission(t *testing.T) {
	v := &CronCalendarCustomValidator{}
	good := &cronjobv1.CronCalendar{ObjectMeta: metav1.ObjectMeta{Name: "holidays"},
		Spec: cronjobv1.CronCalendarSpec{ExcludeDates: []string{"2026-12-24"}, Holidays: []cronjobv1.HolidaySet{{Country: "DE", Region: "BY"}}}}
	if _, err := v.ValidateCreate(context.Background(), good); err != nil {
		t.Errorf("a valid calendar: %v", err)
	}
	bad := good.DeepCopy()
	bad.Spec.ExcludeDates = []string{"2026-02-30"}
	bad.Spec.Holidays = []cronjobv1.HolidaySet{{Country: "XX"}}
	for name, err := range map[string]error{
		"create": func() error { _, err := v.ValidateCreate(context.Background(), bad); return err }(),
		"update": func() error { _, err := v.ValidateUpdate(context.Background(), good, bad); return err }(),
	} {
		status, ok := err.(apierrors.APIStatus)
		if !ok || !apierrors.IsInvalid(err) {
			t.Fatalf("%s: error %v, want Invalid", name, err)
		}
		fields := map[string]string{}
		for _, c := range status.Status().Details.Causes {
			fields[c.Field] = c.Message
		}
		if !strings.Contains(fields["spec.excludeDates[0]"], "not a date that exists") || !strings.Contains(fields["spec.holidays[0].country"], `"DE"`) {
			t.Errorf("%s: causes %v, want the date and the country named", name, fields)
		}
	}
	if _, err := v.ValidateDelete(context.Background(), bad); err != nil {
		t.Errorf("delete: %v", err)
	}
}
