package calendar

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// Load reads the CronCalendars that cj's spec.calendars names, from c (the CronJob's namespace), and
// compiles them. It returns the compiled calendars by name (a calendar that does not exist is left out, so
// that schedule.ForCronJob reports CalendarNotFound for it) and the spec of each name (nil for a missing
// one), for a digest of what the plan depends on. A read that fails for another reason than NotFound is an
// error with reason CalendarNotFound, and a calendar that does not compile one with reason InvalidCalendar
// (the first such calendar; the others are still returned). A CronJob without calendars costs no read.
func Load(ctx context.Context, c client.Reader, cj *cronjobv1.CronJob) (schedule.Calendars, map[string]*cronjobv1.CronCalendarSpec, *schedule.Error) {
	if len(cj.Spec.Calendars) == 0 {
		return nil, nil, nil
	}
	specs := make(map[string]*cronjobv1.CronCalendarSpec, len(cj.Spec.Calendars))
	cals := make(schedule.Calendars, len(cj.Spec.Calendars))
	var invalid *schedule.Error
	for _, name := range cj.Spec.Calendars {
		cal := &cronjobv1.CronCalendar{}
		err := c.Get(ctx, client.ObjectKey{Namespace: cj.Namespace, Name: name}, cal)
		if err != nil {
			if !apierrors.IsNotFound(err) {
				return nil, nil, &schedule.Error{Reason: cronjobv1.ReasonCalendarNotFound,
					Message: fmt.Sprintf("spec.calendars: reading CronCalendar %q: %v", name, err)}
			}
			specs[name] = nil
			continue
		}
		specs[name] = &cal.Spec
		compiled, err := Compile(cal.Spec)
		if err != nil {
			if invalid == nil {
				invalid = &schedule.Error{Reason: cronjobv1.ReasonInvalidCalendar,
					Message: fmt.Sprintf("spec.calendars: CronCalendar %q cannot be used: %v: fix the calendar (no run starts until then)", name, err)}
			}
			continue
		}
		cals[name] = compiled
	}
	return cals, specs, invalid
}
