//go:build e2e

package e2e

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The conformance specs mirror the e2e tests of the built-in CronJob (test/e2e/apps/cronjob.go in
// Kubernetes), on a real cluster with a real Job controller, kubelet and garbage collector. They run in
// parallel, each in its own namespace, on minutely schedules.
var _ = Describe("Conformance", Label("conformance"), func() {
	It("should run overlapping Jobs with concurrencyPolicy Allow, each with its scheduled-at annotation", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("overlap", ns, 10*time.Minute, 0).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		By("waiting for two Jobs to be active at once")
		Eventually(func(g Gomega) {
			status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
			g.Expect(status.Active).To(HaveLen(2))
			jobs := jobsOf(ctx, g, cj)
			g.Expect(jobs).To(HaveLen(2))
			for _, j := range jobs {
				done, _ := framework.JobFinished(&j)
				g.Expect(done).To(BeFalse(), "Job %s should still run", j.Name)
				at, err := time.Parse(time.RFC3339, j.Annotations[cronjobv1.ScheduledAtAnnotation])
				g.Expect(err).NotTo(HaveOccurred(), "Job %s: scheduled-at annotation", j.Name)
				g.Expect(at.Second()).To(BeZero(), "a minutely run is scheduled on the minute")
			}
		}).WithTimeout(2*runWait + runWait/2).Should(Succeed())
	})

	It("should never have two active Jobs with concurrencyPolicy Forbid", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("forbid", ns, 10*time.Minute, 0).Forbid().Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		By("waiting for the first Job")
		Eventually(func(g Gomega) []batchv1.Job { return jobsOf(ctx, g, cj) }).WithTimeout(runWait).Should(HaveLen(1))
		By("checking that the next scheduled minute is skipped while it runs")
		Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, cj) }).WithTimeout(runWait).
			Should(ContainElement("Normal/JobAlreadyActive"))
		Expect(jobsOf(ctx, Default, cj)).To(HaveLen(1))
		Expect(framework.GetCronJob(ctx, Default, k8sClient, cj).Status.Active).To(HaveLen(1))
	})

	It("should replace the active Job, and its Pods go, with concurrencyPolicy Replace", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("replace", ns, 10*time.Minute, 0).Replace().Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		By("waiting for the first Job and its Pod")
		var first batchv1.Job
		Eventually(func(g Gomega) {
			jobs := jobsOf(ctx, g, cj)
			g.Expect(jobs).To(HaveLen(1))
			first = jobs[0]
			g.Expect(podsOf(ctx, g, ns, first.UID)).NotTo(BeEmpty())
		}).WithTimeout(runWait).Should(Succeed())

		By("waiting for the next run to replace it")
		Eventually(func(g Gomega) {
			jobs := jobsOf(ctx, g, cj)
			g.Expect(jobs).To(HaveLen(1))
			g.Expect(jobs[0].UID).NotTo(Equal(first.UID))
			status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
			g.Expect(status.Active).To(ConsistOf(HaveField("UID", jobs[0].UID)))
		}).WithTimeout(runWait).Should(Succeed())
		Expect(framework.EventReasonsRegarding(ctx, Default, k8sClient, cj)).To(ContainElement("Normal/SuccessfulDelete"))
		By("checking that the garbage collector removes the replaced Job's Pods")
		Eventually(func(g Gomega) { g.Expect(podsOf(ctx, g, ns, first.UID)).To(BeEmpty()) }).
			WithTimeout(settleWait).Should(Succeed())
	})

	It("should create no Job while suspended", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("suspended", ns, 0, 0).Suspend().Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		Eventually(func(g Gomega) *cronjobv1.ObservedSchedule {
			return framework.GetCronJob(ctx, g, k8sClient, cj).Status.ObservedSchedule
		}).
			Should(HaveField("Suspended", true))
		Consistently(func(g Gomega) []batchv1.Job { return jobsOf(ctx, g, cj) }).WithTimeout(noRunWindow).
			Should(BeEmpty(), "a scheduled minute passed while suspended")
	})

	It("should keep exactly the history limits of finished Jobs, and their Pods go with them", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		succeeding := minutely("ok", ns, 0, 0).HistoryLimits(1, 1).Obj()
		failing := minutely("ko", ns, 0, 1).BackoffLimit(0).HistoryLimits(1, 1).Obj()
		Expect(k8sClient.Create(ctx, succeeding)).To(Succeed())
		Expect(k8sClient.Create(ctx, failing)).To(Succeed())

		By("waiting for three runs of each")
		Eventually(func(g Gomega) {
			g.Expect(len(oracle.JobsOf(succeeding.UID))).To(BeNumerically(">=", 3))
			g.Expect(len(oracle.JobsOf(failing.UID))).To(BeNumerically(">=", 3))
		}).WithTimeout(3*runWait + runWait/2).Should(Succeed())

		By("checking that one finished Job of each kind is kept, and no Pod of a deleted Job")
		for _, c := range []struct {
			cj  *cronjobv1.CronJob
			how batchv1.JobConditionType
		}{{succeeding, batchv1.JobComplete}, {failing, batchv1.JobFailed}} {
			Eventually(func(g Gomega) {
				var kept []string
				for _, j := range jobsOf(ctx, g, c.cj) {
					if done, how := framework.JobFinished(&j); done {
						g.Expect(how).To(Equal(c.how))
						kept = append(kept, j.Name)
					}
				}
				g.Expect(kept).To(HaveLen(1), "finished Jobs of %s", c.cj.Name)
				live := map[string]bool{}
				for _, j := range jobsOf(ctx, g, c.cj) {
					live[string(j.UID)] = true
				}
				for _, seen := range oracle.JobsOf(c.cj.UID) {
					if !live[string(seen.UID)] {
						g.Expect(podsOf(ctx, g, ns, seen.UID)).To(BeEmpty(), "Pods of the deleted Job %s", seen.Name)
					}
				}
			}).WithTimeout(settleWait).Should(Succeed())
		}
		status := framework.GetCronJob(ctx, Default, k8sClient, succeeding).Status
		Expect(status.LastSuccessfulTime).NotTo(BeNil())
		Expect(framework.GetCronJob(ctx, Default, k8sClient, failing).Status.LastFailureTime).NotTo(BeNil())
	})

	It("should drop a deleted active Job from status.active with MissingJob", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("vanishing", ns, 10*time.Minute, 0).Forbid().Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		var job batchv1.Job
		Eventually(func(g Gomega) {
			status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
			g.Expect(status.Active).To(HaveLen(1))
			jobs := jobsOf(ctx, g, cj)
			g.Expect(jobs).To(HaveLen(1))
			job = jobs[0]
		}).WithTimeout(runWait).Should(Succeed())

		By("deleting the active Job behind the controller's back")
		Expect(k8sClient.Delete(ctx, &job, client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(framework.GetCronJob(ctx, g, k8sClient, cj).Status.Active).NotTo(ContainElement(HaveField("UID", job.UID)))
			g.Expect(framework.EventReasonsRegarding(ctx, g, k8sClient, cj)).To(ContainElement("Normal/MissingJob"))
		}).WithTimeout(settleWait).Should(Succeed())
	})

	DescribeTable("should reject at admission, saying what to fix,",
		func(ctx SpecContext, mutate func(*builders.CronJobWrapper), field, message string) {
			ns := newNamespace(ctx)
			w := minutely("rejected", ns, 0, 0)
			mutate(w)
			err := k8sClient.Create(ctx, w.Obj())
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(And(ContainSubstring(field), ContainSubstring(message)))
		},
		Entry("an unknown time zone", func(w *builders.CronJobWrapper) { w.TimeZone("Mars/Olympus_Mons") },
			"spec.timeZone", "is not a known IANA time zone"),
		Entry("a schedule cron cannot parse", func(w *builders.CronJobWrapper) { w.Schedule("61 * * * *") },
			"spec.schedule", "is not a valid cron schedule"),
		Entry("the time zone Local, as batch/v1 rejects it", func(w *builders.CronJobWrapper) { w.TimeZone("Local") },
			"spec.timeZone", "not Local"),
		Entry("a time zone with a '..' element, as batch/v1 rejects it", func(w *builders.CronJobWrapper) { w.TimeZone("Europe/../UTC") },
			"spec.timeZone", "no '.' or '..' element"),
	)

	It("should default the spec as batch/v1 does", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("defaults", ns, 0, 0).Suspend().Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		got := framework.GetCronJob(ctx, Default, k8sClient, cj)
		Expect(got.Spec.ConcurrencyPolicy).To(Equal(cronjobv1.AllowConcurrent))
		Expect(got.Spec.SuccessfulJobsHistoryLimit).To(Equal(ptr.To[int32](3)))
		Expect(got.Spec.FailedJobsHistoryLimit).To(Equal(ptr.To[int32](1)))
	})
})
