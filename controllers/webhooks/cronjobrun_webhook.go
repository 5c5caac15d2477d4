package webhooks

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/calendar"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/clocks"
	"github.com/cronjob-operator/cronjob-operator/controllers/parameters"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// The webhook refuses only spec.parameters that do not fit the CronJob, and otherwise warns, so
// failurePolicy Ignore is right: when no replica answers (or the answer takes longer than timeoutSeconds,
// 3 s) the CronJobRun is admitted without the warning, and values that do not fit are caught by the
// controller instead (the run is Rejected, InvalidParameters); manual runs never depend on the webhook being
// up. It sees creates only: spec.cronJobName and spec.parameters are immutable (CRD CEL rules), so an update
// cannot change the answer.
// +kubebuilder:webhook:path=/validate-batch-cronjob-operator-dev-v1-cronjobrun,mutating=false,failurePolicy=ignore,sideEffects=None,groups=batch.cronjob-operator.dev,resources=cronjobruns,verbs=create,versions=v1,name=vcronjobrun-v1.batch.cronjob-operator.dev,admissionReviewVersions=v1,timeoutSeconds=3

// DefaultCronJobLookupTimeout bounds CronJobRunCustomValidator's read of the CronJob when its LookupTimeout
// is 0. It is shorter than the webhook's timeoutSeconds (3 s, see the marker above), so that a slow API
// server makes the webhook admit with a warning that the CronJob was not checked instead of the API server
// giving up on the webhook and admitting in silence.
const DefaultCronJobLookupTimeout = 2 * time.Second

// SetupCronJobRunWebhookWithManager registers the CronJobRun validating webhook with the manager's webhook
// server, reading CronJobs through mgr.GetAPIReader() (from the API server, never the cache: a webhook
// replica that is not the leader may have no warm cache, and a CronJob created a moment ago must be seen).
func SetupCronJobRunWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &cronjobv1.CronJobRun{}).
		WithValidator(&CronJobRunCustomValidator{Client: mgr.GetAPIReader()}).
		Complete()
}

// CronJobRunCustomValidator is the validating admission webhook of CronJobRun. It tells, at create, what
// the controller would only say later with a Rejected run: spec.cronJobName names no CronJob in the
// namespace (CronJobNotFound) or one that is being deleted (CronJobDeleting). Both are warnings, not
// refusals: a run created just before its CronJob (both in one `kubectl apply -f dir/`) must still be
// admitted, and the controller decides when it starts the run, as without the webhook. A name that could
// never name a CronJob is refused earlier, by the CRD's CEL rule on spec.cronJobName. A lookup that fails or
// times out admits with a warning that the CronJob was not checked: the webhook never blocks a run for want
// of its CronJob.
//
// spec.parameters is refused when it does not fit the parameters the CronJob declares (parameters.Check):
// a name it does not declare, a value outside the parameter's enum or not matching its pattern, each
// error at spec.parameters[NAME], naming the CronJob and the parameter. That is a refusal because the
// run could never start as asked; when the CronJob is missing or unread, the values are not checked here
// and the controller checks them when it starts the run.
//
// spec.range (a range backfill) is refused when range.to is in the future, or when the range holds no
// scheduled time of the CronJob or more than cronjobv1.MaxBackfillSlots (its schedule, calendars and
// active window, as the controller counts them), each with a message that says how to fix it; the first
// needs no CronJob. When the CronJob's calendars cannot be read the slots are not counted, with a warning.
type CronJobRunCustomValidator struct {
	// Client reads the CronJob; it should read from the API server (the manager's GetAPIReader), not a
	// cache. Nil admits every run without a check.
	Client client.Reader
	// LookupTimeout bounds the read of the CronJob; 0 means DefaultCronJobLookupTimeout (2 s).
	LookupTimeout time.Duration
	// Clock says what "the future" is for spec.range.to. Nil means the real clock.
	Clock clock.PassiveClock
}

