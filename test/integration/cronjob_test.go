package integration

import (
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// ignoreResourceVersion compares status.active entries without the Job's resourceVersion, which changes
// with every write to the Job.
var ignoreResourceVersion = cmpopts.IgnoreFields(corev1.ObjectReference{}, "ResourceVersion")

// activeRef is the status.active entry the controller must write for job.
func activeRef(job *batchv1.Job) corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: "batch/v1", Kind: "Job", Namespace: job.Namespace, Name: job.Name, UID: job.UID}
}

// metaTime is t as the API returns it.
func metaTime(t time.Time) *metav1.Time { return ptr.To(metav1.NewTime(t)) }

var _ = Describe("Scheduling", func() {
	When("the next scheduled time comes", func() {
		var (
			ns  string
			cj  *cronjobv1.CronJob
			clk *framework.Clock
		)
		BeforeEach(func(ctx SpecContext) {
			ns = newNamespace(ctx)
			cj = builders.MakeCronJob("report", ns).Schedule("*/5 * * * *").
				JobLabel("app", "report").JobAnnotation("team", "reporting").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk = startController(ns, at("10:04:59"))
		})

		It("should create exactly one Job for it, and none before", func(ctx SpecContext) {
			By("evaluating the schedule one second before the scheduled time")
			Eventually(func(g Gomega) {
				cond := meta.FindStatusCondition(framework.GetCronJob(ctx, g, k8sClient, cj).Status.Conditions, cronjobv1.ConditionReady)
				g.Expect(cond).NotTo(BeNil())
				g.Expect(cond.Status).To(Equal(metav1.ConditionTrue))
				g.Expect(cond.LastTransitionTime.Time).To(BeTemporally("==", at("10:04:59")))
			}).Should(Succeed())
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(BeEmpty())

			By("moving the clock past the scheduled time")
			clk.AdvanceTo(at("10:05:01"))
			job := onlyJob(ctx, ns)
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(HaveLen(1))

			scheduled := at("10:05:00")
			Expect(job.Name).To(Equal(jobNameFor(cj, scheduled)))
			Expect(job.OwnerReferences).To(BeComparableTo([]metav1.OwnerReference{{
				APIVersion:         cronjobv1.GroupVersion.String(),
				Kind:               "CronJob",
				Name:               cj.Name,
				UID:                cj.UID,
				Controller:         ptr.To(true),
				BlockOwnerDeletion: ptr.To(true),
			}}))
			Expect(job.Annotations).To(HaveKeyWithValue(cronjobv1.ScheduledAtAnnotation, "2026-03-01T10:05:00Z"))

			By("recording the run in the CronJob's status")
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(scheduled)))
				g.Expect(status.Active).To(BeComparableTo([]corev1.ObjectReference{activeRef(&job)}, ignoreResourceVersion))
			}).Should(Succeed())
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, cj) }).Should(ContainElement("Normal/SuccessfulCreate"))
			// The wakeup may be earlier than the next run (the retry of a failed reconcile), never later.
			Eventually(func() bool { return clk.WakeupBy(at("10:10:01")) }).Should(BeTrue(),
				"the controller should requeue itself no later than the next run, at 10:10")
		})

		// Regression: controller-gen generated spec.jobTemplate.metadata as a bare object until
		// crd:generateEmbeddedObjectMeta=true, and the API server pruned the template's labels and annotations.
		It("should copy the Job template's labels and annotations onto the Job", func(ctx SpecContext) {
			clk.AdvanceTo(at("10:05:01"))
			job := onlyJob(ctx, ns)
			Expect(job.Labels).To(HaveKeyWithValue("app", "report"))
			Expect(job.Annotations).To(HaveKeyWithValue("team", "reporting"))
		})
	})
})

