package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The specs of this file edit a CronJob while no controller runs, so the edit time the controller must use
// is the one the API server recorded in managedFields, on the API server's (real) clock. They set the
// controller's fake clock relative to that record, read back from the server, never to the test
// process's clock.

// resume sets spec.suspend to false and returns the time the API server recorded for the edit: the
// latest managedFields entry of the main resource (the spec's writer; the controller only writes status).
func resume(ctx SpecContext, cj *cronjobv1.CronJob) time.Time {
	GinkgoHelper()
	live := framework.GetCronJob(ctx, Default, k8sClient, cj)
	live.Spec.Suspend = ptr.To(false)
	Expect(k8sClient.Update(ctx, live)).To(Succeed())
	var editedAt time.Time
	for _, e := range framework.GetCronJob(ctx, Default, k8sClient, cj).ManagedFields {
		if e.Subresource == "" && e.Time != nil && e.Time.After(editedAt) {
			editedAt = e.Time.Time
		}
	}
	Expect(editedAt).NotTo(BeZero(), "the API server recorded no time for the edit")
	return editedAt
}

// createSuspendedHourly creates a suspended hourly CronJob whose last run was two hours before its
// creation, on the API server's clock, so the hour of an edit right after and the one before are unmet
// times. It returns the CronJob and the hour of its creation.
func createSuspendedHourly(ctx SpecContext, name, ns string) (*cronjobv1.CronJob, time.Time) {
	GinkgoHelper()
	cj := builders.MakeCronJob(name, ns).Schedule("0 * * * *").Suspend().Obj()
	Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
	hour := framework.GetCronJob(ctx, Default, k8sClient, cj).CreationTimestamp.Truncate(time.Hour)
	cj.Status.LastScheduleTime = &metav1.Time{Time: hour.Add(-2 * time.Hour)}
	Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed())
	return cj, hour
}

var _ = Describe("Edits made while the controller is down", func() {
	When("a suspended CronJob the controller saw is resumed while it is down", func() {
		It("should take the resume from the API server's record: the most recent run due after it starts, none due before", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj, hour := createSuspendedHourly(ctx, "resumed", ns)

			By("observing it suspended, then stopping the controller")
			_, stop := startStoppableController(ns, hour.Add(-time.Hour))
			observedSchedule(ctx, cj, "0 * * * *", true)
			stop()

			By("resuming it while the controller is down")
			editedAt := resume(ctx, cj)
			afterEdit := editedAt.Truncate(time.Hour).Add(time.Hour)

			By("starting the controller five minutes after the first run due after the resume")
			startController(ns, afterEdit.Add(5*time.Minute))
			job := onlyJob(ctx, ns)
			Expect(job.Name).To(Equal(jobNameFor(cj, afterEdit)), "the run of %s, the first after the resume at %s",
				afterEdit.Format(time.RFC3339), editedAt.Format(time.RFC3339))
			obs := observedSchedule(ctx, cj, "0 * * * *", false)
			Expect(obs.Since.Time).To(BeTemporally("==", editedAt), "the resume took effect when it was made")
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(job.Name),
				"no run due before the resume may start")
		})
	})

	When("a CronJob is created suspended and resumed before the controller ever saw it", func() {
		It("should start no run due before the resume, and the first one after it", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj, _ := createSuspendedHourly(ctx, "never-seen", ns)
			editedAt := resume(ctx, cj)

			By("starting the controller at the time of the resume")
			clk := startController(ns, editedAt)
			obs := observedSchedule(ctx, cj, "0 * * * *", false)
			Expect(obs.Since.Time).To(BeTemporally("==", editedAt))
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(BeEmpty(),
				"the runs due while it was suspended must not start")

			By("moving the clock past the first run after the resume")
			next := editedAt.Truncate(time.Hour).Add(time.Hour)
			clk.AdvanceTo(next.Add(time.Second))
			Expect(onlyJob(ctx, ns).Name).To(Equal(jobNameFor(cj, next)))
		})
	})
})
