package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

var _ = Describe("status.active bound", func() {
	// status.active has maxItems 100 in the schema; under Allow without maxActiveJobs more Jobs can be
	// active. The controller lists the first 100 and still counts every Job: a status write of 101 entries
	// would be refused, and the CronJob would stop recording its runs.
	When("101 Jobs of an Allow CronJob are running", func() {
		It("should list the 100 oldest, record the next run and start it beside them", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("many", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			const over = cronjobv1.MaxActiveListed + 1
			oldest := make([]string, 0, cronjobv1.MaxActiveListed)
			for i := over - 1; i >= 0; i-- { // oldest first: created in the order of their names
				scheduled := at("10:00:00").Add(-time.Duration(i) * 5 * time.Minute)
				job := builders.MakeJob(jobNameFor(cj, scheduled), ns).OwnedBy(cj).ScheduledAt(scheduled).
					StartedAt(scheduled.Add(time.Second)).Obj()
				Expect(framework.CreateJob(ctx, k8sClient, job)).To(Succeed())
				if len(oldest) < cronjobv1.MaxActiveListed {
					oldest = append(oldest, job.Name)
				}
			}

			startController(ns, at("10:05:30"))

			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(at("10:05:00"))))
				names := make([]string, 0, len(status.Active))
				for _, ref := range status.Active {
					names = append(names, ref.Name)
				}
				g.Expect(names).To(Equal(oldest))
				g.Expect(meta.IsStatusConditionTrue(status.Conditions, cronjobv1.ConditionReady)).To(BeTrue())
			}).Should(Succeed())
			Expect(listJobs(ctx, Default, ns)).To(ContainElement(HaveField("ObjectMeta.Name", jobNameFor(cj, at("10:05:00")))))
			Expect(listJobs(ctx, Default, ns)).To(HaveLen(over + 1))
			Consistently(func(g Gomega) []corev1.ObjectReference {
				return framework.GetCronJob(ctx, g, k8sClient, cj).Status.Active
			}).Should(HaveLen(cronjobv1.MaxActiveListed), "the list must stay within the schema's maxItems")
		})
	})
})