var _ = Describe("Concurrency policy Forbid", func() {
	When("a Job is still active at the next scheduled time", func() {
		var (
			ns    string
			cj    *cronjobv1.CronJob
			clk   *framework.Clock
			first batchv1.Job
		)
		BeforeEach(func(ctx SpecContext) {
			ns = newNamespace(ctx)
			cj = builders.MakeCronJob("backup", ns).Schedule("*/5 * * * *").Forbid().
				LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk = startController(ns, at("10:05:30"))

			By("starting the run of 10:05, which is due at once")
			first = onlyJob(ctx, ns)
			Expect(first.Name).To(Equal(jobNameFor(cj, at("10:05:00"))))

			By("letting the run of 10:10 come while that Job is active")
			clk.AdvanceTo(at("10:10:01"))
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, cj) }).Should(ContainElement("Normal/JobAlreadyActive"))
		})

		It("should not start a second Job", func(ctx SpecContext) {
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(first.Name))
			status := framework.GetCronJob(ctx, Default, k8sClient, cj).Status
			Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(at("10:05:00"))))
			Expect(status.Active).To(BeComparableTo([]corev1.ObjectReference{activeRef(&first)}, ignoreResourceVersion))
		})

		It("should drop the Job from status.active and record its completion once it succeeds", func(ctx SpecContext) {
			clk.SetTime(at("10:12:00"))
			Expect(k8sClient.Status().Update(ctx,
				builders.FromJob(&first).StartedAt(at("10:05:30")).Succeeded(at("10:12:00")).Obj())).To(Succeed())

			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.Active).NotTo(ContainElement(HaveField("UID", first.UID)))
				g.Expect(status.LastSuccessfulTime).To(BeComparableTo(metaTime(at("10:12:00"))))
			}).Should(Succeed())
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, cj) }).Should(ContainElement("Normal/SawCompletedJob"))
		})

		It("should start the skipped run once the active Job succeeds", func(ctx SpecContext) {
			clk.SetTime(at("10:12:00"))
			Expect(k8sClient.Status().Update(ctx,
				builders.FromJob(&first).StartedAt(at("10:05:30")).Succeeded(at("10:12:00")).Obj())).To(Succeed())

			skipped := jobNameFor(cj, at("10:10:00"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(first.Name, skipped))
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(at("10:10:00"))))
				g.Expect(status.Active).To(ConsistOf(HaveField("Name", skipped)))
			}).Should(Succeed())
		})
	})
})

var _ = Describe("History limits", func() {
	When("more Jobs have finished than the limits keep", func() {
		var (
			ns string
			cj *cronjobv1.CronJob
		)
		BeforeEach(func(ctx SpecContext) {
			ns = newNamespace(ctx)
			// The next run is at 10:05 and the controller starts at 10:01, so it starts no Job.
			cj = builders.MakeCronJob("cleanup", ns).Schedule("*/5 * * * *").HistoryLimits(1, 1).
				LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
		})

		// finishedJob is the Job of the run scheduled at hh:mm, started then and finished a minute later.
		finishedJob := func(hhmm string, succeeded bool) *batchv1.Job {
			scheduled := at(hhmm + ":00")
			b := builders.MakeJob(jobNameFor(cj, scheduled), ns).OwnedBy(cj).ScheduledAt(scheduled).StartedAt(scheduled)
			if succeeded {
				return b.Succeeded(scheduled.Add(time.Minute)).Obj()
			}
			return b.Failed(scheduled.Add(time.Minute)).Obj()
		}

		// The Jobs exist before the controller starts, so one reconcile sees them all: the outcome does not
		// depend on the order in which the controller learns that they finished.
		It("should delete all but the newest succeeded Job", func(ctx SpecContext) {
			for _, hhmm := range []string{"09:45", "09:50", "09:55"} {
				Expect(framework.CreateJob(ctx, k8sClient, finishedJob(hhmm, true))).To(Succeed())
			}
			startController(ns, at("10:01:00"))

			newest := jobNameFor(cj, at("09:55:00"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(newest))
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(newest))
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, cj) }).Should(
				ContainElement("Normal/SuccessfulDelete"))
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastSuccessfulTime).To(BeComparableTo(metaTime(at("09:56:00"))))
				g.Expect(status.Active).To(BeEmpty())
			}).Should(Succeed())
		})

		It("should delete all but the newest failed Job, and no active Job", func(ctx SpecContext) {
			running := builders.MakeJob(jobNameFor(cj, at("09:40:00")), ns).OwnedBy(cj).
				ScheduledAt(at("09:40:00")).StartedAt(at("09:40:00")).Obj()
			Expect(framework.CreateJob(ctx, k8sClient, running)).To(Succeed())
			for _, hhmm := range []string{"09:45", "09:50", "09:55"} {
				Expect(framework.CreateJob(ctx, k8sClient, finishedJob(hhmm, false))).To(Succeed())
			}
			startController(ns, at("10:01:00"))

			want := []string{running.Name, jobNameFor(cj, at("09:55:00"))}
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(want))
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(want))
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastFailureTime).To(BeComparableTo(metaTime(at("09:56:00"))))
				g.Expect(status.Active).To(BeComparableTo([]corev1.ObjectReference{activeRef(running)}, ignoreResourceVersion))
			}).Should(Succeed())
		})
	})
})

