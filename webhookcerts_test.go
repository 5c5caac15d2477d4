package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/cronjob-operator/cronjob-operator/controllers/version"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The names config/default deploys the manager with.
const (
	operatorNamespace = "cronjob-operator-system"
	managerUser       = "system:serviceaccount:" + operatorNamespace + ":cronjob-operator-controller-manager"
)

var _ = Describe("Webhook certificate rotation", Ordered, func() {
	var (
		env      *envtest.Environment
		c        client.Client
		rendered []*unstructured.Unstructured
	)
	BeforeAll(func(ctx SpecContext) {
		ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
		assets, err := framework.BinaryAssetsDir()
		Expect(err).NotTo(HaveOccurred())
		env = &envtest.Environment{BinaryAssetsDirectory: assets}
		cfg, err := env.Start()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(env.Stop)
		scheme := runtime.NewScheme()
		Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
		Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
		c, err = client.New(cfg, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())

		By("applying config/default's RBAC, Secret and webhook configurations")
		rendered, err = framework.Kustomize(ctx, "config/default")
		Expect(err).NotTo(HaveOccurred())
		Expect(framework.ApplyRBAC(ctx, c, rendered)).To(Succeed())
		for _, o := range rendered {
			switch o.GetKind() {
			case "Secret", "ValidatingWebhookConfiguration", "CustomResourceDefinition":
				Expect(c.Create(ctx, o.DeepCopy())).To(Succeed())
			}
		}
	})

	When("the manager runs with the rights config/default gives its ServiceAccount", func() {
		It("should fill its Secret and the caBundle of its webhook configuration, and touch no other", func(ctx SpecContext) {
			By("creating a Secret and a webhook configuration of someone else")
			strangerSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNamespace, Name: "someone-elses-secret"},
				Data: map[string][]byte{"key": []byte("value")}}
			Expect(c.Create(ctx, strangerSecret)).To(Succeed())
			strangerWebhook := &admissionregistrationv1.MutatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: "someone-elses-webhook"},
				Webhooks: []admissionregistrationv1.MutatingWebhook{{
					Name:                    "someone.example.com",
					ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://example.com/"), CABundle: []byte("theirs")},
					AdmissionReviewVersions: []string{"v1"},
					SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
					FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
				}},
			}
			Expect(c.Create(ctx, strangerWebhook)).To(Succeed())

			By("starting a manager as the ServiceAccount, with the rotator as main.go wires it")
			certDir := GinkgoT().TempDir()
			ready := startRotator(ctx, env.Config, certDir)

			By("mounting the Secret's serving pair (not the CA) into the certificate directory, as the kubelet does with config/default's items")
			secret := &corev1.Secret{}
			Eventually(func(g Gomega) {
				g.Expect(c.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: "cronjob-operator-webhook-server-cert"}, secret)).To(Succeed())
				g.Expect(secret.Data).To(HaveKey("ca.crt"))
				g.Expect(secret.Data).To(HaveKey("tls.crt"))
				g.Expect(secret.Data).To(HaveKey("tls.key"))
			}).Should(Succeed())
			Expect(fieldManagers(secret)).To(ContainElement(version.Name), "the manager writes as cronjob-operator, not as its binary's name")
			for _, key := range []string{"tls.crt", "tls.key"} {
				Expect(os.WriteFile(filepath.Join(certDir, key), secret.Data[key], 0o600)).To(Succeed())
			}

			By("waiting for the rotator to report the certificate ready (CA injected)")
			Eventually(ready).WithTimeout(3 * framework.Timeout).Should(BeClosed())
			validating := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			Expect(c.Get(ctx, client.ObjectKey{Name: "cronjob-operator-validating-webhook-configuration"}, validating)).To(Succeed())
			for _, w := range validating.Webhooks {
				Expect(bytes.Equal(w.ClientConfig.CABundle, secret.Data["ca.crt"])).To(BeTrue(), "caBundle of %s", w.Name)
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			Eventually(func(g Gomega) {
				g.Expect(c.Get(ctx, client.ObjectKey{Name: "cronjobs.batch.cronjob-operator.dev"}, crd)).To(Succeed())
				g.Expect(crd.Spec.Conversion.Webhook.ClientConfig.CABundle).To(Equal(secret.Data["ca.crt"]),
					"the CronJob CRD's conversion webhook trusts the CA")
			}).Should(Succeed())

			By("checking that the stranger's objects are as they were")
			Consistently(func(g Gomega) {
				got := &admissionregistrationv1.MutatingWebhookConfiguration{}
				g.Expect(c.Get(ctx, client.ObjectKeyFromObject(strangerWebhook), got)).To(Succeed())
				g.Expect(got.ResourceVersion).To(Equal(strangerWebhook.ResourceVersion))
				gotSecret := &corev1.Secret{}
				g.Expect(c.Get(ctx, client.ObjectKeyFromObject(strangerSecret), gotSecret)).To(Succeed())
				g.Expect(gotSecret.ResourceVersion).To(Equal(strangerSecret.ResourceVersion))
			}).Should(Succeed())
		})
	})
})

// startRotator starts a manager made by main.go's newManager (metrics and probes off) that makes its
// requests as managerUser and runs the webhook certificate rotator with main.go's defaults (the flags
// config/default passes), with certDir as the certificate directory, and stops it when the spec ends. It
// returns the rotator's ready channel.
func startRotator(ctx context.Context, admin *rest.Config, certDir string) <-chan struct{} {
	GinkgoHelper()
	cfg := rest.CopyConfig(admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: managerUser}
	var o options
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	Expect(o.parse(fs, []string{"--metrics-bind-address=0", "--health-probe-bind-address=0"})).To(Succeed())
	mgr, err := newManager(cfg, &o, nil)
	Expect(err).NotTo(HaveOccurred())
	GinkgoT().Setenv("POD_NAMESPACE", operatorNamespace)
	ready, err := addWebhookCertRotator(mgr, webhookCertOptions{
		rotate:     true,
		files:      certFiles{dir: certDir, name: "tls.crt", key: "tls.key"},
		secret:     "cronjob-operator-webhook-server-cert",
		service:    "cronjob-operator-webhook-service",
		validating: "cronjob-operator-validating-webhook-configuration",
		conversion: "cronjobs.batch.cronjob-operator.dev",
	})
	Expect(err).NotTo(HaveOccurred())
	mgrCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() {
		defer GinkgoRecover()
		done <- mgr.Start(mgrCtx)
	}()
	DeferCleanup(func() {
		cancel()
		Eventually(done).Should(Receive(Not(HaveOccurred())))
	})
	return ready
}

// fieldManagers returns the field managers of o's metadata.managedFields.
func fieldManagers(o client.Object) []string {
	var names []string
	for _, m := range o.GetManagedFields() {
		names = append(names, m.Manager)
	}
	return names
}
