//go:build e2e

package e2e

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// Runs that cannot hang (issue 24) on a real cluster: the controller's own clock is the wall clock here.
var _ = Describe("Run timeouts", Label("features"), func() {
	It("should end a run past runTimeoutSeconds under Forbid, its Pods go, and the next run starts", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		cj := minutely("stuck", ns, 10*time.Minute, 0).Forbid().Obj()
		cj.Spec.RunTimeoutSeconds = ptr.To[int64](40)
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		By("waiting for the first run's Pod to run")
		var first string
		var firstUID types.UID
		Eventually(func(g Gomega) {
			jobs := jobsOf(ctx, g, cj)
			g.Expect(jobs).To(HaveLen(1))
			first, firstUID = jobs[0].Name, jobs[0].UID
			pods := podsOf(ctx, g, ns, jobs[0].UID)
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].Status.Phase).To(Equal(corev1.PodRunning))
		}).WithTimeout(runWait).WithPolling(podPolling).Should(Succeed())

		By("seeing it ended 40 s after its start, recorded TimedOut, and a later run started")
		Eventually(func(g Gomega) {
			s := framework.GetCronJob(ctx, g, k8sClient, cj).Status
			var ended *cronjobv1.RunRecord
			for i := range s.RecentRuns {
				if s.RecentRuns[i].JobName == first {
					ended = &s.RecentRuns[i]
				}
			}
			g.Expect(ended).NotTo(BeNil(), "the first run is in status.recentRuns")
			g.Expect(ended.Result).To(Equal(cronjobv1.RunResultTimedOut))
			g.Expect(ended.Reason).To(Equal(cronjobv1.ReasonRunTimedOut))
			g.Expect(ended.EndTime).NotTo(BeNil())
			g.Expect(ended.EndTime.Sub(ended.StartTime.Time)).To(BeNumerically("~", 40*time.Second, 5*time.Second))
			g.Expect(s.FailedRuns).To(BeNumerically(">=", 1))
			for _, j := range jobsOf(ctx, g, cj) {
				g.Expect(j.Name).NotTo(Equal(first), "the timed-out Job is deleted")
			}
		}).WithTimeout(runWait).Should(Succeed())
		Eventually(func(g Gomega) { g.Expect(jobsOf(ctx, g, cj)).To(HaveLen(1)) }).WithTimeout(runWait).Should(Succeed())
		Eventually(func(g Gomega) []corev1.Pod { return podsOf(ctx, g, ns, firstUID) }).WithTimeout(settleWait).Should(BeEmpty(), "the timed-out Job's Pod goes with it")

		seen := map[int64]int{}
		for _, at := range oracle.ScheduledTimes(cj.UID) {
			seen[at.Unix()]++
		}
		for at, n := range seen {
			Expect(n).To(Equal(1), "the run of %s started once", time.Unix(at, 0).UTC())
		}
	})
})
