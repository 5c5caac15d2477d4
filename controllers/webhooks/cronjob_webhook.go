package webhooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	cron "github.com/netresearch/go-cron"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/clocks"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// The webhook sees only the writes whose answer it may change (matchConditions): a create, or an update
// that changes one of the fields it reads (schedule, schedules, timeZone, jitterSeconds,
// startingDeadlineSeconds, calendars, activeWindow, jobTemplate; besides them it reads only the name, namespace and UID, which do not change). Any other write
// (a label edit, a finalizer removal, suspend, a history limit or concurrencyPolicy, a status write: a
// subresource the rule does not name) never reaches it, so it succeeds while no replica answers, despite
// failurePolicy Fail; suspending a CronJob is the write an operator needs most when things go wrong. timeoutSeconds
// is 5: longer than the preflight's DefaultPreflightTimeout (3 s), so that a slow dry run ends in an admission
// with a warning rather than in the API server giving up on the webhook and refusing the write.
// +kubebuilder:webhook:path=/validate-batch-cronjob-operator-dev-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.cronjob-operator.dev,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.batch.cronjob-operator.dev,admissionReviewVersions=v1,timeoutSeconds=5,patch=`{"matchConditions":[{"name":"create-or-validated-field-change","expression":"request.operation == 'CREATE' || has(object.spec.schedule) != has(oldObject.spec.schedule) || (has(object.spec.schedule) && object.spec.schedule != oldObject.spec.schedule) || has(object.spec.schedules) != has(oldObject.spec.schedules) || (has(object.spec.schedules) && object.spec.schedules != oldObject.spec.schedules) || object.spec.jobTemplate != oldObject.spec.jobTemplate || has(object.spec.timeZone) != has(oldObject.spec.timeZone) || (has(object.spec.timeZone) && object.spec.timeZone != oldObject.spec.timeZone) || has(object.spec.jitterSeconds) != has(oldObject.spec.jitterSeconds) || (has(object.spec.jitterSeconds) && object.spec.jitterSeconds != oldObject.spec.jitterSeconds) || has(object.spec.startingDeadlineSeconds) != has(oldObject.spec.startingDeadlineSeconds) || (has(object.spec.startingDeadlineSeconds) && object.spec.startingDeadlineSeconds != oldObject.spec.startingDeadlineSeconds) || has(object.spec.calendars) != has(oldObject.spec.calendars) || (has(object.spec.calendars) && object.spec.calendars != oldObject.spec.calendars) || has(object.spec.activeWindow) != has(oldObject.spec.activeWindow) || (has(object.spec.activeWindow) && object.spec.activeWindow != oldObject.spec.activeWindow)"}]}`

// SetupCronJobWebhookWithManager registers the CronJob validating webhook with the manager's webhook server:
// the validator on the real clock, its preflight through NewPreflightClient on the manager's
// configuration (a dry run goes to the API server, never to the cache). There is no defaulting webhook:
// every default is a +kubebuilder:default of the CRD schema.
func SetupCronJobWebhookWithManager(mgr ctrl.Manager) error {
	c, err := NewPreflightClient(mgr.GetConfig(), mgr.GetHTTPClient(), mgr.GetScheme(), mgr.GetRESTMapper())
	if err != nil {
		return err
	}
	mgr.GetWebhookServer().Register(RetiredMutatingPath, &webhook.Admission{Handler: RetiredMutatingHandler()})
	return ctrl.NewWebhookManagedBy(mgr, &cronjobv1.CronJob{}).
		WithValidator(&CronJobCustomValidator{Client: c}).
		Complete()
}

// RetiredMutatingPath is the path of the defaulting webhook that releases before issue 23 shipped.
const RetiredMutatingPath = "/mutate-batch-cronjob-operator-dev-v1-cronjob"

// RetiredMutatingHandler answers the retired defaulting webhook's path by admitting every request
// unchanged. A cluster upgraded with kubectl apply keeps the old MutatingWebhookConfiguration (apply does
// not delete objects), and its failurePolicy Fail would otherwise refuse every CronJob write once the path
// is gone; with this answer the stale configuration only costs a round trip until it is deleted.
func RetiredMutatingHandler() admission.Handler {
	return admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Allowed("the defaulting webhook is retired: delete the MutatingWebhookConfiguration that calls it")
	})
}

