package selftest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
)

// A client without webhooks or v2 (what the chart installs with webhooks.enabled=false): the checks that need
// them are skipped, the dry-run create passes.
func TestRunSkipsWhatIsNotInstalled(t *testing.T) {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = cronjobv1.AddToScheme(s)
	_ = cronjobv2.AddToScheme(s)
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{cronjobv1.GroupVersion})
	mapper.Add(cronjobv1.GroupVersion.WithKind("CronJob"), meta.RESTScopeNamespace)
	c := fake.NewClientBuilder().WithScheme(s).WithRESTMapper(mapper).Build()
	var out bytes.Buffer
	if err := Run(t.Context(), c, Options{Namespace: "default"}, &out); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	want := "ok   a valid CronJob is admitted (dry run)\nskip the admission webhook: not installed\nskip the conversion webhook: v2 is not served\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestRefusedByWebhook(t *testing.T) {
	gk := schema.GroupKind{Group: "batch.cronjob-operator.dev", Kind: "CronJob"}
	for _, tc := range []struct {
		name    string
		err     error
		wantErr string
	}{
		{"the webhook's refusal", webhookRefusal(gk), ""},
		{"admitted", nil, "it was admitted"},
		{"the webhook cannot be called", apierrors.NewInternalError(errors.New(`failed calling webhook "vcronjob-v1": connection refused`)), "not by the webhook's schedule check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := refusedByWebhook(tc.err)
			switch {
			case tc.wantErr == "" && got != nil:
				t.Errorf("refusedByWebhook = %v, want nil", got)
			case tc.wantErr != "" && (got == nil || !strings.Contains(got.Error(), tc.wantErr)):
				t.Errorf("refusedByWebhook = %v, want an error with %q", got, tc.wantErr)
			}
		})
	}
}

// webhookRefusal is the error the webhook's refusal of the schedule 61 * * * * gives a client.
func webhookRefusal(gk schema.GroupKind) error {
	err := apierrors.NewInvalid(gk, "x", nil)
	err.ErrStatus.Message = `CronJob "x" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61`
	return err
}
