package webhooks

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/calendar"
)

// A CronCalendar the webhook refuses could stop the runs of every CronJob that lists it (InvalidCalendar),
// so failurePolicy is Fail, as for CronJobs: the schema checks the shapes, only the webhook can check that a
// date exists, a zone and a country are known and a schedule parses.
// +kubebuilder:webhook:path=/validate-batch-cronjob-operator-dev-v1-croncalendar,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.cronjob-operator.dev,resources=croncalendars,verbs=create;update,versions=v1,name=vcroncalendar-v1.batch.cronjob-operator.dev,admissionReviewVersions=v1,timeoutSeconds=5

// SetupCronCalendarWebhookWithManager registers the CronCalendar validating webhook with the manager's
// webhook server.
func SetupCronCalendarWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &cronjobv1.CronCalendar{}).
		WithValidator(&CronCalendarCustomValidator{}).
		Complete()
}

// CronCalendarCustomValidator is the validating admission webhook of CronCalendar: it refuses a calendar
// calendar.Validate finds an error in, with every error at its field (spec.excludeDates[3], ...).
type CronCalendarCustomValidator struct{}

// ValidateCreate refuses a calendar with an entry that cannot be used.
func (v *CronCalendarCustomValidator) ValidateCreate(_ context.Context, cal *cronjobv1.CronCalendar) (admission.Warnings, error) {
	return nil, validateCalendar(cal)
}

// ValidateUpdate refuses an update to a calendar with an entry that cannot be used.
func (v *CronCalendarCustomValidator) ValidateUpdate(_ context.Context, _, cal *cronjobv1.CronCalendar) (admission.Warnings, error) {
	return nil, validateCalendar(cal)
}

// ValidateDelete admits every delete (the CronJobs that list the calendar then hold their runs,
// CalendarNotFound).
func (v *CronCalendarCustomValidator) ValidateDelete(context.Context, *cronjobv1.CronCalendar) (admission.Warnings, error) {
	return nil, nil
}

func validateCalendar(cal *cronjobv1.CronCalendar) error {
	if errs := calendar.Validate(cal.Spec); len(errs) > 0 {
		return apierrors.NewInvalid(cronjobv1.GroupVersion.WithKind("CronCalendar").GroupKind(), cal.Name, errs)
	}
	return nil
}
