package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
)

// DefaultPreflightTimeout bounds the preflight's dry-run create of a Job when CronJobCustomValidator's
// PreflightTimeout is 0. It is shorter than the webhook's timeoutSeconds (5 s, see the marker in
// cronjob_webhook.go), so that a slow API server makes the webhook admit with a warning instead of the API
// server giving up on the webhook.
const DefaultPreflightTimeout = 3 * time.Second

// placeholderUID stands for the CronJob's UID in the owner reference of the preflight's Job when the
// object under admission has none (the API server sets it before validating admission; a caller that calls
// the validator directly may not), so that the API server does not refuse the reference for an empty UID.
const placeholderUID = "00000000-0000-0000-0000-000000000000"

// NewPreflightClient returns a client for CronJobCustomValidator.Client: cfg's host and credentials with
// httpClient, scheme and mapper (the manager's: GetConfig, GetHTTPClient, GetScheme, GetRESTMapper), whose
// requests hand the warnings of the API server to the preflight that made them (through their context)
// instead of logging them. A request made with any other context logs its warnings as client-go does.
func NewPreflightClient(cfg *rest.Config, httpClient *http.Client, scheme *runtime.Scheme, mapper meta.RESTMapper) (client.Client, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = nil
	cfg.WarningHandlerWithContext = contextWarnings{}
	c, err := client.New(cfg, client.Options{HTTPClient: httpClient, Scheme: scheme, Mapper: mapper})
	if err != nil {
		return nil, fmt.Errorf("making the preflight client: %w", err)
	}
	return c, nil
}

// warningsKey is the context key of the *warningCollector of one preflight.
type warningsKey struct{}

// warningCollector keeps the warnings of the requests made with its context.
type warningCollector struct {
	mu       sync.Mutex
	warnings []string
}

// contextWarnings is a rest.WarningHandlerWithContext that hands each warning to the warningCollector
// of the request's context, or to client-go's logger when there is none. It holds no state, so one
// client serves concurrent admission requests, each with its own collector.
type contextWarnings struct{}

// HandleWarningHeaderWithContext implements rest.WarningHandlerWithContext.
func (contextWarnings) HandleWarningHeaderWithContext(ctx context.Context, code int, agent, text string) {
	c, ok := ctx.Value(warningsKey{}).(*warningCollector)
	if !ok {
		rest.WarningLogger{}.HandleWarningHeaderWithContext(ctx, code, agent, text)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.warnings = append(c.warnings, text)
}

// preflight asks the API server, with a server-side dry-run create bounded by the validator's timeout,
// whether it would accept the Job the controller builds from cj's template for the run at `scheduled`
// (jobs.New). It returns:
//   - no error and the dry run's warnings (Pod Security's warn mode, deprecations), each prefixed with
//     where it comes from, when the API server accepts the Job, or refuses it only because its name is
//     taken (AlreadyExists comes after validation and admission);
//   - a 422 Invalid error on cj when the API server refuses the Job as invalid, or forbids it by an admission
//     policy: the API server's own message, with each cause's field mapped onto spec.jobTemplate;
//   - no error and a warning when a ResourceQuota of the namespace is full now (it may not be at run time);
//   - no error and one warning saying so when the dry run cannot be made (timeout, API server error, a
//     webhook on Jobs that does not support dry runs, no right to create Jobs in the namespace): admission
//     never blocks on the preflight.
func (v *CronJobCustomValidator) preflight(ctx context.Context, cj *cronjobv1.CronJob, scheduled time.Time, loc *time.Location) (admission.Warnings, error) {
	job := jobs.New(cj, scheduled, loc, scheduled) // a dry run: the created-at value is not stored
	if cj.UID == "" {
		job.OwnerReferences[0].UID = placeholderUID
	}
	timeout := v.PreflightTimeout
	if timeout <= 0 {
		timeout = DefaultPreflightTimeout
	}
	collected := &warningCollector{}
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, warningsKey{}, collected), timeout)
	defer cancel()
	err := v.Client.Create(ctx, job, client.DryRunAll)
	collected.mu.Lock()
	warnings := make(admission.Warnings, 0, len(collected.warnings)+1)
	for _, w := range collected.warnings {
		warnings = append(warnings, "spec.jobTemplate: a Job made from it gets this warning: "+w)
	}
	collected.mu.Unlock()
	switch {
	case err == nil, apierrors.IsAlreadyExists(err):
		return warnings, nil
	case apierrors.IsInvalid(err), apierrors.IsForbidden(err) && !cannotCreateJobs(err) && !exceededQuota(err) &&
		!apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return warnings, refused(cj, err)
	case exceededQuota(err):
		return append(warnings, fmt.Sprintf("spec.jobTemplate: the namespace's ResourceQuota refuses a Job now (%s); the template is admitted because a quota's use changes, but a run due while it is full fails with FailedCreate",
			err.Error())), nil
	}
	reason := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		reason = fmt.Sprintf("no answer within %v", timeout)
	}
	return append(warnings, fmt.Sprintf("spec.jobTemplate was not checked against the API server (a dry-run create of its Job could not be made: %s); a Job the API server refuses will fail at run time with FailedCreate",
		reason)), nil
}

// exceededQuota reports whether a Forbidden error is a ResourceQuota that is full at this moment: a state of
// the namespace that changes, not a property of the template, so it warns instead of refusing.
func exceededQuota(err error) bool {
	return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "exceeded quota")
}

// cannotCreateJobs reports whether a Forbidden error is the authorizer refusing the manager the right to
// create Jobs (the manager runs namespace-scoped, say) rather than an admission plugin or policy refusing
// the Job: then it says nothing about the template.
func cannotCreateJobs(err error) bool {
	return strings.Contains(err.Error(), `cannot create resource "jobs"`)
}

// refused returns the 422 Invalid error that refuses cj because the API server refused its Job (err, an
// Invalid or Forbidden status): the API server's causes, each with its own message and its field moved under
// spec.jobTemplate (one cause on spec.jobTemplate with the API server's message when it gives none), listed in
// the message after "the API server would refuse its Jobs: " as NewInvalid lists field errors (a Job's metadata.labels becomes
// spec.jobTemplate.metadata.labels, its spec.template spec.jobTemplate.spec.template). A cause without a
// field, or on a field the controller sets itself (the Job's name, namespace, owner), keeps its field.
func refused(cj *cronjobv1.CronJob, err error) error {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return err
	}
	st := status.Status()
	gk := cronjobv1.GroupVersion.WithKind("CronJob").GroupKind()
	details := &metav1.StatusDetails{Group: gk.Group, Kind: gk.Kind, Name: cj.Name}
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			c.Field = templateField(c.Field)
			details.Causes = append(details.Causes, c)
		}
	}
	if len(details.Causes) == 0 {
		details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.jobTemplate", Message: st.Message}}
	}
	causes := make([]string, 0, len(details.Causes))
	for _, c := range details.Causes {
		causes = append(causes, c.Field+": "+c.Message)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnprocessableEntity,
		Reason:  metav1.StatusReasonInvalid,
		Details: details,
		Message: fmt.Sprintf("%s %q is invalid: the API server would refuse its Jobs: [%s]", gk, cj.Name, strings.Join(causes, ", ")),
	}}
}

// templateField maps the path of a field of the Job onto the CronJob's template.
func templateField(f string) string {
	for _, prefix := range []string{"spec", "metadata.labels", "metadata.annotations"} {
		if f == prefix || strings.HasPrefix(f, prefix+".") || strings.HasPrefix(f, prefix+"[") {
			return "spec.jobTemplate." + f
		}
	}
	return f
}
