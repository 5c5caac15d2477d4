package integration

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

var _ = Describe("Admission", func() {
	When("a CronJob is created", func() {
		var ns string
		BeforeEach(func(ctx SpecContext) {
			ns = newNamespace(ctx)
		})

		DescribeTable("should reject an invalid field with a message that says what to fix",
			func(ctx SpecContext, build func(ns string) *cronjobv1.CronJob, wantMessage string) {
				err := k8sClient.Create(ctx, build(ns))
				Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
				Expect(err.Error()).To(ContainSubstring(wantMessage))
			},
			Entry("a name longer than 52 characters",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob(strings.Repeat("a", cronjobv1.MaxNameLength+1), ns).Obj()
				},
				"metadata.name must be at most 52 characters: Job names add a dash and the scheduled minute"),
			Entry("a TZ= prefix in the schedule",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("tz", ns).Schedule("TZ=Europe/Berlin 0 3 * * *").Obj()
				},
				"schedule must not contain TZ= or CRON_TZ=: remove the prefix and set spec.timeZone"),
			Entry("a CRON_TZ= prefix in the schedule",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("crontz", ns).Schedule("CRON_TZ=UTC 0 3 * * *").Obj()
				},
				"schedule must not contain TZ= or CRON_TZ=: remove the prefix and set spec.timeZone"),
			Entry("a blank schedule",
				func(ns string) *cronjobv1.CronJob { return builders.MakeCronJob("blank", ns).Schedule("  ").Obj() },
				"schedule must not be blank: give a cron expression such as '*/5 * * * *'"),
			Entry("a negative startingDeadlineSeconds",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("deadline", ns).StartingDeadlineSeconds(-1).Obj()
				},
				"spec.startingDeadlineSeconds in body should be greater than or equal to 0"),
			Entry("a negative successfulJobsHistoryLimit",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("history", ns).HistoryLimits(-1, 1).Obj()
				},
				"spec.successfulJobsHistoryLimit in body should be greater than or equal to 0"),
		)

		It("should accept a name of exactly 52 characters", func(ctx SpecContext) {
			cj := builders.MakeCronJob(strings.Repeat("a", cronjobv1.MaxNameLength), ns).Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		})
	})
})
