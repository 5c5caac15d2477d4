//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/k8s/resources"
	"sigs.k8s.io/e2e-framework/klient/wait"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/support/kind"

	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// settings of the suite, from the environment (make e2e sets them).
var settings = struct {
	cluster, kindBin, kindConfig, nodeImage        string
	managerImage, busyboxImage, kustomize, kubectl string
	helm, artifacts, previousImage                 string
	keepCluster                                    bool
}{
	cluster:      env("E2E_CLUSTER", "cronjob-operator-e2e"),
	kindBin:      env("KIND", repoPath("bin", "kind")),
	kindConfig:   env("E2E_KIND_CONFIG", repoPath("hack", "kind", "kind-config.yaml")),
	nodeImage:    env("E2E_NODE_IMAGE", "cronjob-operator.local/kind-node:v1.37.2"),
	managerImage: env("E2E_MANAGER_IMAGE", "cronjob-operator.local/manager:e2e"),
	busyboxImage: env("E2E_BUSYBOX_IMAGE", "cronjob-operator.local/busybox:e2e"),
	// The release before API v2, which the upgrade spec starts from (hack/previous-release.sh).
	previousImage: env("E2E_PREVIOUS_IMAGE", "cronjob-operator.local/manager:previous"),
	kustomize:     env("KUSTOMIZE", repoPath("bin", "kustomize")),
	kubectl:       env("KUBECTL", "kubectl"),
	helm:          env("HELM", repoPath("bin", "helm")),
	artifacts:     env("E2E_ARTIFACTS", repoPath("bin", "e2e-artifacts")),
	keepCluster:   os.Getenv("KEEP_CLUSTER") == "1",
}

// The operator as config/e2e deploys it.
const (
	operatorNamespace = "cronjob-operator-system"
	managerDeployment = "cronjob-operator-controller-manager"
	managerSelector   = "control-plane=controller-manager"
)

var (
	cluster   *kind.Cluster
	cfg       *rest.Config
	k8sClient client.Client // live: specs assert through it
	clientset kubernetes.Interface
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(eventuallyTimeout)
	SetDefaultEventuallyPollingInterval(eventuallyPolling)
	SetDefaultConsistentlyDuration(consistentlyDuration)
	SetDefaultConsistentlyPollingInterval(consistentlyPolling)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if suiteConfig.LabelFilter == "" {
		// The soak (Label("soak"): leader pods killed 30 times, about 15 minutes) runs only when asked
		// for: make soak.
		suiteConfig.LabelFilter = "!soak"
	}
	RunSpecs(t, "cronjob-operator kind e2e suite", suiteConfig, reporterConfig)
}

// The first process creates (or, with KEEP_CLUSTER=1 and a cluster of that name, reuses) the kind cluster,
// loads the images and deploys the operator; every process then connects with the kubeconfig it wrote.
var _ = SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
	Expect(os.MkdirAll(settings.artifacts, 0o755)).To(Succeed())
	Expect(os.RemoveAll(failedMarker())).To(Succeed())
	kubeconfig := filepath.Join(settings.artifacts, "kubeconfig")
	cluster = kind.NewCluster(settings.cluster)
	cluster.WithPath(settings.kindBin)
	cluster.WithOpts(kind.WithImage(settings.nodeImage))

	By("creating the kind cluster " + settings.cluster + " from " + settings.nodeImage)
	start := time.Now()
	_, err := cluster.Create(ctx, "--config", settings.kindConfig, "--kubeconfig", kubeconfig, "--wait", kindNodeWait.String())
	Expect(err).NotTo(HaveOccurred())
	raw, err := os.ReadFile(cluster.GetKubeconfig())
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(kubeconfig, raw, 0o600)).To(Succeed())
	connect(kubeconfig)
	waitForKubeProxy(ctx)
	AddReportEntry("cluster ready", time.Since(start).Round(time.Second))

	for _, image := range []string{settings.managerImage, settings.busyboxImage, settings.previousImage} {
		By("loading " + image)
		Expect(cluster.LoadImage(ctx, image)).To(Succeed())
	}
	deployOperator(ctx, kubeconfig)
	return []byte(kubeconfig)
}, func(kubeconfig []byte) {
	if cfg == nil {
		connect(string(kubeconfig))
	}
}, NodeTimeout(setupTimeout))

var _ = SynchronizedAfterSuite(func() {}, func(ctx SpecContext) {
	if cluster == nil {
		return
	}
	if suiteFailed() {
		dest := filepath.Join(settings.artifacts, "kind-logs")
		By("exporting the cluster's logs to " + dest)
		if err := cluster.ExportLogs(ctx, dest); err != nil {
			GinkgoWriter.Printf("exporting the kind logs failed: %v\n", err)
		}
	}
	if settings.keepCluster {
		GinkgoWriter.Printf("KEEP_CLUSTER=1: kind cluster %s is kept; KUBECONFIG=%s\n", settings.cluster,
			filepath.Join(settings.artifacts, "kubeconfig"))
		return
	}
	By("deleting the kind cluster " + settings.cluster)
	Expect(cluster.Destroy(ctx)).To(Succeed())
}, NodeTimeout(teardownTimeout))

// connect builds the suite's clients from a kubeconfig file.
func connect(kubeconfig string) {
	var err error
	cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	cfg.QPS, cfg.Burst = 50, 100
	// The install specs read the CRD itself, so the suite's client knows apiextensions.k8s.io too.
	scheme := framework.Scheme()
	Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	clientset, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
}

