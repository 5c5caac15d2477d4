package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The specs of this file cover what batch/v1 does not have: the Enqueue policy, catch-up of missed runs,
// jitter and status.nextScheduleTime, against a real API server (the status subresource, its one-second
// time resolution, the CRD's defaults) with the controller on a fake clock.

// requeuePad is the controller's requeue padding (controllers.requeuePadding): it asks to be woken that long
// after the time it acts at.
const requeuePad = 10 * time.Millisecond

// queuedTimes returns the scheduled times in status.queued, in order.
func queuedTimes(status cronjobv1.CronJobStatus) []time.Time {
	var times []time.Time
	for _, q := range status.Queued {
		times = append(times, q.ScheduledTime.UTC())
	}
	return times
}

// finishJob plays the Job controller: the Job of the run scheduled at `run` started at `run` and
// succeeded at `done`.
func finishJob(ctx SpecContext, cj *cronjobv1.CronJob, run, done time.Time) {
	GinkgoHelper()
	var job batchv1.Job
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: cj.Namespace, Name: jobNameFor(cj, run)}, &job)).To(Succeed())
	Expect(k8sClient.Status().Update(ctx, builders.FromJob(&job).StartedAt(run).Succeeded(done).Obj())).To(Succeed())
}

var _ = Describe("Runs on the team's terms", func() {
	When("concurrencyPolicy is Enqueue and a Job runs past the next scheduled times", func() {
		It("should queue the due runs in status and start them one by one, oldest first, as Jobs finish", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("queue", ns).Schedule("*/5 * * * *").Enqueue().LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, at("10:04:00"))

			By("starting 10:05, then queueing 10:10 and 10:15 while its Job runs")
			clk.AdvanceTo(at("10:05:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(jobNameFor(cj, at("10:05:00"))))
			for _, tick := range []string{"10:10", "10:15"} {
				clk.AdvanceTo(hhmm(tick).Add(time.Second))
				Eventually(func(g Gomega) []time.Time {
					return queuedTimes(framework.GetCronJob(ctx, g, k8sClient, cj).Status)
				}).Should(ContainElement(hhmm(tick)), "the run of %s is queued", tick)
			}
			status := framework.GetCronJob(ctx, Default, k8sClient, cj).Status
			Expect(queuedTimes(status)).To(Equal([]time.Time{at("10:10:00"), at("10:15:00")}))
			Expect(status.LastScheduleTime.UTC()).To(Equal(at("10:05:00")), "a queued run has not started")
			Expect(status.NextScheduleTime.UTC()).To(Equal(at("10:20:00")))
			Expect(jobNames(listJobs(ctx, Default, ns))).To(ConsistOf(jobNameFor(cj, at("10:05:00"))), "nothing starts while the Job runs")

			By("finishing the 10:05 Job at 10:16: the queued 10:10 run starts")
			clk.SetTime(at("10:16:00"))
			finishJob(ctx, cj, at("10:05:00"), at("10:16:00"))
			Eventually(func(g Gomega) {
				g.Expect(jobNames(listJobs(ctx, g, ns))).To(ConsistOf(jobNameFor(cj, at("10:05:00")), jobNameFor(cj, at("10:10:00"))))
				st := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(queuedTimes(st)).To(Equal([]time.Time{at("10:15:00")}))
				g.Expect(activeNames(st.Active)).To(ConsistOf(jobNameFor(cj, at("10:10:00"))))
			}).Should(Succeed())

			By("finishing the 10:10 Job at 10:17: the queued 10:15 run starts and the queue is empty")
			clk.SetTime(at("10:17:00"))
			finishJob(ctx, cj, at("10:10:00"), at("10:17:00"))
			Eventually(func(g Gomega) {
				g.Expect(jobNames(listJobs(ctx, g, ns))).To(ConsistOf(jobNameFor(cj, at("10:05:00")), jobNameFor(cj, at("10:10:00")),
					jobNameFor(cj, at("10:15:00"))))
				st := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(st.Queued).To(BeEmpty())
				g.Expect(st.LastScheduleTime.UTC()).To(Equal(at("10:15:00")))
			}).Should(Succeed())
			Consistently(func(g Gomega) int { return len(listJobs(ctx, g, ns)) }).Should(Equal(3), "no run starts twice")
		})
	})

	When("the manager restarts while runs are queued under Enqueue", func() {
		It("should keep the queue in status and let the new manager start each queued run once", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("requeue", ns).Schedule("*/5 * * * *").Enqueue().LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk, stop := startStoppableController(ns, at("10:04:00"))
			clk.AdvanceTo(at("10:05:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(jobNameFor(cj, at("10:05:00"))))
			clk.AdvanceTo(at("10:10:01"))
			Eventually(func(g Gomega) []time.Time {
				return queuedTimes(framework.GetCronJob(ctx, g, k8sClient, cj).Status)
			}).Should(Equal([]time.Time{at("10:10:00")}))

			By("stopping the manager, finishing the 10:05 Job while it is down, and starting a new manager")
			stop()
			finishJob(ctx, cj, at("10:05:00"), at("10:12:00"))
			startController(ns, at("10:13:00"))
			Eventually(func(g Gomega) {
				g.Expect(jobNames(listJobs(ctx, g, ns))).To(ConsistOf(jobNameFor(cj, at("10:05:00")), jobNameFor(cj, at("10:10:00"))))
				st := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(st.Queued).To(BeEmpty())
				g.Expect(st.LastScheduleTime.UTC()).To(Equal(at("10:10:00")))
			}).Should(Succeed())
			Consistently(func(g Gomega) int { return len(listJobs(ctx, g, ns)) }).Should(Equal(2), "the queued run starts once")
		})
	})

	When("missedRunPolicy is All and six runs were missed with maxCatchUpRuns 3", func() {
		It("should start the last three, one Job each, and report the three older ones once", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("catch-up", ns).Schedule("*/5 * * * *").CatchUp(3).LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			startController(ns, at("10:31:00"))

			want := []string{jobNameFor(cj, at("10:20:00")), jobNameFor(cj, at("10:25:00")), jobNameFor(cj, at("10:30:00"))}
			Eventually(func(g Gomega) {
				g.Expect(jobNames(listJobs(ctx, g, ns))).To(ConsistOf(want))
				g.Expect(framework.GetCronJob(ctx, g, k8sClient, cj).Status.LastScheduleTime.UTC()).To(Equal(at("10:30:00")))
			}).Should(Succeed())
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(want),
				"10:05 to 10:15 are beyond the cap and never start")
			Eventually(func(g Gomega) int {
				return eventOccurrences(ctx, g, cj)["Warning/MissedRunsDropped"]
			}).Should(Equal(1))
		})
	})

	When("a CronJob has jitterSeconds", func() {
		It("should publish the delayed start in status.nextScheduleTime and start the run then, named for its scheduled time", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("jitter", ns).Schedule("0 * * * *").JitterSeconds(600).LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, at("10:30:00"))

			var next time.Time
			Eventually(func(g Gomega) *metav1.Time {
				return framework.GetCronJob(ctx, g, k8sClient, cj).Status.NextScheduleTime
			}).ShouldNot(BeNil())
			next = framework.GetCronJob(ctx, Default, k8sClient, cj).Status.NextScheduleTime.UTC()
			Expect(next).To(BeTemporally(">=", at("11:00:00")))
			Expect(next).To(BeTemporally("<", at("11:10:00")))

			By("moving the clock to a second before the delayed start: nothing starts")
			Eventually(func() bool { return clk.WakeupBy(next.Add(requeuePad)) }).Should(BeTrue(),
				"the controller asks to be woken at the delayed start")
			clk.SetTime(next.Add(-time.Second))
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(BeEmpty())

			By("moving it just past the delayed start: the 11:00 run starts")
			clk.AdvanceTo(next.Add(requeuePad))
			job := onlyJob(ctx, ns)
			Expect(job.Name).To(Equal(jobNameFor(cj, at("11:00:00"))))
			Expect(job.Annotations).To(HaveKeyWithValue(cronjobv1.ScheduledAtAnnotation, "2026-03-01T11:00:00Z"))
			Expect(job.Labels).To(HaveKeyWithValue(cronjobv1.TriggerLabel, cronjobv1.TriggerSchedule))
		})
	})
})
