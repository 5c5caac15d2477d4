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
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The Helm release of the install spec, in the operator's usual namespace.
const (
	helmRelease = "cronjob-operator"
	// secondRelease is the chart's second release of the install spec, in secondReleaseNamespace.
	secondRelease          = "tenant-b"
	secondReleaseNamespace = "cronjob-operator-tenant-b"
	crdName                = "cronjobs.batch.cronjob-operator.dev"
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

	It("should install the Helm chart twice, each release in namespace-scoped mode running its own CronJobs, pass helm test, upgrade, and uninstall keeping the CRD", func(ctx SpecContext) {
		repo, tag, _ := strings.Cut(settings.managerImage, ":")
		helm := func(ns string, args ...string) {
			GinkgoHelper()
			run(ctx, nil, settings.helm, append([]string{"--kubeconfig", kubeconfig(), "--namespace", ns}, args...)...)
		}
		image := []string{"--set", "image.repository=" + repo, "--set", "image.tag=" + tag, "--set", "image.pullPolicy=Never"}
		tenantA, tenantB := newNamespace(ctx), newNamespace(ctx)
		DeferCleanup(func(ctx SpecContext) {
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secondReleaseNamespace}}))).To(Succeed())
		})

		By("the monitoring CRDs (stand-ins of prometheus-operator's), so that the PrometheusRule can be stored")
		monitoringCRDs, err := os.ReadFile(repoPath("e2e", "testdata", "monitoring-crds.yaml"))
		Expect(err).NotTo(HaveOccurred())
		run(ctx, strings.NewReader(string(monitoringCRDs)), settings.kubectl, "--kubeconfig", kubeconfig(), "apply", "--server-side", "-f", "-")
		DeferCleanup(func(ctx SpecContext) {
			run(ctx, strings.NewReader(string(monitoringCRDs)), settings.kubectl, "--kubeconfig", kubeconfig(), "delete", "--ignore-not-found", "-f", "-")
		})

		By("helm install of the first release, with the CRD and the PrometheusRule, watching " + tenantA)
		helm(operatorNamespace, append([]string{"install", helmRelease, repoPath("dist", "chart"), "--create-namespace",
			"--set", "watchNamespaces={" + tenantA + "}", "--set", "prometheusRule.enabled=true"}, image...)...)
		By("helm install of a second release in a namespace of its own, without the CRD, watching " + tenantB)
		helm(secondReleaseNamespace, append([]string{"install", secondRelease, repoPath("dist", "chart"), "--create-namespace",
			"--set", "crd.enabled=false", "--set", "watchNamespaces={" + tenantB + "}"}, image...)...)
		waitForManager(ctx)
		waitForManagerOf(ctx, secondReleaseNamespace, secondRelease+"-cronjob-operator-controller-manager")
		waitForWebhooksIn(ctx, tenantA)
		waitForWebhooksIn(ctx, tenantB)

		By("helm test of each release: its manager image's --self-test, in its tenant's namespace")
		helm(operatorNamespace, "test", helmRelease, "--logs")
		helm(secondReleaseNamespace, "test", secondRelease, "--logs")

		By("the first release's PrometheusRule is there; the second release, without it, has none")
		rules := &unstructured.UnstructuredList{}
		rules.SetGroupVersionKind(schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: "PrometheusRuleList"})
		Expect(k8sClient.List(ctx, rules, client.InNamespace(operatorNamespace))).To(Succeed())
		Expect(rules.Items).To(HaveLen(1))
		Expect(rules.Items[0].GetName()).To(Equal("cronjob-operator-alerts"))
		Expect(k8sClient.List(ctx, rules, client.InNamespace(secondReleaseNamespace))).To(Succeed())
		Expect(rules.Items).To(BeEmpty())

		By("a CronJob in each tenant's namespace runs: the first release watches only the first namespace, so the second's CronJob runs by the second release")
		cjA := minutely("install", tenantA, 0, 0).Obj()
		cjB := minutely("install", tenantB, 0, 0).Obj()
		Expect(k8sClient.Create(ctx, cjA)).To(Succeed())
		Expect(k8sClient.Create(ctx, cjB)).To(Succeed())
		waitForSuccessfulRun(ctx, cjA, time.Time{})
		waitForSuccessfulRun(ctx, cjB, time.Time{})
		expectReadableInV2(ctx, cjB) // through the first release's conversion webhook, which the CRD names

		By("helm upgrade of the first release to two replicas: the rollout keeps its CronJob running")
		upgraded := time.Now()
		helm(operatorNamespace, "upgrade", helmRelease, repoPath("dist", "chart"), "--reuse-values", "--set", "replicas=2")
		var deploy appsv1.Deployment
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: managerDeployment}, &deploy)).To(Succeed())
		Expect(*deploy.Spec.Replicas).To(BeNumerically("==", 2))
		waitForManager(ctx)
		waitForWebhooksIn(ctx, tenantA)
		waitForSuccessfulRun(ctx, cjA, upgraded)

		By("helm uninstall of both: the operators go, the CRD and the CronJobs stay (crd.keep)")
		helm(secondReleaseNamespace, "uninstall", secondRelease, "--wait")
		helm(operatorNamespace, "uninstall", helmRelease, "--wait")
		expectGone(ctx, &appsv1.Deployment{}, client.ObjectKey{Namespace: operatorNamespace, Name: managerDeployment})
		expectGone(ctx, &appsv1.Deployment{}, client.ObjectKey{Namespace: secondReleaseNamespace, Name: secondRelease + "-cronjob-operator-controller-manager"})
		expectGone(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{},
			client.ObjectKey{Name: "cronjob-operator-validating-webhook-configuration"})
		expectGone(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{},
			client.ObjectKey{Name: secondRelease + "-cronjob-operator-validating-webhook-configuration"})
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cjA), &cronjobv1.CronJob{})).To(Succeed())
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