// ValidateCreate admits the run, with a warning when its CronJob does not exist, is being deleted, or could
// not be read. It returns a 422 Invalid error, one cause per value, when spec.parameters does not fit the
// CronJob's parameters, and one for spec.range when it reaches into the future or holds no slot or more
// than MaxBackfillSlots (see the type's doc).
func (v *CronJobRunCustomValidator) ValidateCreate(ctx context.Context, run *cronjobv1.CronJobRun) (admission.Warnings, error) {
	if v.Client == nil {
		return nil, nil
	}
	ns := run.Namespace
	if req, err := admission.RequestFromContext(ctx); ns == "" && err == nil {
		ns = req.Namespace
	}
	name := run.Spec.CronJobName
	timeout := v.LookupTimeout
	if timeout == 0 {
		timeout = DefaultCronJobLookupTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var cj cronjobv1.CronJob
	err := v.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cj)
	var warning string
	switch {
	case apierrors.IsNotFound(err):
		warning = fmt.Sprintf("spec.cronJobName: CronJob %q does not exist in namespace %q: the run will be Rejected (%s) unless the CronJob is created before the controller starts the run; check spec.cronJobName",
			name, ns, cronjobv1.ReasonCronJobNotFound)
	case err != nil:
		warning = fmt.Sprintf("spec.cronJobName: CronJob %q was not checked (reading it failed: %v): if it does not exist in namespace %q, the run will be Rejected (%s)",
			name, err, ns, cronjobv1.ReasonCronJobNotFound)
	case cj.DeletionTimestamp != nil:
		warning = fmt.Sprintf("spec.cronJobName: CronJob %q in namespace %q is being deleted: the run will be Rejected (%s); create the CronJob again once it is gone, then another CronJobRun",
			name, ns, cronjobv1.ReasonCronJobDeleting)
	}
	if warning != "" {
		if _, errs := v.checkRange(ctx, nil, run); len(errs) > 0 {
			return admission.Warnings{warning}, apierrors.NewInvalid(cronjobv1.GroupVersion.WithKind("CronJobRun").GroupKind(), run.Name, errs)
		}
		return admission.Warnings{warning}, nil
	}
	errs := parameters.Check(&cj, run.Spec.Parameters)
	warnings, rangeErrs := v.checkRange(ctx, &cj, run)
	if errs = append(errs, rangeErrs...); len(errs) > 0 {
		return nil, apierrors.NewInvalid(cronjobv1.GroupVersion.WithKind("CronJobRun").GroupKind(), run.Name, errs)
	}
	return warnings, nil
}

// checkRange checks spec.range against the CronJob cj (nil when it could not be read): range.to not in the
// future, and between one and MaxBackfillSlots slots in the range.
func (v *CronJobRunCustomValidator) checkRange(ctx context.Context, cj *cronjobv1.CronJob, run *cronjobv1.CronJobRun) (admission.Warnings, field.ErrorList) {
	r := run.Spec.Range
	if r == nil {
		return nil, nil
	}
	path := field.NewPath("spec", "range")
	now := clocks.OrReal(v.Clock).Now()
	if r.To.After(now) {
		return nil, field.ErrorList{field.Invalid(path.Child("to"), r.To.UTC().Format(time.RFC3339),
			fmt.Sprintf("is in the future (now is %s): a backfill runs past scheduled times; set it to now or earlier", now.UTC().Format(time.RFC3339)))}
	}
	if cj == nil {
		return nil, nil
	}
	cals, _, calErr := calendar.Load(ctx, v.Client, cj)
	if calErr != nil {
		return admission.Warnings{fmt.Sprintf("spec.range: the slots of the range were not counted (%s): the controller counts them when it starts the run", calErr.Message)}, nil
	}
	sched, loc, err := schedule.ForCronJob(cj, cals)
	if err != nil {
		return admission.Warnings{fmt.Sprintf("spec.range: the slots of the range were not counted (%v): the run will be Rejected unless the CronJob is fixed first", err)}, nil
	}
	slots := schedule.Slots(sched, schedule.EarliestTime(cj), r.From.Time, r.To.Time, cronjobv1.MaxBackfillSlots+1)
	format := func(t time.Time) string { return t.In(loc).Format(time.RFC3339) }
	switch {
	case len(slots) == 0:
		return nil, field.ErrorList{field.Invalid(path, fmt.Sprintf("%s to %s", format(r.From.Time), format(r.To.Time)),
			fmt.Sprintf("holds no scheduled time of CronJob %s (schedule, calendars and active window): widen the range", cj.Name))}
	case len(slots) > cronjobv1.MaxBackfillSlots:
		return nil, field.ErrorList{field.Invalid(path, fmt.Sprintf("%s to %s", format(r.From.Time), format(r.To.Time)),
			fmt.Sprintf("holds more than %d scheduled times of CronJob %s: split it into CronJobRuns of at most %d, the first from %s to %s",
				cronjobv1.MaxBackfillSlots, cj.Name, cronjobv1.MaxBackfillSlots, format(r.From.Time), format(slots[cronjobv1.MaxBackfillSlots-1])))}
	}
	return nil, nil
}

// ValidateUpdate admits every update; the webhook is not called for updates (verbs=create), since
// spec.cronJobName and spec.parameters cannot change.
func (v *CronJobRunCustomValidator) ValidateUpdate(context.Context, *cronjobv1.CronJobRun, *cronjobv1.CronJobRun) (admission.Warnings, error) {
	return nil, nil
}

// ValidateDelete admits every delete; the webhook is not called for deletes.
func (v *CronJobRunCustomValidator) ValidateDelete(context.Context, *cronjobv1.CronJobRun) (admission.Warnings, error) {
	return nil, nil
}
