package webhooks

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/parameters"
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
type CronJobRunCustomValidator struct {
	// Client reads the CronJob; it should read from the API server (the manager's GetAPIReader), not a
	// cache. Nil admits every run without a check.
	Client client.Reader
	// LookupTimeout bounds the read of the CronJob; 0 means DefaultCronJobLookupTimeout (2 s).
	LookupTimeout time.Duration
}

// ValidateCreate admits the run, with a warning when its CronJob does not exist, is being deleted, or could
// not be read. It returns a 422 Invalid error, one cause per value, when spec.parameters does not fit the
// CronJob's parameters.
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
	switch {
	case apierrors.IsNotFound(err):
		return admission.Warnings{fmt.Sprintf("spec.cronJobName: CronJob %q does not exist in namespace %q: the run will be Rejected (%s) unless the CronJob is created before the controller starts the run; check spec.cronJobName",
			name, ns, cronjobv1.ReasonCronJobNotFound)}, nil
	case err != nil:
		return admission.Warnings{fmt.Sprintf("spec.cronJobName: CronJob %q was not checked (reading it failed: %v): if it does not exist in namespace %q, the run will be Rejected (%s)",
			name, err, ns, cronjobv1.ReasonCronJobNotFound)}, nil
	case cj.DeletionTimestamp != nil:
		return admission.Warnings{fmt.Sprintf("spec.cronJobName: CronJob %q in namespace %q is being deleted: the run will be Rejected (%s); create the CronJob again once it is gone, then another CronJobRun",
			name, ns, cronjobv1.ReasonCronJobDeleting)}, nil
	}
	if errs := parameters.Check(&cj, run.Spec.Parameters); len(errs) > 0 {
		return nil, apierrors.NewInvalid(cronjobv1.GroupVersion.WithKind("CronJobRun").GroupKind(), run.Name, errs)
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