// CronJobCustomValidator is the validating admission webhook of CronJob. It checks what the CRD schema and
// CEL rules cannot:
//   - spec.schedule must parse with the parser the controller uses (standard five fields or a descriptor;
//     @every between one minute and five years), spec.timeZone must be a known IANA time zone, and
//     spec.jitterSeconds must be shorter than the shortest interval between two scheduled times (over the
//     next year; see schedule.ShortestInterval). A schedule that never fires (such as "0 0 31 2 *") is
//     admitted with a warning. On update these are only checked when one of them changes, so that an object
//     admitted before this webhook existed can still get its finalizers removed and be deleted.
//   - the preflight: the Job the controller would build from spec.jobTemplate for the next scheduled time
//     (or now, if none) must be one the API server accepts, asked with a server-side dry-run create in the
//     CronJob's namespace, so that every validation and admission policy of the namespace speaks at
//     admission, as batch/v1 CronJob's own validation of its template does, not at 3 a.m. with FailedCreate.
//     See preflight for what is refused, warned and admitted. On update it runs only when spec.jobTemplate
//     changes (nothing else of the CronJob changes the Job but its name and scheduled time).
//   - spec.startingDeadlineSeconds of 0 is admitted with a warning: no run can start within 0 seconds of
//     its scheduled time, so every run is missed (batch/v1 admits it silently).
type CronJobCustomValidator struct {
	// Clock gives `now` for the never-fires and jitter checks and the preflight's scheduled time; nil means
	// the real clock.
	Clock clock.PassiveClock
	// Client makes the preflight's dry-run create (NewPreflightClient, so that its warnings come back as
	// admission warnings). Nil skips the preflight.
	Client client.Client
	// PreflightTimeout bounds the preflight's dry run; 0 means DefaultPreflightTimeout (3 s). Past it the
	// CronJob is admitted with a warning.
	PreflightTimeout time.Duration
}

// ValidateCreate checks the schedule, time zone and jitter, and the template with the preflight. The error
// is a 422 Invalid status listing each field with what to fix.
func (v *CronJobCustomValidator) ValidateCreate(ctx context.Context, cj *cronjobv1.CronJob) (admission.Warnings, error) {
	w, err := v.validate(ctx, cj, nil)
	return inRequestVersion(ctx, w, err)
}

// ValidateUpdate checks the schedule, time zone and jitter when one of them changed, the template when it
// changed.
func (v *CronJobCustomValidator) ValidateUpdate(ctx context.Context, old, cj *cronjobv1.CronJob) (admission.Warnings, error) {
	w, err := v.validate(ctx, cj, old)
	return inRequestVersion(ctx, w, err)
}

// inRequestVersion names the fields of warnings and err by their v2 places when the request came in v2:
// the webhook is registered for v1 only (matchPolicy Equivalent), so the API server sends it the v1 form
// of a v2 object, and the v1 paths would name fields the user never wrote. A v1 request, or one without
// its admission request in ctx (a unit test calling the validator), is returned as it is.
func inRequestVersion(ctx context.Context, warnings admission.Warnings, err error) (admission.Warnings, error) {
	req, reqErr := admission.RequestFromContext(ctx)
	if reqErr != nil || req.RequestKind == nil || req.RequestKind.Version != cronjobv2.GroupVersion.Version {
		return warnings, err
	}
	for i := range warnings {
		warnings[i] = cronjobv2.V2Paths(warnings[i])
	}
	if status, ok := errors.AsType[*apierrors.StatusError](err); ok {
		status.ErrStatus.Message = cronjobv2.V2Paths(status.ErrStatus.Message)
		if d := status.ErrStatus.Details; d != nil {
			for i := range d.Causes {
				d.Causes[i].Field = cronjobv2.V2Paths(d.Causes[i].Field)
				d.Causes[i].Message = cronjobv2.V2Paths(d.Causes[i].Message)
			}
		}
	}
	return warnings, err
}

// ValidateDelete admits every delete.
func (v *CronJobCustomValidator) ValidateDelete(context.Context, *cronjobv1.CronJob) (admission.Warnings, error) {
	return nil, nil
}

func (v *CronJobCustomValidator) validate(ctx context.Context, cj, old *cronjobv1.CronJob) (admission.Warnings, error) {
	now := clocks.OrReal(v.Clock).Now()
	var warnings admission.Warnings
	scheduled, loc := now, time.UTC
	sched, parsedLoc, err := schedulesOf(cj)
	if old == nil || old.Spec.Schedule != cj.Spec.Schedule ||
		ptr.Deref(old.Spec.TimeZone, "") != ptr.Deref(cj.Spec.TimeZone, "") ||
		!equality.Semantic.DeepEqual(old.Spec.Schedules, cj.Spec.Schedules) ||
		!equality.Semantic.DeepEqual(old.Spec.ActiveWindow, cj.Spec.ActiveWindow) ||
		ptr.Deref(old.Spec.JitterSeconds, 0) != ptr.Deref(cj.Spec.JitterSeconds, 0) {
		w, err := checkSchedule(cj, sched, err, now)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, w...)
	}
	if err == nil {
		loc = parsedLoc
		if next := schedule.Next(sched, now, now); !next.IsZero() {
			scheduled = next
		}
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && *d == 0 && (old == nil || !ptr.Equal(old.Spec.StartingDeadlineSeconds, d)) {
		warnings = append(warnings, "spec.startingDeadlineSeconds is 0: no run can start within 0 seconds of its scheduled time, so every run will be missed; leave it unset for no deadline, or give the time a run may still start late, such as 60")
	}
	if v.Client != nil && (old == nil || !slices.Equal(old.Spec.Calendars, cj.Spec.Calendars)) {
		warnings = append(warnings, v.missingCalendars(ctx, cj)...)
	}
	if v.Client != nil && (old == nil || !equality.Semantic.DeepEqual(old.Spec.JobTemplate, cj.Spec.JobTemplate)) {
		w, err := v.preflight(ctx, cj, scheduled, loc)
		warnings = append(warnings, w...)
		if err != nil {
			return warnings, err
		}
	}
	return warnings, nil
}

