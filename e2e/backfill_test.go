//go:build e2e

package e2e

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// backfillWait bounds a range backfill of nine 15-second Jobs, three at a time, with a manager restart in
// the middle: three rounds of a Pod's start and 15 s, and the new manager's start.
const backfillWait = 4 * time.Minute

var _ = Describe("Range backfill", Label("chaos"), func() {
	It("should run each slot of the range once, three at a time, across a manager kill", Serial, func(ctx SpecContext) {
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		// Suspended: only the backfill creates Jobs. Each Job runs 15 s, so the kill lands while Jobs run;
		// the history keeps all nine, whose start and completion times show how many ran at once.
		cj := minutely("fill", ns, 15*time.Second, 0).Suspend().HistoryLimits(10, 10).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		to := time.Now().Truncate(time.Minute).Add(-time.Minute)
		from := to.Add(-8 * time.Minute) // nine minutes, both ends included

		By("backfilling the last nine minutes with kubectl cjo backfill --parallelism 3")
		out, err := kubectlCJO(ctx, "-n", ns, "backfill", cj.Name, "--from", from.Format(time.RFC3339), "--to", to.Format(time.RFC3339), "--parallelism", "3")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring(" created (9 slots from "))
		run := &cronjobv1.CronJobRun{}
		run.Namespace, run.Name = ns, runNameIn(out)
		Eventually(func() int { return len(oracle.JobsOf(cj.UID)) }).WithTimeout(runWait).Should(BeNumerically(">=", 3))

		By("killing the manager while the first three run")
		Expect(killManagerPods(ctx)).To(BeNumerically(">", 0))
		waitForManager(ctx)

		By("waiting for the run to succeed, then checking each minute ran once")
		Eventually(func(g Gomega) cronjobv1.CronJobRunPhase {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			return run.Status.Phase
		}).WithTimeout(backfillWait).WithPolling(2 * time.Second).Should(Equal(cronjobv1.RunSucceeded))
		checkRuns(Default, oracle, cj, from.Add(-time.Minute), to)
		Expect(oracle.JobsOf(cj.UID)).To(HaveLen(9))
		b := run.Status.Backfill
		Expect([]int32{b.Total, b.Succeeded, b.Failed, b.Skipped, b.Running}).To(Equal([]int32{9, 9, 0, 0, 0}),
			"total, succeeded, failed, skipped, running; failed slots %v", b.FailedSlots)
		Expect(meta.FindStatusCondition(run.Status.Conditions, cronjobv1.ConditionReady).Reason).To(Equal(cronjobv1.ReasonBackfillComplete))

		By("checking that no more than three Jobs of the backfill ever ran at once")
		jobs := jobsOf(ctx, Default, cj)
		Expect(jobs).To(HaveLen(9))
		most := 0
		for _, j := range jobs {
			Expect(j.Status.StartTime).NotTo(BeNil(), "Job %s", j.Name)
			running := 0 // the Jobs running when j started
			for _, k := range jobs {
				if !k.Status.StartTime.After(j.Status.StartTime.Time) && k.Status.CompletionTime.After(j.Status.StartTime.Time) {
					running++
				}
			}
			most = max(most, running)
		}
		Expect(most).To(BeNumerically("<=", 3))
	})
})
