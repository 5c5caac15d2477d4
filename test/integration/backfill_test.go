package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/cronjob"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// Issue 25's range backfill on a real API server: a CronJobRun with spec.range runs every slot once,
// oldest first, at most spec.parallelism at a time, and keeps its progress across a change of leader.
// The CronJob is suspended, so only the backfill creates Jobs; the spec plays the Job controller.

// slotsBetween returns the */5 slots from hh:mm to hh:mm, both inclusive, on the specs' day.
func slotsBetween(from, to string) []time.Time {
	var out []time.Time
	for t := hhmm(from); !t.After(hhmm(to)); t = t.Add(5 * time.Minute) {
		out = append(out, t)
	}
	return out
}

// runOf reads the CronJobRun.
func runOf(ctx SpecContext, run *cronjobv1.CronJobRun) func(Gomega) *cronjobv1.CronJobRun {
	return func(g Gomega) *cronjobv1.CronJobRun {
		var got cronjobv1.CronJobRun
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), &got)).To(Succeed())
		return &got
	}
}

// finishRunning completes every Job of the namespace that has not finished, at done, and returns how many.
func finishRunning(ctx SpecContext, g Gomega, cj *cronjobv1.CronJob, done time.Time) int {
	n := 0
	for _, job := range listJobs(ctx, g, cj.Namespace) {
		if finishedJob(&job) {
			continue
		}
		at, err := time.Parse(time.RFC3339, job.Annotations[cronjobv1.ScheduledAtAnnotation])
		g.Expect(err).NotTo(HaveOccurred())
		b := builders.FromJob(&job).StartedAt(at).Succeeded(done)
		g.Expect(k8sClient.Status().Update(ctx, b.Obj())).To(Succeed())
		n++
	}
	return n
}

func finishedJob(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == "True" {
			return true
		}
	}
	return false
}

