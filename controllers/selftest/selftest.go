// Package selftest checks an installation of cronjob-operator from inside the cluster, as a user's first
// CronJob would meet it: the API server admits a valid CronJob, the admission webhook refuses a schedule
// robfig/cron cannot parse, and, where v2 is served, the conversion webhook converts a v2 CronJob. Every
// write is a dry run, so nothing is left behind and no Job starts. The chart's `helm test` runs it as
// `manager --self-test`, in the manager's own image, so it needs nothing more than the release to pull.
package selftest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
)

// Options say what the installation should provide.
type Options struct {
	// Namespace is where the dry-run CronJobs are written; the caller needs create on cronjobs there.
	Namespace string
	// Webhooks: the admission webhooks are installed (the chart's webhooks.enabled), so an unparsable
	// schedule must be refused by them. Without, that check is skipped.
	Webhooks bool
}

// unparsable is a schedule the webhook refuses: minute 61.
const unparsable = "61 * * * *"

// Run runs the checks in order, writing one line per check to out ("ok   ..." or "FAIL ...: reason", or
// "skip ..." for a check the installation does not call for), and returns an error naming every check that
// failed. c must have the CronJob API (v1 and v2) in its scheme.
func Run(ctx context.Context, c client.Client, o Options, out io.Writer) error {
	var failed []string
	check := func(name string, err error) {
		if err != nil {
			failed = append(failed, name)
			_, _ = fmt.Fprintf(out, "FAIL %s: %v\n", name, err)
			return
		}
		_, _ = fmt.Fprintf(out, "ok   %s\n", name)
	}

	check("a valid CronJob is admitted (dry run)", c.Create(ctx, cronJob(o.Namespace, "*/5 * * * *"), client.DryRunAll))

	if o.Webhooks {
		check("the admission webhook refuses the schedule "+unparsable, refusedByWebhook(c.Create(ctx, cronJob(o.Namespace, unparsable), client.DryRunAll)))
	} else {
		_, _ = fmt.Fprintln(out, "skip the admission webhook: not installed")
	}

	served, err := servesV2(c)
	switch {
	case err != nil:
		check("the API server's discovery of the CronJob versions", err)
	case served:
		check("the conversion webhook converts a v2 CronJob (dry run)", c.Create(ctx, v2CronJob(o.Namespace), client.DryRunAll))
	default:
		_, _ = fmt.Fprintln(out, "skip the conversion webhook: v2 is not served")
	}

	if len(failed) > 0 {
		return fmt.Errorf("%d of the checks failed: %s", len(failed), strings.Join(failed, "; "))
	}
	return nil
}

// refusedByWebhook is nil when err is the webhook's refusal of the unparsable schedule: Invalid, naming
// spec.schedule and robfig/cron's reason. A webhook that cannot be called fails the create otherwise
// (failurePolicy Fail: InternalError), and an admitted create means no webhook judged it.
func refusedByWebhook(err error) error {
	switch {
	case err == nil:
		return errors.New("it was admitted: the webhook did not judge it (is the ValidatingWebhookConfiguration installed?)")
	case !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.schedule") || !strings.Contains(err.Error(), "above maximum"):
		return fmt.Errorf("refused, but not by the webhook's schedule check: %w", err)
	}
	return nil
}

// servesV2 tells whether the API server serves CronJob in v2.
func servesV2(c client.Client) (bool, error) {
	mappings, err := c.RESTMapper().RESTMappings(schema.GroupKind{Group: cronjobv1.GroupVersion.Group, Kind: "CronJob"})
	if err != nil {
		return false, err
	}
	for _, m := range mappings {
		if m.GroupVersionKind.Version == cronjobv2.GroupVersion.Version {
			return true, nil
		}
	}
	return false, nil
}

// cronJob is a minimal v1 CronJob with schedule, named for the self test.
func cronJob(ns, schedule string) *cronjobv1.CronJob {
	return &cronjobv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "cronjob-operator-self-test", Namespace: ns},
		Spec:       cronjobv1.CronJobSpec{Schedule: schedule, JobTemplate: jobTemplate()},
	}
}

// v2CronJob is cronJob's valid form in v2.
func v2CronJob(ns string) *cronjobv2.CronJob {
	return &cronjobv2.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "cronjob-operator-self-test", Namespace: ns},
		Spec:       cronjobv2.CronJobSpec{Schedule: cronjobv2.Schedule{Cron: "*/5 * * * *"}, JobTemplate: jobTemplate()},
	}
}

func jobTemplate() batchv1.JobTemplateSpec {
	return batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers:    []corev1.Container{{Name: "self-test", Image: "self-test.invalid/never-runs"}},
	}}}}
}
