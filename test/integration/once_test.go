package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/cronjob"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// startRecordedController is startController with the outcomes of its reconciles recorded.
func startRecordedController(ns string, now time.Time) *framework.Outcomes {
	outcomes := &framework.Outcomes{}
	DeferCleanup(fwk.StartManager(framework.ManagerOptions{Namespace: ns, Clock: framework.NewClock(now),
		OnReconcile: outcomes.Record}).Stop)
	return outcomes
}

// touch updates a label of the Job, which makes the controller reconcile the Job's CronJob.
func touch(ctx SpecContext, job *batchv1.Job, n int) {
	GinkgoHelper()
	var live batchv1.Job
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(job), &live)).To(Succeed())
	if live.Labels == nil {
		live.Labels = map[string]string{}
	}
	live.Labels["touched"] = string(rune('a' + n))
	Expect(k8sClient.Update(ctx, &live)).To(Succeed())
}

// countOf counts the reasons equal to reason.
func countOf(reasons []string, reason string) int {
	n := 0
	for _, r := range reasons {
		if r == reason {
			n++
		}
	}
	return n
}

var _ = Describe("Once per cause", func() {
	When("a CronJob's time zone is unknown and its Jobs keep changing", func() {
		It("should warn UnknownTimeZone once, however often it is reconciled", func(ctx SpecContext) {
			ns := newNamespaceWithoutWebhooks(ctx)
			cj := builders.MakeCronJob("mars", ns).TimeZone("Mars/Phobos").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			ours := builders.MakeJob(jobNameFor(cj, at("10:00:00")), ns).OwnedBy(cj).ScheduledAt(at("10:00:00")).Obj()
			Expect(framework.CreateJob(ctx, k8sClient, ours)).To(Succeed())

			outcomes := startRecordedController(ns, at("10:01:00"))
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, cj) }).Should(ContainElement("Warning/UnknownTimeZone"))

			By("changing its Job three times, each a reconcile")
			for i := range 3 {
				before := len(outcomes.Of(client.ObjectKeyFromObject(cj)))
				touch(ctx, ours, i)
				Eventually(func() int { return len(outcomes.Of(client.ObjectKeyFromObject(cj))) }).Should(BeNumerically(">", before))
			}
			Consistently(func(g Gomega) int {
				return countOf(framework.EventReasonsRegarding(ctx, g, k8sClient, cj), "Warning/UnknownTimeZone")
			}).Should(Equal(1))
		})
	})

	When("a Job that someone else owns has the name of the due run, and the CronJob's own Jobs keep changing", func() {
		It("should try to create the run once, warn once, and start it as soon as that Job is gone", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("export", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			ours := builders.MakeJob(jobNameFor(cj, at("10:00:00")), ns).OwnedBy(cj).ScheduledAt(at("10:00:00")).Obj()
			Expect(framework.CreateJob(ctx, k8sClient, ours)).To(Succeed())
			stranger := builders.MakeJob(jobNameFor(cj, at("10:05:00")), ns).Label("team", "someone-else").Obj()
			Expect(framework.CreateJob(ctx, k8sClient, stranger)).To(Succeed())
			key := client.ObjectKeyFromObject(cj)

			outcomes := startRecordedController(ns, at("10:05:30"))
			Eventually(func(g Gomega) {
				cond := meta.FindStatusCondition(framework.GetCronJob(ctx, g, k8sClient, cj).Status.Conditions, cronjobv1.ConditionReady)
				g.Expect(cond).NotTo(BeNil())
				g.Expect(cond.Reason).To(Equal(cronjobv1.ReasonFailedCreate))
			}).Should(Succeed())
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, cj) }).Should(ContainElement("Warning/FailedCreate"))
			creates, err := framework.ScrapeAPIRequests(ctx, cfg)
			Expect(err).NotTo(HaveOccurred())

			By("changing the CronJob's own Job three times, each a reconcile")
			for i := range 3 {
				before := len(outcomes.Of(key))
				touch(ctx, ours, i)
				Eventually(func() int { return len(outcomes.Of(key)) }).Should(BeNumerically(">", before))
			}
			Expect(outcomes.Of(key)).To(HaveEach(HaveField("Run", cronjob.RunBlocked)))
			after, err := framework.ScrapeAPIRequests(ctx, cfg)
			Expect(err).NotTo(HaveOccurred())
			Expect(after.Since(creates).Count(func(r framework.APIRequest) bool {
				return r.Verb == "POST" && r.Resource == "jobs"
			})).To(BeZero(), "the run must not be tried again while the Job of someone else is unchanged")
			Consistently(func(g Gomega) int {
				return countOf(framework.EventReasonsRegarding(ctx, g, k8sClient, cj), "Warning/FailedCreate")
			}).Should(Equal(1))

			By("deleting the Job of someone else: the run starts at once")
			Expect(k8sClient.Delete(ctx, stranger, client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())
			Eventually(func(g Gomega) {
				var job batchv1.Job
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(stranger), &job)).To(Succeed())
				g.Expect(metav1.IsControlledBy(&job, cj)).To(BeTrue())
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(at("10:05:00"))))
				cond := meta.FindStatusCondition(status.Conditions, cronjobv1.ConditionReady)
				g.Expect(cond).NotTo(BeNil())
				g.Expect(cond.Status).To(Equal(metav1.ConditionTrue))
			}).Should(Succeed())
		})
	})
})
