package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
)

// The manager provisions its webhook serving certificate itself, so that the webhooks work in a cluster
// with no cert-manager (an offline kind cluster, say). The rotator reads its Secret and the validating webhook
// configuration from an informer cache (list and watch), writes the certificate into the Secret and the
// CA into the caBundle of the configuration and of the CronJob CRD's conversion webhook (update), and does
// nothing else with them: the Secret ships
// empty with the manager (config/webhook), so it is never created. Each rule is limited to the object's
// name: the Secret's as config/webhook names it (kustomize's namePrefix renames it in the rule too), the
// configuration's as deployed (kustomize renames no resourceNames of its), the default of
// --validating-webhook-configuration. For list and watch the limit holds because the rotator's cache asks
// for that one object by a metadata.name field selector (nameScopedConfig). The CA's key stays in the
// Secret: the rotator reads it through the API (its cache), never from the mount, which holds only the
// serving pair (config/default), so rotation works without it on disk.
//
// There is no mutating webhook any more (every default is the CRD schema's); a cluster upgraded from a
// release that had one keeps its MutatingWebhookConfiguration until it is deleted (README "Security").
//
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,resourceNames=webhook-server-cert,verbs=list;watch;update
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,resourceNames=cronjob-operator-validating-webhook-configuration,verbs=list;watch;update
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,resourceNames=cronjobs.batch.cronjob-operator.dev,verbs=list;watch;update

// webhookCertOptions says where the webhook serving certificate comes from.
type webhookCertOptions struct {
	// rotate: provision and rotate the certificate with cert-controller; false when cert-manager (or an
	// operator) mounts one into files.dir.
	rotate bool
	// files is where the webhook server reads the certificate and key (the mount of secret); their file
	// names are also their keys in the Secret.
	files certFiles
	// secret names the Secret, in the manager's namespace, that holds the certificate and its CA.
	secret string
	// service is the name of the Service in front of the webhook server; the certificate is for
	// <service>.<namespace>.svc.
	service string
	// validating names the webhook configuration whose caBundle is kept in step.
	validating string
	// conversion names the CustomResourceDefinition whose conversion webhook's caBundle is kept in step
	// (CronJob's, served as v1 and v2); empty: none.
	conversion string
}

// addWebhookCertRotator registers cert-controller's rotator with the manager when o.rotate is set, and
// returns a channel that is closed once the certificate is in o.files (at once when not rotating). The
// rotator creates a CA and a serving certificate in the Secret (the Secret must exist: config/webhook
// ships it empty, so that its volume mounts), renews them before they expire, and writes the CA into the
// caBundle of the validating webhook configuration. Every replica runs it, leader or not: each one serves webhooks.
// It returns an error if the manager's namespace is unknown or the rotator cannot be added.
func addWebhookCertRotator(mgr ctrl.Manager, o webhookCertOptions) (<-chan struct{}, error) {
	ready := make(chan struct{})
	if !o.rotate {
		close(ready)
		return ready, nil
	}
	ns, err := podNamespace()
	if err != nil {
		return nil, err
	}
	// The rotator makes its own cache of Secrets in ns and of webhook configurations from mgr.GetConfig(),
	// with no way to narrow it; the config it is given asks for its two objects by name, so the manager
	// needs no right to read the other Secrets of its namespace or other webhook configurations.
	collections := map[string]string{
		"/api/v1/namespaces/" + ns + "/secrets":                                 o.secret,
		"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations": o.validating,
	}
	webhooks := []rotator.WebhookInfo{{Name: o.validating, Type: rotator.Validating}}
	if o.conversion != "" {
		collections["/apis/apiextensions.k8s.io/v1/customresourcedefinitions"] = o.conversion
		webhooks = append(webhooks, rotator.WebhookInfo{Name: o.conversion, Type: rotator.CRDConversion})
	}
	scoped := configManager{Manager: mgr, cfg: nameScopedConfig(mgr.GetConfig(), collections)}
	err = rotator.AddRotator(scoped, &rotator.CertRotator{
		SecretKey:             types.NamespacedName{Namespace: ns, Name: o.secret},
		CertDir:               o.files.dir,
		CertName:              o.files.name,
		KeyName:               o.files.key,
		CAName:                "cronjob-operator-ca",
		CAOrganization:        "cronjob-operator",
		DNSName:               fmt.Sprintf("%s.%s.svc", o.service, ns),
		ExtraDNSNames:         []string{fmt.Sprintf("%s.%s.svc.cluster.local", o.service, ns)},
		IsReady:               ready,
		Webhooks:              webhooks,
		RequireLeaderElection: false,
	})
	if err != nil {
		return nil, fmt.Errorf("adding the webhook certificate rotator: %w", err)
	}
	return ready, nil
}

// podNamespace is the namespace the manager runs in: $POD_NAMESPACE (the Deployment sets it from the
// downward API), else the service account's namespace file. It returns an error if neither is there.
func podNamespace() (string, error) {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns, nil
	}
	b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
	if err != nil {
		return "", fmt.Errorf("the manager's namespace is unknown: set POD_NAMESPACE (%w)", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// readyAfter is a readiness check that fails until ready is closed, then defers to check.
func readyAfter(ready <-chan struct{}, check func(*http.Request) error) func(*http.Request) error {
	return func(req *http.Request) error {
		select {
		case <-ready:
			return check(req)
		default:
			return errors.New("the webhooks are not registered yet (they wait for the serving certificate)")
		}
	}
}
