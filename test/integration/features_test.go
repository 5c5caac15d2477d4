package integration

import (
	"fmt"
	"maps"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The specs of this file cover what batch/v1 does not have: the Enqueue policy, catch-up of missed runs,
// jitter and status.nextScheduleTime, against a real API server (the status subresource, its one-second
// time resolution, the CRD's defaults) with the controller on a fake clock.

// requeuePad is the controller's requeue padding (schedule.RequeuePadding): it asks to be woken that long
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
	endJobAs(ctx, cj, run, batchv1.JobComplete, done)
}

// endJobAs plays the Job controller: the Job of the run scheduled at run started then and ended at done,
// as how says (batchv1.JobComplete or batchv1.JobFailed).
func endJobAs(ctx SpecContext, cj *cronjobv1.CronJob, run time.Time, how batchv1.JobConditionType, done time.Time) {
	GinkgoHelper()
	var job batchv1.Job
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: cj.Namespace, Name: jobNameFor(cj, run)}, &job)).To(Succeed())
	b := builders.FromJob(&job).StartedAt(run)
	if how == batchv1.JobComplete {
		b.Succeeded(done)
	} else {
		b.Failed(done)
	}
	Expect(k8sClient.Status().Update(ctx, b.Obj())).To(Succeed())
}

// startThenQueue moves the clock of an Enqueue CronJob of */5 last scheduled at 10:00 (the controller
// woken at 10:04) to just past 10:05, where the 10:05 run starts, and then just past 10:10, where the
// 10:10 run is queued behind the running 10:05 Job.
func startThenQueue(ctx SpecContext, clk *framework.Clock, cj *cronjobv1.CronJob) {
	GinkgoHelper()
	clk.AdvanceTo(at("10:05:01"))
	Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, cj.Namespace)) }).Should(ConsistOf(jobNameFor(cj, at("10:05:00"))))
	clk.AdvanceTo(at("10:10:01"))
	Eventually(func(g Gomega) []time.Time {
		return queuedTimes(framework.GetCronJob(ctx, g, k8sClient, cj).Status)
	}).Should(Equal([]time.Time{at("10:10:00")}))
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

	When("a queued run's startingDeadlineSeconds passes while the Job before it still runs", func() {
		It("should wake at the deadline and drop the run from the queue with one QueuedRunExpired, starting nothing for it", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("expire", ns).Schedule("*/5 * * * *").Enqueue().StartingDeadlineSeconds(120).
				LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, at("10:04:00"))
			startThenQueue(ctx, clk, cj)

			By("moving the clock to the deadline of the 10:10 run, 10:12, long before the next scheduled time")
			clk.AdvanceTo(at("10:12:00").Add(requeuePad))
			Eventually(func(g Gomega) []cronjobv1.QueuedRun { return framework.GetCronJob(ctx, g, k8sClient, cj).Status.Queued }).Should(BeEmpty())
			Eventually(func(g Gomega) int { return eventOccurrences(ctx, g, cj)["Warning/QueuedRunExpired"] }).Should(Equal(1))

			By("finishing the 10:05 Job: nothing starts for the expired run; 10:15 starts on time")
			clk.SetTime(at("10:13:00"))
			finishJob(ctx, cj, at("10:05:00"), at("10:13:00"))
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(jobNameFor(cj, at("10:05:00"))))
			clk.AdvanceTo(at("10:15:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(
				jobNameFor(cj, at("10:05:00")), jobNameFor(cj, at("10:15:00"))))
			Expect(eventOccurrences(ctx, Default, cj)["Warning/QueuedRunExpired"]).To(Equal(1), "reported once")
		})
	})

	When("the manager restarts while runs are queued under Enqueue", func() {
		It("should keep the queue in status and let the new manager start each queued run once", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("requeue", ns).Schedule("*/5 * * * *").Enqueue().LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk, stop := startStoppableController(ns, at("10:04:00"))
			startThenQueue(ctx, clk, cj)

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

	When("missedRunPolicy is All and the operator was down for a week, with maxCatchUpRuns 100", func() {
		It("should start exactly the last 100 missed runs, oldest first, and report the older ones once", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
			back := at("10:00:00").Add(-7 * 24 * time.Hour)
			cj := builders.MakeCronJob("week", ns).Schedule("*/5 * * * *").CatchUp(100).LastScheduleTime(back).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			startController(ns, at("10:00:30"))

			// 2,016 runs were missed (every 5 minutes for 7 days); the last 100 are 01:45 to 10:00.
			var want []time.Time
			for i := 99; i >= 0; i-- {
				want = append(want, at("10:00:00").Add(-time.Duration(i)*5*time.Minute))
			}
			Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).WithTimeout(2 * framework.Timeout).Should(Equal(want))
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(want), "no run beyond the cap, none twice")
			Eventually(func(g Gomega) *metav1.Time {
				return framework.GetCronJob(ctx, g, k8sClient, cj).Status.LastScheduleTime
			}).Should(BeComparableTo(metaTime(at("10:00:00"))))
			Eventually(func(g Gomega) int { return eventOccurrences(ctx, g, cj)["Warning/MissedRunsDropped"] }).Should(Equal(1))
		})
	})

	When("100 CronJobs share a schedule and jitterSeconds", func() {
		It("should spread their starts over the window, each at the delay the controller's schedule math gives its UID", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			var cjs []*cronjobv1.CronJob
			for i := range 100 {
				cj := builders.MakeCronJob(fmt.Sprintf("spread-%03d", i), ns).Schedule("0 * * * *").JitterSeconds(600).
					LastScheduleTime(at("10:00:00")).Obj()
				Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
				cjs = append(cjs, cj)
			}
			outcomes := &framework.Outcomes{}
			clk := framework.NewClock(at("10:30:00"))
			DeferCleanup(fwk.StartManager(framework.ManagerOptions{Namespace: ns, Clock: clk, OnReconcile: outcomes.Record}).Stop)

			By("publishing each start in status.nextScheduleTime, within [11:00, 11:10)")
			starts := map[string]time.Time{}
			for _, cj := range cjs {
				next, _, err := schedule.NextRuns(cj, nil, at("10:30:00"), 1)
				Expect(err).NotTo(HaveOccurred())
				Expect(next).To(HaveLen(1))
				start := next[0].Start.UTC()
				Expect(start).To(And(BeTemporally(">=", at("11:00:00")), BeTemporally("<", at("11:10:00"))))
				starts[cj.Name] = start
				Eventually(func(g Gomega) *metav1.Time {
					return framework.GetCronJob(ctx, g, k8sClient, cj).Status.NextScheduleTime
				}).Should(BeComparableTo(metaTime(start)), "CronJob %s", cj.Name)
			}
			distinct := map[time.Time]bool{}
			for _, t := range starts {
				distinct[t] = true
			}
			Expect(len(distinct)).To(BeNumerically(">=", 80), "100 UIDs over 600 s should rarely share a second")
			Expect(slices.MinFunc(slices.Collect(maps.Values(starts)), time.Time.Compare)).To(BeTemporally("<", at("11:02:00")))
			Expect(slices.MaxFunc(slices.Collect(maps.Values(starts)), time.Time.Compare)).To(BeTemporally(">=", at("11:08:00")))
			// Every CronJob has reconciled and asked for its wakeup once the reconciles stop coming.
			total := func() int {
				n := 0
				for _, cj := range cjs {
					n += len(outcomes.Of(client.ObjectKeyFromObject(cj)))
				}
				return n
			}
			Eventually(func(g Gomega) {
				before := total()
				g.Expect(before).To(BeNumerically(">=", 100))
				g.Consistently(total).WithTimeout(500 * time.Millisecond).Should(Equal(before))
			}).Should(Succeed())

			By("moving the clock to 11:05: exactly the CronJobs whose start has come have a Job")
			var early, all []string
			for _, cj := range cjs {
				if starts[cj.Name].Before(at("11:05:00")) {
					early = append(early, jobNameFor(cj, at("11:00:00")))
				}
				all = append(all, jobNameFor(cj, at("11:00:00")))
			}
			clk.SetTime(at("11:05:00"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(early))
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(early),
				"no run starts before its delayed start")

			By("moving it to 11:10: every CronJob has its 11:00 run, named for the scheduled time")
			clk.SetTime(at("11:10:00"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(all))
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
