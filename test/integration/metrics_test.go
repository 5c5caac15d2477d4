package integration

import (
	"fmt"
	"maps"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

var _ = Describe("Metrics", func() {
	It("should serve the skew and the runs started on /metrics, and the CronJob's state on /metrics/state", func(ctx SpecContext) {
		ns := newNamespaceWithoutWebhooks(ctx)
		cj := builders.MakeCronJob("scraped", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
		Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())

		clock := framework.NewClock(at("10:04:00"))
		addr := framework.FreeLocalAddress(Default)
		DeferCleanup(fwk.StartManager(framework.ManagerOptions{Namespace: ns, Clock: clock, MetricsBindAddress: addr}).Stop)
		url := fmt.Sprintf("http://%s/metrics", addr)
		stateURL := fmt.Sprintf("http://%s%s", addr, metrics.StatePath)
		Eventually(func(g Gomega) {
			_, exported := framework.MetricValue(framework.Scrape(ctx, g, stateURL), metrics.MetricCronJobInfo, map[string]string{"namespace": ns, "cronjob": "scraped"})
			g.Expect(exported).To(BeTrue(), "the state of the CronJob")
		}).Should(Succeed())
		before := framework.Scrape(ctx, Default, url)
		_, onMetrics := framework.MetricValue(before, metrics.MetricCronJobInfo, map[string]string{"namespace": ns, "cronjob": "scraped"})
		Expect(onMetrics).To(BeFalse(), "the state is not on /metrics, whose cost does not grow with the CronJobs")
		// The counters are the process's: later values are compared with these.
		startedBefore, _ := framework.MetricValue(before, metrics.MetricRunsStarted, map[string]string{"trigger": metrics.TriggerSchedule})
		skewBefore, _ := framework.MetricValue(before, metrics.MetricJobCreationSkew, nil)

		By("letting the run of 10:05 start two seconds late on the controller's clock")
		clock.AdvanceTo(at("10:05:02"))
		Eventually(func(g Gomega) []batchv1.Job {
			var jobs batchv1.JobList
			g.Expect(k8sClient.List(ctx, &jobs, client.InNamespace(ns))).To(Succeed())
			return jobs.Items
		}).Should(HaveLen(1))

		Eventually(func(g Gomega) {
			after, state := framework.Scrape(ctx, g, url), framework.Scrape(ctx, g, stateURL)
			maps.Copy(after, state)
			value := func(name string, labels map[string]string) float64 {
				v, ok := framework.MetricValue(after, name, labels)
				g.Expect(ok).To(BeTrue(), "%s%v", name, labels)
				return v
			}
			this := map[string]string{"namespace": ns, "cronjob": "scraped"}
			g.Expect(value(metrics.MetricRunsStarted, map[string]string{"trigger": metrics.TriggerSchedule})).To(Equal(startedBefore + 1))
			g.Expect(value(metrics.MetricJobCreationSkew, nil)).To(Equal(skewBefore + 1))
			g.Expect(value(metrics.MetricLastScheduleTime, this)).To(Equal(float64(at("10:05:00").Unix())))
			g.Expect(value(metrics.MetricNextScheduleTime, this)).To(Equal(float64(at("10:10:00").Unix())))
			g.Expect(value(metrics.MetricActive, this)).To(Equal(1.0))
			g.Expect(value(metrics.MetricCondition, map[string]string{"namespace": ns, "cronjob": "scraped", "condition": "Ready", "status": "true"})).To(Equal(1.0))
		}).Should(Succeed())
	})
})