// deployOperator applies config/e2e (server-side: the CRD is too large for a client-side apply) and waits
// until the manager is available, which it is only once its webhook certificate is mounted.
func deployOperator(ctx context.Context, kubeconfig string) {
	By("deploying the operator from config/e2e")
	applyServerSide(ctx, kubeconfig, kustomizeBuild(ctx, repoPath("config", "e2e")))
	if settings.keepCluster {
		// A reused cluster may run the manager of an earlier run: the image tag is the same, so the apply
		// changes nothing and the pods keep the old image. Roll them onto the image just loaded.
		By("restarting the manager of the reused cluster on the image just loaded")
		patchManager(ctx, func(d *appsv1.Deployment) {
			if d.Spec.Template.Annotations == nil {
				d.Spec.Template.Annotations = map[string]string{}
			}
			d.Spec.Template.Annotations["e2e.cronjob-operator.dev/deployed-at"] = time.Now().UTC().Format(time.RFC3339Nano)
		})
	}

	By("waiting for the manager to be available (webhook certificate provisioned and mounted)")
	start := time.Now()
	waitForManager(ctx)
	waitForWebhooks(ctx)
	AddReportEntry("operator available", time.Since(start).Round(time.Second))
}

// kustomizeBuild returns `kustomize build dir`.
func kustomizeBuild(ctx context.Context, dir string) string {
	GinkgoHelper()
	out, err := exec.CommandContext(ctx, settings.kustomize, "build", dir).Output()
	Expect(err).NotTo(HaveOccurred(), "kustomize build %s: %s", dir, stderrOf(err))
	return string(out)
}

// applyServerSide applies manifests server-side, taking over conflicting fields (the CRD is too large for
// a client-side apply, and other specs' applies own some of its fields).
func applyServerSide(ctx context.Context, kubeconfig, manifests string) {
	GinkgoHelper()
	run(ctx, strings.NewReader(manifests), settings.kubectl, "--kubeconfig", kubeconfig, "apply", "--server-side", "--force-conflicts", "-f", "-")
}

// waitForKubeProxy waits until kube-proxy runs on the node: until then no Service IP works, not even the
// API server's, and a manager started earlier fails to reach it.
func waitForKubeProxy(ctx context.Context) {
	GinkgoHelper()
	By("waiting for kube-proxy")
	Eventually(func(g Gomega) {
		var ds appsv1.DaemonSet
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "kube-proxy"}, &ds)).To(Succeed())
		g.Expect(ds.Status.DesiredNumberScheduled).To(BeNumerically(">", 0))
		g.Expect(ds.Status.NumberReady).To(Equal(ds.Status.DesiredNumberScheduled))
	}).WithTimeout(kubeProxyWait).Should(Succeed())
}

// waitForWebhooks waits until the API server reaches the admission webhooks, with a server-side dry run:
// a ready manager Pod is not enough, kube-proxy must also have programmed its Service.
func waitForWebhooks(ctx context.Context) { waitForWebhooksIn(ctx, "default") }

// waitForWebhooksIn is waitForWebhooks for the webhooks that judge namespace ns (a release in
// namespace-scoped mode judges only the namespaces it watches).
func waitForWebhooksIn(ctx context.Context, ns string) {
	GinkgoHelper()
	By("waiting for the admission webhooks of namespace " + ns + " to answer")
	Eventually(func() error {
		probe := minutely("webhook-probe", ns, 0, 0).Obj()
		return k8sClient.Create(ctx, probe, client.DryRunAll)
	}).WithTimeout(webhookWait).Should(Succeed())
}

// waitForManager waits until the manager Deployment has all its replicas updated and available.
func waitForManager(ctx context.Context) { waitForManagerOf(ctx, operatorNamespace, managerDeployment) }

// waitForManagerOf is waitForManager for the Deployment name in namespace ns (another release's).
func waitForManagerOf(ctx context.Context, ns, name string) {
	GinkgoHelper()
	r, err := resources.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	deploy := &appsv1.Deployment{}
	deploy.Name, deploy.Namespace = name, ns
	Expect(wait.For(conditions.New(r).ResourceMatch(deploy, func(obj k8s.Object) bool {
		d := obj.(*appsv1.Deployment)
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		return d.Status.ObservedGeneration >= d.Generation && d.Status.UpdatedReplicas == want &&
			d.Status.AvailableReplicas == want && d.Status.Replicas == want
	}), wait.WithContext(ctx), wait.WithTimeout(managerWait), wait.WithInterval(eventuallyPolling))).To(Succeed(),
		"the manager did not become available; see the dump of %s", ns)
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// repoPath is a path in the repository (tests run in e2e/).
func repoPath(elem ...string) string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Join(append([]string{filepath.Dir(wd)}, elem...)...)
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return fmt.Sprint(err)
}

// failedMarker is a file every process writes when one of its specs fails, so that the first process
// knows, after all others are done, to export the cluster's logs before it deletes the cluster.
func failedMarker() string { return filepath.Join(settings.artifacts, "failed") }

var _ = ReportAfterEach(func(report SpecReport) {
	if report.Failed() {
		_ = os.WriteFile(failedMarker(), []byte(report.FullText()+"\n"), 0o644)
	}
})

func suiteFailed() bool {
	_, err := os.Stat(failedMarker())
	return err == nil
}
