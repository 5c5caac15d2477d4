//go:build lifecycle

package lifecycle

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/cluster"
)

// results returns the Job name and result of each entry of status.recentRuns, newest first, as "job=Result".
func results(s cronjobv1.CronJobStatus) []string {
	out := []string{}
	for _, r := range s.RecentRuns {
		out = append(out, r.JobName+"="+string(r.Result))
	}
	return out
}

// Run timeouts (issue 24) with real Jobs: the controller deletes the Job at its deadline on ours' clock, the
// garbage collector takes its Pods, and the concurrency policy sees the run gone in the same reconcile.
var _ = Describe("Run timeouts on Jobs that run", func() {
	It("ends a run past runTimeoutSeconds, its Pod goes, and Forbid starts the held run", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("stuck", ns).Forbid().BackoffLimit(0).PodAnnotation(cluster.RunForAnnotation, "1h").Obj()
		cj.Spec.RunTimeoutSeconds = ptr.To[int64](90)
		clk, oracle := start(ctx, cj)

		By("starting the run of 10:01, whose Pod runs for an hour")
		due(clk, 1)
		first := jobName(cj, slot(1))
		Eventually(podPhases(ctx, ns, first)).Should(Equal([]corev1.PodPhase{corev1.PodRunning}))

		By("holding the run of 10:02 while it runs (Forbid)")
		due(clk, 2)
		Consistently(runs(oracle, cj)).WithTimeout(2 * time.Second).Should(Equal([]time.Time{slot(1)}))

		By("moving ours' clock a second before the deadline (10:02:31): nothing ends")
		clk.SetTime(slot(1).Add(time.Second + 89*time.Second))
		Consistently(jobNames(ctx, ns)).WithTimeout(2 * time.Second).Should(ConsistOf(first))

		By("moving it past the deadline, once ours asked to be woken then: the Job is deleted, its Pod goes, and the held run of 10:02 starts")
		clk.AdvanceTo(slot(1).Add(time.Second + 91*time.Second))
		second := jobName(cj, slot(2))
		Eventually(jobNames(ctx, ns)).Should(ConsistOf(second))
		Eventually(podPhases(ctx, ns, first)).Should(BeEmpty(), "the timed-out Job's Pod is deleted with it")
		Eventually(func(g Gomega) {
			s := status(ctx, cj)(g)
			g.Expect(activeNames(s)).To(ConsistOf(second))
			g.Expect(results(s)).To(Equal([]string{second + "=Running", first + "=TimedOut"}))
			g.Expect(s.RecentRuns[1].Reason).To(Equal(cronjobv1.ReasonRunTimedOut))
			g.Expect(s.FailedRuns).To(BeEquivalentTo(1))
			g.Expect(s.ConsecutiveFailures).To(BeEquivalentTo(1))
			g.Expect(s.LastFailureTime).NotTo(BeNil())
		}).Should(Succeed())
		Expect(runs(oracle, cj)()).To(Equal([]time.Time{slot(1), slot(2)}))
	})

	It("ends a run whose Pod cannot be scheduled past startTimeoutSeconds", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("unschedulable", ns).BackoffLimit(0).Obj()
		cj.Spec.StartTimeoutSeconds = ptr.To[int64](30)
		cj.Spec.JobTemplate.Spec.Template.Spec.NodeSelector = map[string]string{"cronjob-operator.dev/no-such-node": "true"}
		clk, oracle := start(ctx, cj)

		By("starting the run of 10:01, whose Pod stays Pending")
		due(clk, 1)
		first := jobName(cj, slot(1))
		Eventually(podPhases(ctx, ns, first)).Should(Equal([]corev1.PodPhase{corev1.PodPending}))

		By("moving ours' clock to its start timeout: the Job and its Pod go, recorded NeverStarted")
		clk.AdvanceTo(slot(1).Add(time.Second + 31*time.Second))
		Eventually(jobNames(ctx, ns)).Should(BeEmpty())
		Eventually(podPhases(ctx, ns, first)).Should(BeEmpty())
		Eventually(func(g Gomega) {
			s := status(ctx, cj)(g)
			g.Expect(s.Active).To(BeEmpty())
			g.Expect(results(s)).To(Equal([]string{first + "=NeverStarted"}))
			g.Expect(s.RecentRuns[0].Reason).To(Equal(cronjobv1.ReasonRunNeverStarted))
			g.Expect(s.FailedRuns).To(BeEquivalentTo(1))
		}).Should(Succeed())
		Expect(runs(oracle, cj)()).To(Equal([]time.Time{slot(1)}))
	})
})
