package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// startStoppableController is startController for a spec that stops the manager itself, to take the
// controller down while its clock moves on: it also returns a stop function, which waits until the manager
// has stopped. Stopping twice is harmless; the manager is stopped when the spec ends if the spec did not.
func startStoppableController(ns string, now time.Time) (*framework.Clock, func()) {
	clk := framework.NewClock(now)
	mgr := fwk.StartManager(framework.ManagerOptions{Namespace: ns, Clock: clk})
	DeferCleanup(mgr.Stop)
	return clk, mgr.Stop
}

// observedSchedule waits until status.observedSchedule records the schedule and suspend state given, and
// returns it.
func observedSchedule(ctx SpecContext, cj *cronjobv1.CronJob, schedule string, suspended bool) *cronjobv1.ObservedSchedule {
	GinkgoHelper()
	var obs *cronjobv1.ObservedSchedule
	Eventually(func(g Gomega) {
		obs = framework.GetCronJob(ctx, g, k8sClient, cj).Status.ObservedSchedule
		g.Expect(obs).NotTo(BeNil())
		g.Expect(obs.Schedule).To(Equal(schedule))
		g.Expect(obs.Suspended).To(Equal(suspended))
	}).Should(Succeed())
	return obs
}

var _ = Describe("Downtime", func() {
	When("the controller was down for a week", func() {
		It("should start only the most recent missed run, and warn TooManyMissedTimes", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("digest", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())

			By("running the controller at 10:01, before the next run")
			clk, stop := startStoppableController(ns, at("10:01:00"))
			observedSchedule(ctx, cj, "*/5 * * * *", false)
			Eventually(func() bool { return clk.WakeupBy(at("10:05:01")) }).Should(BeTrue(),
				"the controller should requeue itself for the run of 10:05")
			Expect(listJobs(ctx, Default, ns)).To(BeEmpty())

			By("stopping the controller, and starting it again a week and two minutes later")
			stop()
			week := 7 * 24 * time.Hour
			mostRecent := at("10:00:00").Add(week)
			startController(ns, at("10:02:00").Add(week))

			job := onlyJob(ctx, ns)
			Expect(job.Name).To(Equal(jobNameFor(cj, mostRecent)))
			Expect(job.Annotations).To(HaveKeyWithValue(cronjobv1.ScheduledAtAnnotation, mostRecent.Format(time.RFC3339)))
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, cj) }).Should(
				ContainElements("Warning/TooManyMissedTimes", "Normal/SuccessfulCreate"))
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(mostRecent)))
				g.Expect(status.Active).To(BeComparableTo([]corev1.ObjectReference{activeRef(&job)}, ignoreResourceVersion))
			}).Should(Succeed())
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(
				ConsistOf(job.Name), "the missed runs must not start in a burst")
		})
	})
})

var _ = Describe("No surprise runs", func() {
	When("a suspended CronJob is resumed after scheduled times passed", func() {
		It("should start no run due before the resume, and the first one after it", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("ledger", ns).Schedule("*/5 * * * *").Suspend().
				LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())

			By("observing the CronJob suspended at 10:01")
			clk := startController(ns, at("10:01:00"))
			observedSchedule(ctx, cj, "*/5 * * * *", true)

			By("letting the runs of 10:05 to 10:20 pass while suspended")
			// A suspended CronJob is not requeued: there is no wakeup to wait for, so set the clock.
			clk.SetTime(at("10:21:00"))
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(BeEmpty())

			By("resuming it at 10:21")
			patch := client.MergeFrom(cj.DeepCopy())
			cj.Spec.Suspend = ptr.To(false)
			Expect(k8sClient.Patch(ctx, cj, patch)).To(Succeed())
			obs := observedSchedule(ctx, cj, "*/5 * * * *", false)
			Expect(obs.Since.Time).To(BeTemporally("==", at("10:21:00")))
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(BeEmpty(),
				"no run due at or before 10:21 may start")
			Expect(framework.EventReasonsRegarding(ctx, Default, k8sClient, cj)).NotTo(ContainElement(BeElementOf(
				"Normal/SuccessfulCreate", "Warning/TooManyMissedTimes", "Warning/MissSchedule")))

			By("moving the clock past the first run after the resume, at 10:25")
			clk.AdvanceTo(at("10:25:01"))
			job := onlyJob(ctx, ns)
			Expect(job.Name).To(Equal(jobNameFor(cj, at("10:25:00"))))
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(job.Name))
			Eventually(func(g Gomega) *metav1.Time {
				return framework.GetCronJob(ctx, g, k8sClient, cj).Status.LastScheduleTime
			}).Should(BeComparableTo(metaTime(at("10:25:00"))))
		})
	})

	When("the schedule is edited after a time of the new schedule passed", func() {
		It("should not start that run, and start the next one of the new schedule", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("rollup", ns).Schedule("0 * * * *").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())

			By("observing the hourly schedule at 10:01")
			clk := startController(ns, at("10:01:00"))
			observedSchedule(ctx, cj, "0 * * * *", false)
			// Move the clock only once the reconcile has turned its RequeueAfter into a deadline.
			Eventually(func() bool { return clk.WakeupBy(at("11:00:01")) }).Should(BeTrue(),
				"the controller should requeue itself for the run of 11:00")

			By("editing the schedule to half past at 10:45, after its time of 10:30")
			clk.SetTime(at("10:45:00"))
			patch := client.MergeFrom(cj.DeepCopy())
			cj.Spec.Schedule = "30 * * * *"
			Expect(k8sClient.Patch(ctx, cj, patch)).To(Succeed())
			obs := observedSchedule(ctx, cj, "30 * * * *", false)
			Expect(obs.Since.Time).To(BeTemporally("==", at("10:45:00")))
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(BeEmpty(),
				"the run of 10:30 was due before the edit was seen")

			By("moving the clock past 11:30")
			clk.AdvanceTo(at("11:30:01"))
			job := onlyJob(ctx, ns)
			Expect(job.Name).To(Equal(jobNameFor(cj, at("11:30:00"))))
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(job.Name))
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(at("11:30:00"))))
				g.Expect(status.ObservedSchedule).NotTo(BeNil())
				g.Expect(status.ObservedSchedule.Schedule).To(Equal("30 * * * *"))
			}).Should(Succeed())
		})
	})
})
