package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

var _ = Describe("API server outage", func() {
	When("the kube-apiserver is down at a scheduled time, and comes back", func() {
		It("should start the run once the API server is back, once, and record it", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
			cj := builders.MakeCronJob("audit", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, at("10:04:00"))
			Eventually(func() bool { return clk.WakeupBy(at("10:05:01")) }).Should(BeTrue(),
				"the controller should requeue itself for the run of 10:05")

			before, err := framework.CountReconciles()
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(fwk.StartAPIServer)
			fwk.StopAPIServer()
			outage := time.Now()

			By("letting the run of 10:05 come due while the API server is down")
			// The reconcile at 10:05 fails; the workqueue retries it with a growing backoff that runs on
			// the fake clock, so the clock runs on, one second per poll, as time would.
			clk.AdvanceTo(at("10:05:01"))
			Consistently(func() []time.Time {
				clk.Step(time.Second)
				return oracle.ScheduledTimes(cj.UID)
			}).WithTimeout(2 * time.Second).Should(BeEmpty())
			Eventually(func(g Gomega) float64 {
				now, err := framework.CountReconciles()
				g.Expect(err).NotTo(HaveOccurred())
				return now.Since(before)["error"]
			}).Should(BeNumerically(">", 0), "the reconciles during the outage should have failed")

			fwk.StartAPIServer()
			AddReportEntry("kube-apiserver outage", time.Since(outage).Round(time.Millisecond))

			By("letting time run until the controller retries: the run starts late, but once")
			// Time goes on while the spec waits: one second of the fake clock for every poll. The next
			// scheduled time, 10:10, is minutes away, so every retry before it must start the run of 10:05.
			Eventually(func() []time.Time {
				if clk.Now().Before(at("10:09:00")) {
					clk.Step(time.Second)
				}
				return oracle.ScheduledTimes(cj.UID)
			}).WithTimeout(3*framework.Timeout).Should(Equal([]time.Time{at("10:05:00")}),
				"the run of 10:05 should start once the API server is back")
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(
				Equal([]time.Time{at("10:05:00")}), "the run must start only once")

			job := onlyJob(ctx, ns)
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(at("10:05:00"))))
				g.Expect(status.Active).To(BeComparableTo([]corev1.ObjectReference{activeRef(&job)}, ignoreResourceVersion))
			}).Should(Succeed())
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, cj) }).Should(ContainElement("Normal/SuccessfulCreate"))

			By("starting the next run on time")
			clk.AdvanceTo(at("10:10:01"))
			Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(
				Equal([]time.Time{at("10:05:00"), at("10:10:00")}))
		})
	})
})
