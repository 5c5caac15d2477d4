package integration

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

var _ = Describe("Recovery of a run whose status write was lost", func() {
	// The controller creates a run's Job, then writes status.lastScheduleTime. If the status write is lost (a
	// crash, a conflict) or the next reconcile reads a CronJob from a cache that has not seen the write yet,
	// the controller finds a running Job named for the due run that its status does not record. Job names
	// are deterministic, so that Job is this run: the controller must adopt it, whatever the concurrency
	// policy, and neither skip the run nor replace the Job.
	//
	// The stale cache makes this happen in normal operation: the Job's ADDED event often reaches the
	// controller before the CronJob's status update does, so the reconcile right after a create sees this
	// very state. The specs below set it up deterministically.
	When("a running Job of the due run exists but status.lastScheduleTime does not record it", func() {
		var ns string
		BeforeEach(func(ctx SpecContext) {
			ns = newNamespace(ctx)
		})

		DescribeTable("should adopt the Job as the run",
			func(ctx SpecContext, policy cronjobv1.ConcurrencyPolicy) {
				cj := builders.MakeCronJob("sync", ns).Schedule("*/5 * * * *").ConcurrencyPolicy(policy).
					LastScheduleTime(at("10:00:00")).Obj()
				Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
				scheduled := at("10:05:00")
				job := builders.MakeJob(jobNameFor(cj, scheduled), ns).OwnedBy(cj).ScheduledAt(scheduled).
					StartedAt(at("10:05:01")).Obj()
				Expect(framework.CreateJob(ctx, k8sClient, job)).To(Succeed())

				startController(ns, at("10:05:30"))

				// The controller writes status once per reconcile: the write that fills status.active is the
				// one to judge, so a wrong outcome fails at once instead of after a timeout.
				var status cronjobv1.CronJobStatus
				Eventually(func(g Gomega) []corev1.ObjectReference {
					status = framework.GetCronJob(ctx, g, k8sClient, cj).Status
					return status.Active
				}).ShouldNot(BeEmpty())
				Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(scheduled)))
				Expect(status.Active).To(BeComparableTo([]corev1.ObjectReference{activeRef(job)}, ignoreResourceVersion))
				Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(
					ConsistOf(HaveField("UID", job.UID)), "the Job must be neither replaced nor joined by another")
				Expect(framework.EventReasonsRegarding(ctx, Default, k8sClient, cj)).NotTo(ContainElement(BeElementOf(
					"Normal/JobAlreadyActive", "Normal/SuccessfulDelete", "Normal/SuccessfulCreate")))
			},
			Entry("Allow", cronjobv1.AllowConcurrent),
			// Regressions: Forbid counted the run's own Job as a prior execution (JobAlreadyActive, run
			// recorded as skipped); Replace deleted it and created it again.
			Entry("Forbid", cronjobv1.ForbidConcurrent),
			Entry("Replace", cronjobv1.ReplaceConcurrent),
		)
	})

	When("a Job that someone else owns has the name of the due run", func() {
		It("should neither adopt nor touch it, report FailedCreate, not retry in a loop, and start the next run", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("export", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			stranger := builders.MakeJob(jobNameFor(cj, at("10:05:00")), ns).Label("team", "someone-else").Obj()
			Expect(framework.CreateJob(ctx, k8sClient, stranger)).To(Succeed())
			before, err := framework.CountReconciles()
			Expect(err).NotTo(HaveOccurred())

			clk := startController(ns, at("10:05:30"))
			Eventually(func(g Gomega) {
				cond := meta.FindStatusCondition(framework.GetCronJob(ctx, g, k8sClient, cj).Status.Conditions, cronjobv1.ConditionReady)
				g.Expect(cond).NotTo(BeNil())
				g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
				g.Expect(cond.Reason).To(Equal(cronjobv1.ReasonFailedCreate))
				g.Expect(cond.Message).To(ContainSubstring(stranger.Name))
			}).Should(Succeed())
			Expect(framework.EventReasonsRegarding(ctx, Default, k8sClient, cj)).To(ContainElement("Warning/FailedCreate"))
			Eventually(func() bool { return clk.WakeupBy(at("10:10:01")) }).Should(BeTrue(),
				"the controller should wait for the next run, not retry the failed one")

			By("leaving the stranger's Job as it was, and not retrying")
			var got batchv1.Job
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(stranger), &got)).To(Succeed())
			Expect(got.OwnerReferences).To(BeEmpty())
			Expect(got.ResourceVersion).To(Equal(stranger.ResourceVersion), "the controller must not write to it")
			settled, err := framework.CountReconciles()
			Expect(err).NotTo(HaveOccurred())
			Expect(settled.Since(before)["error"]).To(BeZero())
			Consistently(func(g Gomega) float64 {
				now, err := framework.CountReconciles()
				g.Expect(err).NotTo(HaveOccurred())
				return now.Since(before).Total()
			}).Should(Equal(settled.Since(before).Total()), "no retry storm: no reconcile until the next run")
			status := framework.GetCronJob(ctx, Default, k8sClient, cj).Status
			Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(at("10:00:00"))), "the run of 10:05 did not start")
			Expect(status.Active).To(BeEmpty())

			By("starting the next run, which recovers the condition")
			clk.AdvanceTo(at("10:10:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(
				ConsistOf(stranger.Name, jobNameFor(cj, at("10:10:00"))))
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(at("10:10:00"))))
				cond := meta.FindStatusCondition(status.Conditions, cronjobv1.ConditionReady)
				g.Expect(cond).NotTo(BeNil())
				g.Expect(cond.Status).To(Equal(metav1.ConditionTrue))
			}).Should(Succeed())
		})
	})
})
