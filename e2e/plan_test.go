//go:build e2e

package e2e

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The specs of this file run issue 25's planning fields on a real cluster, in real time.
var _ = Describe("Runs as people plan them", Label("features"), func() {
	It("should run each minute of two schedules' union once, none before suspendUntil", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		// Even and odd minutes: their union is every minute. Suspended until the start of the minute after
		// next, so that at least one scheduled minute passes while it holds.
		until := time.Now().Truncate(time.Minute).Add(2 * time.Minute)
		cj := minutely("union", ns, 0, 0).Schedules("*/2 * * * *", "1-59/2 * * * *").SuspendUntil(until).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		By("reporting SuspendedUntil while it holds")
		Eventually(func(g Gomega) string {
			c := meta.FindStatusCondition(framework.GetCronJob(ctx, g, k8sClient, cj).Status.Conditions, cronjobv1.ConditionReady)
			g.Expect(c).NotTo(BeNil())
			return c.Reason
		}).WithTimeout(runWait).Should(Equal(cronjobv1.ReasonSuspendedUntil))

		By("waiting for the two minutes from suspendUntil on, then checking each ran once and none before")
		last := until.Add(time.Minute)
		Eventually(func(g Gomega) {
			checkRuns(g, oracle, cj, until.Add(-time.Minute), last)
		}).WithTimeout(time.Until(last) + runWait).WithPolling(5 * time.Second).Should(Succeed())
		for _, at := range oracle.ScheduledTimes(cj.UID) {
			Expect(at).NotTo(BeTemporally("<", until), "a run before spec.suspendUntil")
		}
		checkStatusMatchesJobs(ctx, cj)
	})
})
