package webhooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/clocks"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// +kubebuilder:webhook:path=/mutate-batch-cronjob-operator-dev-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.cronjob-operator.dev,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.batch.cronjob-operator.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-batch-cronjob-operator-dev-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.cronjob-operator.dev,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.batch.cronjob-operator.dev,admissionReviewVersions=v1

// SetupCronJobWebhookWithManager registers the CronJob defaulting and validating webhooks with the manager's
// webhook server, the validator on the real clock.
func SetupCronJobWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &cronjobv1.CronJob{}).
		WithDefaulter(&CronJobCustomDefaulter{}).
		WithValidator(&CronJobCustomValidator{}).
		Complete()
}

// CronJobCustomDefaulter is the defaulting admission webhook of CronJob.
type CronJobCustomDefaulter struct{}

// Default sets the defaults of batch/v1 CronJob: concurrencyPolicy Allow, suspend false, history limits 3
// and 1. The CRD schema sets the same defaults; this covers objects the schema defaulting does not reach.
func (d *CronJobCustomDefaulter) Default(_ context.Context, cj *cronjobv1.CronJob) error {
	if cj.Spec.ConcurrencyPolicy == "" {
		cj.Spec.ConcurrencyPolicy = cronjobv1.AllowConcurrent
	}
	if cj.Spec.MissedRunPolicy == "" {
		cj.Spec.MissedRunPolicy = cronjobv1.MissedRunMostRecent
	}
	if cj.Spec.Suspend == nil {
		cj.Spec.Suspend = ptr.To(false)
	}
	if cj.Spec.SuccessfulJobsHistoryLimit == nil {
		cj.Spec.SuccessfulJobsHistoryLimit = ptr.To(cronjobv1.DefaultSuccessfulJobsHistoryLimit)
	}
	if cj.Spec.FailedJobsHistoryLimit == nil {
		cj.Spec.FailedJobsHistoryLimit = ptr.To(cronjobv1.DefaultFailedJobsHistoryLimit)
	}
	return nil
}

// CronJobCustomValidator is the validating admission webhook of CronJob. It checks what the CRD schema and
// CEL rules cannot: spec.schedule must parse with the parser the controller uses (standard five fields or
// a descriptor; @every between one minute and five years), spec.timeZone must be a known IANA time zone,
// and spec.jitterSeconds must be shorter than the shortest interval between two scheduled times (over the
// next year; see schedule.ShortestInterval). A schedule that never fires (such as "0 0 31 2 *") is admitted
// with a warning.
//
// On update, the schedule, time zone and jitter are only checked when one of them changes, so that an
// object admitted before this webhook existed can still get its finalizers removed and be deleted.
type CronJobCustomValidator struct {
	// Clock gives `now` for the never-fires and jitter checks; nil means the real clock.
	Clock clock.PassiveClock
}

// ValidateCreate checks the schedule and time zone. The error is a 422 Invalid status listing each field
// with what to fix.
func (v *CronJobCustomValidator) ValidateCreate(_ context.Context, cj *cronjobv1.CronJob) (admission.Warnings, error) {
	return v.validate(cj, nil)
}

// ValidateUpdate checks the schedule and time zone when either changed.
func (v *CronJobCustomValidator) ValidateUpdate(_ context.Context, old, cj *cronjobv1.CronJob) (admission.Warnings, error) {
	return v.validate(cj, old)
}

// ValidateDelete admits every delete.
func (v *CronJobCustomValidator) ValidateDelete(context.Context, *cronjobv1.CronJob) (admission.Warnings, error) {
	return nil, nil
}

func (v *CronJobCustomValidator) validate(cj, old *cronjobv1.CronJob) (admission.Warnings, error) {
	if old != nil && old.Spec.Schedule == cj.Spec.Schedule &&
		ptr.Deref(old.Spec.TimeZone, "") == ptr.Deref(cj.Spec.TimeZone, "") &&
		ptr.Deref(old.Spec.JitterSeconds, 0) == ptr.Deref(cj.Spec.JitterSeconds, 0) {
		return nil, nil
	}
	sched, _, err := schedule.Parse(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err != nil {
		var se *schedule.Error
		if !errors.As(err, &se) {
			return nil, err
		}
		path := field.NewPath("spec", "schedule")
		value := any(cj.Spec.Schedule)
		if se.Reason == cronjobv1.ReasonUnknownTimeZone {
			path, value = field.NewPath("spec", "timeZone"), ptr.Deref(cj.Spec.TimeZone, "")
		}
		return nil, apierrors.NewInvalid(cronjobv1.GroupVersion.WithKind("CronJob").GroupKind(), cj.Name,
			field.ErrorList{field.Invalid(path, value, se.Message)})
	}
	now := clocks.OrReal(v.Clock).Now()
	if jitter := ptr.Deref(cj.Spec.JitterSeconds, 0); jitter > 0 {
		if gap := schedule.ShortestInterval(sched, now); gap > 0 && time.Duration(jitter)*time.Second >= gap {
			return nil, apierrors.NewInvalid(cronjobv1.GroupVersion.WithKind("CronJob").GroupKind(), cj.Name,
				field.ErrorList{field.Invalid(field.NewPath("spec", "jitterSeconds"), jitter,
					fmt.Sprintf("must be shorter than the shortest interval between two runs of spec.schedule %q, %v, or a delayed run could start after the next one is due: set it below %d",
						cj.Spec.Schedule, gap, int64(gap/time.Second)))})
		}
	}
	if schedule.Next(sched, now, now).IsZero() {
		return admission.Warnings{fmt.Sprintf("spec.schedule %q has no scheduled time in the next five years (a date that does not exist, such as 31 February?); the CronJob will never run", cj.Spec.Schedule)}, nil
	}
	return nil, nil
}