// missingCalendars warns about each CronCalendar of spec.calendars that does not exist in the CronJob's
// namespace: the CronJob is admitted (a calendar may be applied just after it), but no run starts while a
// listed calendar is missing (CalendarNotFound). A read that fails otherwise warns of nothing: the
// controller reports it.
func (v *CronJobCustomValidator) missingCalendars(ctx context.Context, cj *cronjobv1.CronJob) admission.Warnings {
	ns := cj.Namespace
	if req, err := admission.RequestFromContext(ctx); ns == "" && err == nil {
		ns = req.Namespace
	}
	var warnings admission.Warnings
	for _, name := range cj.Spec.Calendars {
		err := v.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cronjobv1.CronCalendar{})
		if apierrors.IsNotFound(err) {
			warnings = append(warnings, fmt.Sprintf("spec.calendars: CronCalendar %q does not exist in namespace %q: no run starts until it does (%s); create it, or remove it from spec.calendars",
				name, ns, cronjobv1.ReasonCalendarNotFound))
		}
	}
	return warnings
}

// checkSchedule returns the error that refuses cj's schedule, time zone or jitter (parseErr is
// schedule.Parse's), or the warning that it never fires.
func checkSchedule(cj *cronjobv1.CronJob, sched cron.Schedule, parseErr error, now time.Time) (admission.Warnings, error) {
	if parseErr != nil {
		var se *schedule.Error
		if !errors.As(parseErr, &se) {
			return nil, parseErr
		}
		path := field.NewPath("spec", "schedule")
		value := any(cj.Spec.Schedule)
		switch {
		case se.Field != "":
			path, value = field.NewPath(se.Field), cj.Spec.Schedules
		case se.Reason == cronjobv1.ReasonUnknownTimeZone:
			path, value = field.NewPath("spec", "timeZone"), ptr.Deref(cj.Spec.TimeZone, "")
		}
		return nil, apierrors.NewInvalid(cronjobv1.GroupVersion.WithKind("CronJob").GroupKind(), cj.Name,
			field.ErrorList{field.Invalid(path, value, se.Message)})
	}
	if jitter := ptr.Deref(cj.Spec.JitterSeconds, 0); jitter > 0 {
		if gap := schedule.ShortestInterval(sched, now); gap > 0 && time.Duration(jitter)*time.Second >= gap {
			return nil, apierrors.NewInvalid(cronjobv1.GroupVersion.WithKind("CronJob").GroupKind(), cj.Name,
				field.ErrorList{field.Invalid(field.NewPath("spec", "jitterSeconds"), jitter,
					fmt.Sprintf("must be shorter than the shortest interval between two runs of %s, %v, or a delayed run could start after the next one is due: set it below %d",
						scheduleName(cj), gap, int64(gap/time.Second)))})
		}
	}
	if schedule.Next(sched, now, now).IsZero() {
		return admission.Warnings{fmt.Sprintf("%s has no scheduled time in the next five years (a date that does not exist, such as 31 February?, or an activeWindow that has ended); the CronJob will never run", scheduleName(cj))}, nil
	}
	return nil, nil
}

// schedulesOf is the CronJob's scheduled times as the scheduler computes them (schedule.ForScheduler), but
// for its calendars, which only remove times and are checked by their own webhook.
func schedulesOf(cj *cronjobv1.CronJob) (cron.Schedule, *time.Location, error) {
	c := *cj
	c.Spec.Calendars = nil
	return schedule.ForScheduler(&c, nil)
}

// scheduleName names the CronJob's schedule in a message: spec.schedule "...", or spec.schedules.
func scheduleName(cj *cronjobv1.CronJob) string {
	if len(cj.Spec.Schedules) > 0 {
		return "spec.schedules (their union)"
	}
	return fmt.Sprintf("spec.schedule %q", cj.Spec.Schedule)
}