var _ = Describe("Schedule validation", func() {
	When("the schedule passes admission but cron cannot parse it", func() {
		var (
			ns  string
			cj  *cronjobv1.CronJob
			clk *framework.Clock
		)
		BeforeEach(func(ctx SpecContext) {
			// The validating webhook rejects such a schedule; a CronJob admitted before the webhook was
			// deployed can still hold one, and the webhooks skip this namespace to create it.
			ns = newNamespaceWithoutWebhooks(ctx)
			// Minute 61 does not exist: the CRD only rejects blank schedules and TZ= prefixes.
			cj = builders.MakeCronJob("broken", ns).Schedule("61 * * * *").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk = startController(ns, at("10:00:00"))

			Eventually(func(g Gomega) {
				cond := meta.FindStatusCondition(framework.GetCronJob(ctx, g, k8sClient, cj).Status.Conditions, cronjobv1.ConditionReady)
				g.Expect(cond).NotTo(BeNil())
				g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
				g.Expect(cond.Reason).To(Equal(cronjobv1.ReasonUnparseableSchedule))
				g.Expect(cond.Message).To(ContainSubstring(`"61 * * * *"`))
			}).Should(Succeed())
		})

		It("should warn with UnparseableSchedule and neither create a Job nor requeue", func(ctx SpecContext) {
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, cj) }).Should(
				ContainElement("Warning/UnparseableSchedule"))
			Consistently(clk.Wakeups).Should(BeEmpty(), "a user error must not be retried until the spec changes")
			Expect(listJobs(ctx, Default, ns)).To(BeEmpty())
		})

		It("should schedule again once the schedule is fixed", func(ctx SpecContext) {
			patch := client.MergeFrom(cj.DeepCopy())
			cj.Spec.Schedule = "*/5 * * * *"
			Expect(k8sClient.Patch(ctx, cj, patch)).To(Succeed())

			Eventually(func(g Gomega) {
				cond := meta.FindStatusCondition(framework.GetCronJob(ctx, g, k8sClient, cj).Status.Conditions, cronjobv1.ConditionReady)
				g.Expect(cond).NotTo(BeNil())
				g.Expect(cond.Status).To(Equal(metav1.ConditionTrue))
				g.Expect(cond.ObservedGeneration).To(Equal(cj.Generation))
			}).Should(Succeed())
			clk.AdvanceTo(at("10:05:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(
				ConsistOf(jobNameFor(cj, at("10:05:00"))))
		})
	})
})

// jobNames returns the names of the Jobs.
func jobNames(jobs []batchv1.Job) []string {
	names := make([]string, 0, len(jobs))
	for _, j := range jobs {
		names = append(names, j.Name)
	}
	return names
}
