//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// replicasLine is the manager Deployment's replica count in config/e2e's build (its only `  replicas:`).
var replicasLine = regexp.MustCompile(`(?m)^  replicas: 1$`)

// previousManifests is the previous release's config/e2e (hack/previous-release.sh exported its tree) with
// its image, two replicas.
func previousManifests(ctx context.Context) string {
	GinkgoHelper()
	// make e2e-images exports the previous release's tree.
	m, image := kustomizeBuild(ctx, repoPath("bin", "previous-release", "src", "config", "e2e")), "image: cronjob-operator.local/manager:e2e\n" // config/e2e's
	Expect(strings.Count(m, image)).To(Equal(1), "one manager image in the previous release's config/e2e")
	return twoReplicas(strings.Replace(m, image, "image: "+settings.previousImage+"\n", 1))
}

// currentManifests is this tree's config/e2e with two replicas.
func currentManifests(ctx context.Context) string {
	GinkgoHelper()
	return twoReplicas(kustomizeBuild(ctx, repoPath("config", "e2e")))
}

func twoReplicas(manifests string) string {
	GinkgoHelper()
	Expect(replicasLine.FindAllStringIndex(manifests, -1)).To(HaveLen(1), "the manager Deployment's replicas")
	return replicasLine.ReplaceAllString(manifests, "  replicas: 2")
}

// cronJobCRDOf is the CronJob CRD's document of a multi-document manifest.
func cronJobCRDOf(manifests string) string {
	GinkgoHelper()
	for doc := range strings.SplitSeq(manifests, "\n---\n") {
		var meta struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		Expect(yaml.Unmarshal([]byte(doc), &meta)).To(Succeed())
		if meta.Kind == "CustomResourceDefinition" && meta.Metadata.Name == crdName {
			return doc
		}
	}
	Fail("no CronJob CRD in the manifests")
	return ""
}

