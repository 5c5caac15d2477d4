//go:build e2e

package e2e

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// Sizes of the large-Jobs spec: issue 23's tenant that needs no CronJob to weigh on the operator.
const (
	// largeJobs Jobs of largeJobBytes each: 200 MiB of pod templates, near the manager's 256Mi limit.
	largeJobs     = 200
	largeJobBytes = 1 << 20
)

// The kind half of the hostile-tenant suite (test/hostile): against the shipped manifests (config/e2e is
// config/default with the e2e image, so the manager's memory limit is 256Mi), one namespace fills with
// Jobs of a megabyte that no CronJob owns; the manager Pods are then replaced, so each new one lists them all at
// start (where a cache of whole Jobs crash-looped); the manager must not be restarted (OOM-killed) for it, and a
// minutely CronJob of another namespace must keep running on time. Serial: it weighs on the shared manager.
var _ = Describe("Tenant boundary", Label("hostile"), Serial, func() {
	It("should keep the manager running, also through a restart, and a minutely CronJob on time, while a namespace holds 200 Jobs of 1 MB", func(ctx SpecContext) {
		waitForManager(ctx)
		restarts := map[string]int32{}
		Eventually(func(g Gomega) { restarts = managerContainerRestarts(ctx, g) }).Should(Succeed())

		tenantA := newNamespace(ctx)
		DeferCleanup(func(ctx SpecContext) {
			By("deleting the large Jobs")
			Expect(k8sClient.DeleteAllOf(ctx, &batchv1.Job{}, client.InNamespace(tenantA),
				client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())
		})
		By(fmt.Sprintf("creating %d suspended Jobs of %d KiB in %s", largeJobs, largeJobBytes>>10, tenantA))
		for i := range largeJobs {
			job := framework.LargeJob(fmt.Sprintf("large-%03d", i), tenantA, largeJobBytes)
			Eventually(func() error { return client.IgnoreAlreadyExists(k8sClient.Create(ctx, job)) }).Should(Succeed())
		}

		By("replacing the manager Pods, so that each new one lists the 200 Jobs at start")
		Expect(killManagerPods(ctx)).To(BeNumerically(">", 0))
		Eventually(func(g Gomega) {
			now := managerContainerRestarts(ctx, g)
			g.Expect(now).NotTo(BeEmpty())
			for name := range now {
				g.Expect(restarts).NotTo(HaveKey(name), "manager Pod %s is one of before the kill", name)
			}
			restarts = now
		}).WithTimeout(managerWait).WithPolling(eventuallyPolling).Should(Succeed())
		waitForManager(ctx)

		tenantB := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, tenantB)
		cj := minutely("on-time", tenantB, 0, 0).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		from := time.Now()

		By("checking for a minute and more that no manager container restarts")
		Consistently(func(g Gomega) {
			g.Expect(managerContainerRestarts(ctx, g)).To(Equal(restarts), "a manager container restarted (OOM-killed?) or a manager Pod was replaced")
		}).WithTimeout(pressureWindow).WithPolling(consistentlyPolling).Should(Succeed())
		to := time.Now()

		By("checking that the minutely CronJob ran once for each minute of that window")
		Eventually(func(g Gomega) { checkRuns(g, oracle, cj, from, to) }).WithTimeout(runWait).Should(Succeed())
	})
})

// managerContainerRestarts returns the restart count of each manager Pod's manager container, by Pod name; every
// Pod must be ready (a Pod restarted by an OOM kill is not, for a moment, and its count grows).
func managerContainerRestarts(ctx SpecContext, g Gomega) map[string]int32 {
	restarts := map[string]int32{}
	for _, p := range managerPods(ctx, g) {
		g.Expect(p.DeletionTimestamp).To(BeNil(), "manager Pod %s is being deleted", p.Name)
		for _, c := range p.Status.ContainerStatuses {
			if c.Name == "manager" {
				g.Expect(c.Ready).To(BeTrue(), "manager container of %s is not ready: %v", p.Name, c.State)
				if t := c.LastTerminationState.Terminated; t != nil {
					g.Expect(t.Reason).NotTo(Equal("OOMKilled"), "manager container of %s was OOM-killed at %s", p.Name, t.FinishedAt)
				}
				restarts[p.Name] = c.RestartCount
			}
		}
		g.Expect(restarts).To(HaveKey(p.Name), "manager Pod %s has no manager container status", p.Name)
	}
	return restarts
}
