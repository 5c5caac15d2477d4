//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The Helm release of the install spec, in the operator's usual namespace.
const (
	helmRelease = "cronjob-operator"
	crdName     = "cronjobs.batch.cronjob-operator.dev"
)

// The install specs install the operator the two ways users do, from dist/install.yaml and from the Helm
// chart dist/chart, in place of the suite's config/e2e deployment. They are Serial, as the CRD, the
// ClusterRoles and the webhook configurations are cluster-wide, and Ordered: config/e2e's deployment (the
// CRD and every CronJob with it) is removed once before them and put back once after them, and each spec
// installs, runs a CronJob to completion and uninstalls. Both use the suite's manager image, which the kind
// node has (never pulled).
var _ = Describe("Install", Label("install"), Serial, Ordered, func() {
	kubeconfig := func() string { return filepath.Join(settings.artifacts, "kubeconfig") }

	BeforeAll(func(ctx SpecContext) {
		DeferCleanup(func(ctx SpecContext) { deployOperator(ctx, kubeconfig()) })
		undeployOperator(ctx, kubeconfig())
	})

	It("should install the operator from dist/install.yaml with server-side apply, run a CronJob and uninstall", func(ctx SpecContext) {
		manifests := installManifests()

		By("applying dist/install.yaml server-side, as the README says")
		run(ctx, strings.NewReader(manifests), settings.kubectl, "--kubeconfig", kubeconfig(), "apply", "--server-side", "-f", "-")
		waitForManager(ctx)
		waitForWebhooks(ctx)

		expectReadableInV2(ctx, runCronJobToCompletion(ctx, time.Time{}))

		By("deleting what dist/install.yaml created")
		run(ctx, strings.NewReader(manifests), settings.kubectl, "--kubeconfig", kubeconfig(), "delete", "--wait", "-f", "-")
		expectGone(ctx, &apiextensionsv1.CustomResourceDefinition{}, client.ObjectKey{Name: crdName})
		expectGone(ctx, &appsv1.Deployment{}, client.ObjectKey{Namespace: operatorNamespace, Name: managerDeployment})
	})

	It("should install the Helm chart, run a CronJob, upgrade the release and uninstall it, keeping the CRD", func(ctx SpecContext) {
		repo, tag, _ := strings.Cut(settings.managerImage, ":")
		helm := func(args ...string) {
			GinkgoHelper()
			run(ctx, nil, settings.helm, append([]string{"--kubeconfig", kubeconfig(), "--namespace", operatorNamespace}, args...)...)
		}

		By("helm install, into a namespace helm creates")
		helm("install", helmRelease, repoPath("dist", "chart"), "--create-namespace",
			"--set", "image.repository="+repo, "--set", "image.tag="+tag, "--set", "image.pullPolicy=Never")
		waitForManager(ctx)
		waitForWebhooks(ctx)
		cj := runCronJobToCompletion(ctx, time.Time{})
		expectReadableInV2(ctx, cj)

		By("helm upgrade to two replicas: the rollout keeps the CronJob running")
		upgraded := time.Now()
		helm("upgrade", helmRelease, repoPath("dist", "chart"), "--reuse-values", "--set", "replicas=2")
		var deploy appsv1.Deployment
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: managerDeployment}, &deploy)).To(Succeed())
		Expect(*deploy.Spec.Replicas).To(BeNumerically("==", 2))
		waitForManager(ctx)
		waitForWebhooks(ctx)
		waitForSuccessfulRun(ctx, cj, upgraded)

		By("helm uninstall: the operator goes, the CRD and the CronJob stay (crd.keep)")
		helm("uninstall", helmRelease, "--wait")
		expectGone(ctx, &appsv1.Deployment{}, client.ObjectKey{Namespace: operatorNamespace, Name: managerDeployment})
		expectGone(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{},
			client.ObjectKey{Name: "cronjob-operator-validating-webhook-configuration"})
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &cronjobv1.CronJob{})).To(Succeed())
	})
})

// imageLine is the manager's image in dist/install.yaml (the CRD's schema has no `image: value` line).
var imageLine = regexp.MustCompile(`(?m)^(\s+image: )\S+$`)

// installManifests is dist/install.yaml with the suite's manager image.
func installManifests() string {
	GinkgoHelper()
	raw, err := os.ReadFile(repoPath("dist", "install.yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(imageLine.FindAllIndex(raw, -1)).To(HaveLen(1), "dist/install.yaml should name one image, the manager's")
	return imageLine.ReplaceAllString(string(raw), "${1}"+settings.managerImage)
}

// undeployOperator deletes config/e2e's deployment, the CRD and the Namespace with it, and waits until they
// are gone.
func undeployOperator(ctx context.Context, kubeconfig string) {
	GinkgoHelper()
	By("deleting the operator of config/e2e")
	manifests := kustomizeBuild(ctx, repoPath("config", "e2e"))
	run(ctx, strings.NewReader(manifests), settings.kubectl, "--kubeconfig", kubeconfig, "delete",
		"--ignore-not-found", "--wait", "-f", "-")
	expectGone(ctx, &apiextensionsv1.CustomResourceDefinition{}, client.ObjectKey{Name: crdName})
}

// runCronJobToCompletion creates a minutely CronJob whose Jobs exit 0 in a new namespace and waits for a
// successful run scheduled after after.
func runCronJobToCompletion(ctx context.Context, after time.Time) *cronjobv1.CronJob {
	GinkgoHelper()
	By("running a CronJob to completion")
	cj := minutely("install", newNamespace(ctx), 0, 0).Obj()
	Expect(k8sClient.Create(ctx, cj)).To(Succeed())
	waitForSuccessfulRun(ctx, cj, after)
	return cj
}

// waitForSuccessfulRun waits until the CronJob's lastSuccessfulTime is after after.
func waitForSuccessfulRun(ctx context.Context, cj *cronjobv1.CronJob, after time.Time) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		last := framework.GetCronJob(ctx, g, k8sClient, cj).Status.LastSuccessfulTime
		g.Expect(last).NotTo(BeNil(), "no successful run yet")
		g.Expect(last.Time.After(after)).To(BeTrue(), "last successful run %s is not after %s", last.Time, after)
	}).WithTimeout(runWait + settleWait).Should(Succeed())
}

// expectReadableInV2 reads the CronJob as v2, through the conversion webhook the installation set up
// (its Service in the release's namespace, its caBundle filled by the manager).
func expectReadableInV2(ctx context.Context, cj *cronjobv1.CronJob) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		var v2 cronjobv2.CronJob
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &v2)).To(Succeed())
		g.Expect(v2.Spec.Schedule.Cron).To(Equal(cj.Spec.Schedule))
	}).WithTimeout(settleWait).Should(Succeed())
}

// expectGone waits until the object is not found.
func expectGone(ctx context.Context, obj client.Object, key client.ObjectKey) {
	GinkgoHelper()
	Eventually(func() bool { return apierrors.IsNotFound(k8sClient.Get(ctx, key, obj)) }).WithTimeout(settleWait).
		Should(BeTrue(), "%T %s should be gone", obj, key)
}

// run runs a command, with stdin when not nil, and fails the spec with its output when it fails.
func run(ctx context.Context, stdin *strings.Reader, name string, args ...string) {
	GinkgoHelper()
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "%s %s: %s", name, strings.Join(args, " "), out)
	GinkgoWriter.Printf("%s %s:\n%s\n", filepath.Base(name), strings.Join(args, " "), out)
}