// The upgrade from the release before API v2 (v1 only), as a platform team would do it: minutely
// CronJobs run on the previous release with two replicas; its manifests are replaced by this release's
// (v1 and v2 served, v1 stored, the conversion webhook) with a rolling update; storage moves to v2 with
// `kubectl cjo migrate --storage-version v2` (a StorageVersionMigration: kind's kube-controller-manager runs
// the migrator); the manager rolls once more while clients read and write in both versions; a rollback of
// the CRD to the previous release is refused; then the documented rollback (storage back to v1, the
// previous release applied) runs the CronJobs on the previous release again. The Job oracle sees every
// scheduled minute of the whole upgrade and rollback once. Serial and Ordered: the spec replaces config/e2e's deployment, and puts it back after.
var _ = Describe("Upgrade", Label("upgrade"), Serial, Ordered, func() {
	kubeconfig := func() string { return filepath.Join(settings.artifacts, "kubeconfig") }

	BeforeAll(func(ctx SpecContext) {
		DeferCleanup(func(ctx SpecContext) {
			undeployOperator(ctx, kubeconfig())
			deployOperator(ctx, kubeconfig())
		})
		undeployOperator(ctx, kubeconfig())
	})

	It("should run every scheduled minute once from the previous release to v2 storage and back, refusing the CRD's rollback while v2 is stored", func(ctx SpecContext) {
		By("installing the previous release (v1 only), two replicas")
		previous := previousManifests(ctx)
		applyServerSide(ctx, kubeconfig(), previous)
		waitForManager(ctx)
		waitForWebhooks(ctx)
		crd := &apiextensionsv1.CustomResourceDefinition{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
		Expect(crd.Spec.Versions).To(HaveLen(1), "the previous release serves v1 only")

		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		var cjs []*cronjobv1.CronJob
		for _, name := range []string{"alpha", "beta", "gamma"} {
			// missedRunPolicy All: a minute missed while the leader changes hands runs late, not never.
			cj := minutely(name, ns, 5*time.Second, 0).CatchUp(0).HistoryLimits(10, 10).Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())
			cjs = append(cjs, cj)
		}
		created := time.Now()
		By("waiting for a run of each on the previous release")
		Eventually(func(g Gomega) {
			for _, cj := range cjs {
				g.Expect(oracle.JobsOf(cj.UID)).NotTo(BeEmpty(), cj.Name)
			}
		}).WithTimeout(runWait).Should(Succeed())

		By("applying this release's manifests: v1 and v2 served, the conversion webhook, a rolling update")
		upgraded := time.Now()
		applyServerSide(ctx, kubeconfig(), currentManifests(ctx))
		// v2 is usable once no Pod of the previous release is left: one that still gets requests from the
		// Service answers /convert with 404 (README "API versions").
		waitForRollout(ctx)
		AddReportEntry("rolling update to this release took", time.Since(upgraded).Round(time.Second))
		By("reading the CronJobs of the previous release in v2, through the conversion webhook")
		Eventually(func(g Gomega) {
			var list cronjobv2.CronJobList
			g.Expect(k8sClient.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
			g.Expect(list.Items).To(HaveLen(3))
			for _, cj := range list.Items {
				g.Expect(cj.Spec.Schedule.Cron).To(Equal("* * * * *"))
				g.Expect(cj.Spec.MissedRuns.Policy).To(Equal(cronjobv1.MissedRunAll))
			}
		}).WithTimeout(settleWait).Should(Succeed())
		v2 := &cronjobv2.CronJob{}
		cronjobv2.ToV2(minutely("delta", ns, 5*time.Second, 0).CatchUp(0).HistoryLimits(10, 10).Obj(), v2)
		Expect(k8sClient.Create(ctx, v2)).To(Succeed(), "a CronJob written in v2")
		delta := &cronjobv1.CronJob{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(v2), delta)).To(Succeed())
		deltaCreated := time.Now()

		By("moving storage to v2: kubectl cjo migrate --storage-version v2")
		migrated := time.Now()
		out, err := kubectlCJO(ctx, "migrate", "--storage-version", "v2", "--timeout", "3m")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchRegexp(`StorageVersionMigration cronjobs-\w+ succeeded`), "kind's kube-controller-manager rewrote the objects")
		Expect(out).To(ContainSubstring("status.storedVersions: [v1] -> [v2]"))
		AddReportEntry("storage migration to v2 took", time.Since(migrated).Round(time.Second))
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
		Expect(crd.Status.StoredVersions).To(Equal([]string{"v2"}))

		By("rolling the manager while clients read and write in both versions")
		load := startVersionLoad(ctx, ns)
		patchManager(ctx, func(d *appsv1.Deployment) {
			if d.Spec.Template.Annotations == nil {
				d.Spec.Template.Annotations = map[string]string{}
			}
			d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] = time.Now().Format(time.RFC3339)
		})
		requests, failures := load.stop()
		AddReportEntry("requests in v1 and v2 during the rollout", requests)
		Expect(failures).To(BeEmpty(), "requests that failed while the manager rolled (%d sent)", requests)

		By("applying the previous release's CRD: refused, v2 is stored")
		rollback := exec.CommandContext(ctx, settings.kubectl, "--kubeconfig", kubeconfig(),
			"apply", "--server-side", "--force-conflicts", "-f", "-")
		rollback.Stdin = strings.NewReader(cronJobCRDOf(previous))
		rolledBack, err := rollback.CombinedOutput()
		Expect(err).To(HaveOccurred(), "the rollback was applied: %s", rolledBack)
		Expect(string(rolledBack)).To(ContainSubstring(`status.storedVersions[0]: Invalid value: "v2": missing from spec.versions`))
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
		Expect(crd.Spec.Versions).To(HaveLen(2), "the CRD is as it was")

		By("reading the history of the CronJob written in v2, stored as v2, with kubectl cjo (which speaks v1)")
		Eventually(func(g Gomega) {
			seen := oracle.JobsOf(delta.UID)
			g.Expect(seen).NotTo(BeEmpty())
			out, err := kubectlCJO(ctx, "-n", ns, "history", delta.Name)
			g.Expect(err).NotTo(HaveOccurred())
			for _, j := range seen {
				g.Expect(out).To(MatchRegexp(j.Name+`\s+\S+\s+Schedule\s`), "each run of the oracle is in the history")
			}
		}).WithTimeout(settleWait).Should(Succeed())

		By("rolling back as README says: storage back to v1, then the previous release")
		out, err = kubectlCJO(ctx, "migrate", "--storage-version", "v1", "--timeout", "3m")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("status.storedVersions: [v2] -> [v1]"))
		// Replaced, not applied: a server-side apply keeps the conversion webhook's caBundle, which the
		// manager's rotator wrote under its own field manager, and the API server refuses a conversion
		// with a caBundle and no strategy.
		replaceCRD(ctx, kubeconfig(), cronJobCRDOf(previous))
		applyServerSide(ctx, kubeconfig(), previous)
		waitForRollout(ctx)
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
		Expect(crd.Spec.Versions).To(HaveLen(1), "the previous release's CRD, v1 only")
		var pods []string
		for _, p := range managerPods(ctx, Default) {
			pods = append(pods, p.Spec.Containers[0].Image)
		}
		Expect(pods).To(HaveEach(settings.previousImage))

		By("checking every scheduled minute once, from the previous release through the upgrade and back")
		until := time.Now().Add(time.Minute)
		Eventually(func(g Gomega) {
			for _, cj := range cjs {
				checkRuns(g, oracle, cj, created, until)
			}
			checkRuns(g, oracle, delta, deltaCreated, until)
		}).WithTimeout(time.Until(until) + runWait).Should(Succeed())
		checkStatusMatchesJobs(ctx, append(cjs, delta)...)
	})
})

