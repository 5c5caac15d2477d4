package integration

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// getRun reads the CronJobRun from the API server.
func getRun(ctx context.Context, g Gomega, run *cronjobv1.CronJobRun) *cronjobv1.CronJobRun {
	var got cronjobv1.CronJobRun
	g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), &got)).To(Succeed())
	return &got
}

// runningJobOf creates the CronJobRun, waits until it is Running, and returns the name of its Job.
func runningJobOf(ctx context.Context, run *cronjobv1.CronJobRun) string {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, run)).To(Succeed())
	var job string
	Eventually(func(g Gomega) {
		got := getRun(ctx, g, run)
		g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunRunning))
		g.Expect(got.Status.JobName).NotTo(BeEmpty())
		job = got.Status.JobName
	}).Should(Succeed())
	return job
}

// runReady is the run's Ready condition, or an empty one.
func runReady(run *cronjobv1.CronJobRun) metav1.Condition {
	if c := meta.FindStatusCondition(run.Status.Conditions, cronjobv1.ConditionReady); c != nil {
		return *c
	}
	return metav1.Condition{}
}

var _ = Describe("Manual runs", func() {
	var (
		ns  string
		cj  *cronjobv1.CronJob
		clk *framework.Clock
	)

	// withActiveJob creates a CronJob of */5 last scheduled at 10:00 with the policy applied, starts the
	// controller at 10:05:30, and returns the Job of the 10:05 run, active.
	withActiveJob := func(ctx SpecContext, name string, policy func(*builders.CronJobWrapper) *builders.CronJobWrapper) batchv1.Job {
		GinkgoHelper()
		ns = newNamespace(ctx)
		cj = policy(builders.MakeCronJob(name, ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00"))).Obj()
		Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
		clk = startController(ns, at("10:05:30"))
		return onlyJob(ctx, ns)
	}

	When("a CronJobRun asks to run a CronJob now", func() {
		BeforeEach(func(ctx SpecContext) {
			ns = newNamespace(ctx)
			cj = builders.MakeCronJob("report", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk = startController(ns, at("10:02:00"))
		})

		It("should create exactly one Job, owned by the CronJob and active in its status, and be Running", func(ctx SpecContext) {
			run := builders.MakeCronJobRun("", ns, cj.Name).GenerateName(cj.Name + "-").Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())

			job := onlyJob(ctx, ns)
			Expect(metav1.GetControllerOf(&job)).To(HaveField("UID", cj.UID))
			Expect(job.Labels).To(HaveKeyWithValue(cronjobv1.TriggerLabel, cronjobv1.TriggerManual))
			Expect(job.Annotations).To(HaveKeyWithValue(cronjobv1.CronJobRunAnnotation, run.Name))
			Expect(job.Annotations).To(HaveKeyWithValue(cronjobv1.ScheduledAtAnnotation, "2026-03-01T10:02:00Z"))
			Eventually(func(g Gomega) {
				got := getRun(ctx, g, run)
				g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunRunning))
				g.Expect(got.Status.JobName).To(Equal(job.Name))
				g.Expect(got.OwnerReferences).To(ConsistOf(HaveField("UID", job.UID)))
			}).Should(Succeed())
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.Active).To(ConsistOf(HaveField("UID", job.UID)))
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(at("10:00:00"))), "a run now is not a scheduled run")
			}).Should(Succeed())
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, run) }).Should(ContainElement("Normal/SuccessfulCreate"))
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(HaveLen(1))

			By("running the 10:05 run as scheduled beside it")
			clk.AdvanceTo(at("10:05:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(job.Name, jobNameFor(cj, at("10:05:00"))))
		})

		It("should be Succeeded when its Job completes, and deleted when its TTL has passed", func(ctx SpecContext) {
			run := builders.MakeCronJobRun("once", ns, cj.Name).TTLSecondsAfterFinished(60).Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())
			job := onlyJob(ctx, ns)
			Eventually(func(g Gomega) string { return getRun(ctx, g, run).Status.JobName }).Should(Equal(job.Name))

			clk.SetTime(at("10:03:00"))
			Expect(k8sClient.Status().Update(ctx, builders.FromJob(&job).StartedAt(at("10:02:00")).Succeeded(at("10:03:00")).Obj())).To(Succeed())
			Eventually(func(g Gomega) {
				got := getRun(ctx, g, run)
				g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunSucceeded))
				g.Expect(got.Status.CompletionTime).To(BeComparableTo(metaTime(at("10:03:00"))))
			}).Should(Succeed())

			clk.AdvanceTo(at("10:04:01"))
			Eventually(func() bool {
				return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), &cronjobv1.CronJobRun{}))
			}).Should(BeTrue(), "the run should be deleted 60 s after it finished")
		})

		It("should be deleted with its Job", func(ctx SpecContext) {
			run := builders.MakeCronJobRun("pruned", ns, cj.Name).Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())
			job := onlyJob(ctx, ns)
			Eventually(func(g Gomega) string { return getRun(ctx, g, run).Status.JobName }).Should(Equal(job.Name))

			// envtest has no garbage collector: the controller itself deletes a run whose Job is gone.
			Expect(k8sClient.Delete(ctx, &job, client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())
			Eventually(func() bool {
				return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), &cronjobv1.CronJobRun{}))
			}).Should(BeTrue())
		})

		It("should reject a change of spec.cronJobName with a message that says what to do", func(ctx SpecContext) {
			run := builders.MakeCronJobRun("fixed", ns, cj.Name).Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())
			Eventually(func(g Gomega) {
				got := getRun(ctx, g, run)
				got.Spec.CronJobName = "other"
				err := k8sClient.Update(ctx, got)
				g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
				g.Expect(err.Error()).To(ContainSubstring("spec.cronJobName, spec.scheduledTime and spec.concurrencyPolicy are immutable: create another CronJobRun"))
			}).Should(Succeed())
		})
	})

	When("a CronJobRun asks for a scheduled time the scheduler already ran", func() {
		It("should create nothing and report that Job", func(ctx SpecContext) {
			ns = newNamespace(ctx)
			cj = builders.MakeCronJob("backup", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			startController(ns, at("10:05:30"))
			scheduled := onlyJob(ctx, ns)
			Expect(scheduled.Name).To(Equal(jobNameFor(cj, at("10:05:00"))))

			run := builders.MakeCronJobRun("again", ns, cj.Name).ScheduledTime(at("10:05:00")).Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())
			Eventually(func(g Gomega) {
				got := getRun(ctx, g, run)
				g.Expect(got.Status.JobName).To(Equal(scheduled.Name))
				g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunRunning))
				g.Expect(runReady(got).Reason).To(Equal("JobExisted"))
			}).Should(Succeed())
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(scheduled.Name))
		})
	})

	When("a CronJobRun honours a concurrency policy whose limit the active Job reaches", func() {
		DescribeTable("should wait Pending with the policy's reason, then start as soon as that Job finishes",
			func(ctx SpecContext, policy func(*builders.CronJobWrapper) *builders.CronJobWrapper, reason string) {
				active := withActiveJob(ctx, "sync", policy)

				run := builders.MakeCronJobRun("later", ns, cj.Name).Obj()
				Expect(k8sClient.Create(ctx, run)).To(Succeed())
				Eventually(func(g Gomega) {
					got := getRun(ctx, g, run)
					g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunPending))
					g.Expect(runReady(got)).To(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", reason)))
				}).Should(Succeed())
				Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(HaveLen(1))

				clk.SetTime(at("10:07:00"))
				Expect(k8sClient.Status().Update(ctx, builders.FromJob(&active).StartedAt(at("10:05:30")).Succeeded(at("10:07:00")).Obj())).To(Succeed())
				Eventually(func(g Gomega) {
					got := getRun(ctx, g, run)
					g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunRunning))
					g.Expect(got.Status.JobName).NotTo(BeEmpty())
				}).Should(Succeed())
				Expect(listJobs(ctx, Default, ns)).To(HaveLen(2))
			},
			Entry("Forbid", (*builders.CronJobWrapper).Forbid, "JobAlreadyActive"),
			Entry("Enqueue (maxActiveJobs 1 by default)", (*builders.CronJobWrapper).Enqueue, "MaxActiveJobsReached"),
			Entry("Allow with maxActiveJobs 1", func(w *builders.CronJobWrapper) *builders.CronJobWrapper { return w.MaxActiveJobs(1) },
				"MaxActiveJobsReached"),
		)
	})

	When("a CronJobRun runs a CronJob with concurrencyPolicy Replace while a Job is active", func() {
		It("should delete the active Job and start its own in its place", func(ctx SpecContext) {
			old := withActiveJob(ctx, "refresh", (*builders.CronJobWrapper).Replace)
			Expect(old.Name).To(Equal(jobNameFor(cj, at("10:05:00"))))

			manual := runningJobOf(ctx, builders.MakeCronJobRun("now", ns, cj.Name).Obj())
			// envtest has no garbage collector: the deleted Job may linger with a deletionTimestamp.
			Eventually(func(g Gomega) []string {
				var live []string
				for _, j := range listJobs(ctx, g, ns) {
					if j.DeletionTimestamp == nil {
						live = append(live, j.Name)
					}
				}
				return live
			}).Should(ConsistOf(manual))
			Eventually(func(g Gomega) []string {
				return activeNames(framework.GetCronJob(ctx, g, k8sClient, cj).Status.Active)
			}).Should(ConsistOf(manual))
		})
	})

	When("a CronJobRun says concurrencyPolicy Ignore and the CronJob forbids a second Job", func() {
		It("should start its Job at once beside the active one", func(ctx SpecContext) {
			active := withActiveJob(ctx, "urgent", (*builders.CronJobWrapper).Forbid)

			manual := runningJobOf(ctx, builders.MakeCronJobRun("anyway", ns, cj.Name).IgnoreConcurrency().Obj())
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(active.Name, manual))
			Eventually(func(g Gomega) []string {
				return activeNames(framework.GetCronJob(ctx, g, k8sClient, cj).Status.Active)
			}).Should(ConsistOf(active.Name, manual))
		})
	})

	When("a CronJobRun names a CronJob that does not exist", func() {
		It("should be Rejected with a message that says what to fix", func(ctx SpecContext) {
			ns = newNamespace(ctx)
			startController(ns, at("10:00:00"))
			run := builders.MakeCronJobRun("typo", ns, "reprot").Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())
			Eventually(func(g Gomega) {
				got := getRun(ctx, g, run)
				g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunRejected))
				g.Expect(runReady(got).Message).To(ContainSubstring("CronJob reprot does not exist in namespace " + ns))
			}).Should(Succeed())
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, run) }).Should(ContainElement("Warning/CronJobNotFound"))
			Expect(ptr.Deref(getRun(ctx, Default, run).Status.CompletionTime, metav1.Time{}).Time).To(BeTemporally("==", at("10:00:00")))
		})
	})
})