var _ = Describe("Range backfill", func() {
	When("the leader is lost in the middle of a range backfill", func() {
		It("should have the new leader run the rest, each slot once, oldest first, parallelism at a time", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
			cj := builders.MakeCronJob("fill", ns).Schedule("*/5 * * * *").Suspend().Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := framework.NewClock(at("12:00:00"))
			leader, follower, _ := startPair(ns, clk, newCutOff(func(cronjob.Outcome) bool { return false }))
			want := slotsBetween("10:00", "11:00") // 13 slots

			By("backfilling 10:00 to 11:00 with parallelism 3: the leader starts 10:00, 10:05 and 10:10")
			run := builders.MakeCronJobRun("fill-range", ns, "fill").Range(at("10:00:00"), at("11:00:00")).Parallelism(3).Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())
			Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(want[:3]))
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).WithTimeout(time.Second).
				Should(Equal(want[:3]), "no fourth slot while three run")

			By("losing the leader; the Jobs finish while no one leads")
			leader.Kill()
			Eventually(func(g Gomega) int { return finishRunning(ctx, g, cj, at("12:00:00")) }).Should(Equal(3))

			By("the follower takes over and runs the rest, three at a time, as the spec finishes them")
			Eventually(follower.Elected()).WithTimeout(framework.Timeout * 2).Should(BeClosed())
			Eventually(func(g Gomega) {
				finishRunning(ctx, g, cj, at("12:00:00"))
				g.Expect(runOf(ctx, run)(g).Status.Phase).To(Equal(cronjobv1.RunSucceeded))
			}).WithTimeout(framework.Timeout * 3).Should(Succeed())
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(want), "each slot once, oldest first")
			by := creators(oracle, cj)
			for _, slot := range want[:3] {
				Expect(by[slot]).To(Equal("manager-1"), "slot %s", slot.Format("15:04"))
			}
			for _, slot := range want[3:] {
				Expect(by[slot]).To(Equal("manager-2"), "slot %s", slot.Format("15:04"))
			}

			By("the run's status counting each slot once")
			got := runOf(ctx, run)(Default)
			b := got.Status.Backfill
			Expect(b).NotTo(BeNil())
			Expect([]int32{b.Total, b.Succeeded, b.Failed, b.Skipped, b.Running}).To(Equal([]int32{13, 13, 0, 0, 0}),
				"total, succeeded, failed, skipped, running; failedSlots %v", b.FailedSlots)
			Expect(b.Next).To(BeNil())
			Expect(meta.FindStatusCondition(got.Status.Conditions, cronjobv1.ConditionReady).Reason).To(Equal(cronjobv1.ReasonBackfillComplete))
		})
	})

	When("the range crosses the switch to summer time", func() {
		It("should run 02:30 Berlin once a day, the skipped 02:30 at the jump", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
			cj := builders.MakeCronJob("nightly", ns).Schedule("30 2 * * *").TimeZone("Europe/Berlin").Suspend().Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			startController(ns, time.Date(2026, time.March, 31, 12, 0, 0, 0, time.UTC))
			run := builders.MakeCronJobRun("spring", ns, "nightly").Parallelism(3).
				Range(time.Date(2026, time.March, 27, 23, 0, 0, 0, time.UTC), time.Date(2026, time.March, 30, 21, 59, 0, 0, time.UTC)).Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())
			// 02:30 CET on the 28th; 02:30 does not exist on the 29th and runs at 03:00 CEST; 02:30 CEST on the 30th.
			want := []time.Time{time.Date(2026, time.March, 28, 1, 30, 0, 0, time.UTC), time.Date(2026, time.March, 29, 1, 0, 0, 0, time.UTC),
				time.Date(2026, time.March, 30, 0, 30, 0, 0, time.UTC)}
			inUTC := func() []time.Time {
				var out []time.Time
				for _, at := range oracle.ScheduledTimes(cj.UID) {
					out = append(out, at.UTC())
				}
				return out
			}
			Eventually(inUTC).Should(Equal(want))
			Eventually(func(g Gomega) {
				finishRunning(ctx, g, cj, time.Date(2026, time.March, 31, 12, 0, 0, 0, time.UTC))
				got := runOf(ctx, run)(g)
				g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunSucceeded))
				g.Expect(got.Status.Backfill.Total).To(BeEquivalentTo(3))
			}).Should(Succeed())
			Consistently(inUTC).WithTimeout(time.Second).Should(Equal(want))
		})
	})

	When("a slot's Job exists before the backfill reaches it", func() {
		It("should skip that slot, report it, and run the others", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
			cj := builders.MakeCronJob("fill", ns).Schedule("*/5 * * * *").Suspend().LastScheduleTime(at("10:05:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			By("the Job of 10:05 exists (the schedule ran it) before the backfill of 10:00 to 10:10")
			stored := framework.GetCronJob(ctx, Default, k8sClient, cj)
			existing := builders.MakeJob(jobNameFor(cj, at("10:05:00")), ns).OwnedBy(stored).ScheduledAt(at("10:05:00")).Obj()
			Expect(k8sClient.Create(ctx, existing)).To(Succeed())
			startController(ns, at("12:00:00"))

			run := builders.MakeCronJobRun("fill-range", ns, "fill").Range(at("10:00:00"), at("10:10:00")).Parallelism(3).Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())
			Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(slotsBetween("10:00", "10:10")))
			Eventually(func(g Gomega) {
				finishRunning(ctx, g, cj, at("12:00:00"))
				b := runOf(ctx, run)(g).Status.Backfill
				g.Expect(b).NotTo(BeNil())
				g.Expect([]int32{b.Total, b.Succeeded, b.Skipped}).To(Equal([]int32{3, 2, 1}))
				g.Expect(b.SkippedSlots).To(HaveLen(1))
				g.Expect(b.SkippedSlots[0].JobName).To(Equal(existing.Name))
				g.Expect(b.SkippedSlots[0].Reason).To(Equal(cronjobv1.ReasonJobExisted))
			}).Should(Succeed())
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).WithTimeout(time.Second).
				Should(Equal(slotsBetween("10:00", "10:10")), "10:05 is not run again")
		})
	})

	When("a CronJobRun names a range with more than 1000 slots, or reaching into the future", func() {
		It("should be refused at admission with what to do instead", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("minutely", ns).Schedule("* * * * *").Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			run := builders.MakeCronJobRun("too-long", ns, "minutely").Range(at("00:00:00"), at("16:40:00")).Obj()
			err := k8sClient.Create(ctx, run)
			Expect(err).To(MatchError(ContainSubstring("holds more than 1000 scheduled times of CronJob minutely: split it into CronJobRuns of at most 1000, the first from 2026-03-01T00:00:00Z to 2026-03-01T16:39:00Z")))
			future := builders.MakeCronJobRun("future", ns, "minutely").Range(at("00:00:00"), time.Now().Add(time.Hour).Truncate(time.Second)).Obj()
			Expect(k8sClient.Create(ctx, future)).To(MatchError(ContainSubstring("spec.range.to: Invalid value")))
			both := builders.MakeCronJobRun("both", ns, "minutely").Range(at("00:00:00"), at("01:00:00")).ScheduledTime(at("00:00:00")).Obj()
			Expect(k8sClient.Create(ctx, both)).To(MatchError(ContainSubstring("spec.scheduledTime and spec.range are exclusive")))
		})
	})
})