// replaceCRD replaces the CRD with manifest by kubectl replace (with kubeconfig), retrying on a conflict:
// kubectl reads the CRD's resourceVersion and then sends the PUT, and in between the migration's status
// write or the manager's caBundle injection may change it. Any other error fails the spec at once.
func replaceCRD(ctx context.Context, kubeconfig, manifest string) {
	GinkgoHelper()
	Eventually(func() error {
		cmd := exec.CommandContext(ctx, settings.kubectl, "--kubeconfig", kubeconfig, "replace", "-f", "-")
		cmd.Stdin = strings.NewReader(manifest)
		out, err := cmd.CombinedOutput()
		switch {
		case err == nil:
			GinkgoWriter.Printf("kubectl replace -f -:\n%s\n", out)
			return nil
		case strings.Contains(string(out), "Error from server (Conflict)"):
			return fmt.Errorf("kubectl replace -f -: %w: %s", err, out)
		default:
			return StopTrying(fmt.Sprintf("kubectl replace -f -: %s", out)).Wrap(err)
		}
	}).WithTimeout(settleWait).Should(Succeed())
}

// startVersionLoad creates a CronJob in v1, reads it in v2 and lists the namespace in v1 every
// admissionInterval: with v2 stored, each of them goes through the conversion webhook, and the creates
// through the admission webhook.
func startVersionLoad(ctx context.Context, ns string) *load {
	return startLoad(ctx, func(ctx context.Context, i int, record func(string, error)) {
		cj := builders.MakeCronJob(fmt.Sprintf("load-%d", i), ns).Schedule("*/5 * * * *").Suspend().Obj()
		record("create v1 "+cj.Name, k8sClient.Create(ctx, cj))
		record("get v2 "+cj.Name, k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &cronjobv2.CronJob{}))
		record("list v1", k8sClient.List(ctx, &cronjobv1.CronJobList{}, client.InNamespace(ns)))
	})
}
