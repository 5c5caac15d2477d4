package integration

import (
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cronjob-operator/cronjob-operator/controllers/cronjob"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The specs of this file hand the lead over in the middle of the features that take several reconciles
// to finish, a catch-up (missedRunPolicy All) and the draining of a queue (Enqueue), and check with a Job
// oracle that every run starts once, in order, whichever manager starts it.

// cutOff is the OnReconcile function of a leader that is cut off from the API server (Disconnect) right
// after the first reconcile whose outcome matches, once armed: the leader then neither creates anything
// more nor renews its Lease, as if its node had vanished, and a follower takes over once the Lease
// expires. It is armed once its manager is set.
type cutOff struct {
	manager atomic.Pointer[framework.Manager]
	fired   atomic.Bool
	match   func(cronjob.Outcome) bool
	done    chan struct{}
}

func newCutOff(match func(cronjob.Outcome) bool) *cutOff {
	return &cutOff{match: match, done: make(chan struct{})}
}

func (c *cutOff) record(_ types.NamespacedName, out cronjob.Outcome) {
	m := c.manager.Load()
	if m == nil || !c.match(out) || c.fired.Swap(true) {
		return
	}
	m.Disconnect()
	close(c.done)
}

// startPair starts a leader (manager-1, whose reconciles cut reports to) and a follower (manager-2), each
// on a Share of clk, competing for a short Lease, and arms cut. leaderClock is the leader's Share, whose
// AdvanceTo waits for the leader's wakeups.
func startPair(ns string, clk *framework.Clock, cut *cutOff) (leader, follower *framework.Manager, leaderClock *framework.Clock) {
	GinkgoHelper()
	le := framework.ShortLeases(ns, "cronjob-operator")
	leaderClock = clk.Share()
	leader = fwk.StartManager(framework.ManagerOptions{
		Name: "manager-1", Namespace: ns, Clock: leaderClock, LeaderElection: le, OnReconcile: cut.record,
	})
	DeferCleanup(leader.Stop)
	Eventually(leader.Elected()).Should(BeClosed(), "the first manager should lead")
	follower = fwk.StartManager(framework.ManagerOptions{Name: "manager-2", Namespace: ns, Clock: clk.Share(), LeaderElection: le})
	DeferCleanup(follower.Stop)
	cut.manager.Store(leader)
	return leader, follower, leaderClock
}

var _ = Describe("Leader changes in the middle of the features", func() {
	When("the leader is cut off after the first Job of a catch-up", func() {
		It("should have the new leader start the rest, each missed run once, oldest first, never beyond the cap", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
			// By 10:31 six runs are missed (10:05 to 10:30); with a cap of 4, 10:15 to 10:30 start.
			cj := builders.MakeCronJob("catch-up", ns).Schedule("*/5 * * * *").CatchUp(4).LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := framework.NewClock(at("10:04:00"))
			cut := newCutOff(func(out cronjob.Outcome) bool { return out.Run == cronjob.RunCreated })
			leader, follower, leaderClock := startPair(ns, clk, cut)

			By("coming back at 10:31: the leader starts 10:15, the oldest within the cap, and is cut off")
			leaderClock.AdvanceTo(at("10:31:00"))
			Eventually(cut.done).Should(BeClosed())
			Expect(oracle.ScheduledTimes(cj.UID)).To(Equal([]time.Time{at("10:15:00")}))
			leader.Kill()

			By("the follower takes over once the Lease expires and starts 10:20, 10:25 and 10:30")
			Eventually(follower.Elected()).WithTimeout(framework.Timeout * 2).Should(BeClosed())
			want := []time.Time{at("10:15:00"), at("10:20:00"), at("10:25:00"), at("10:30:00")}
			Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(want))
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(want),
				"no run starts twice, and 10:05 and 10:10, beyond the cap, never start")
			Expect(creators(oracle, cj)).To(Equal(map[time.Time]string{
				at("10:15:00"): "manager-1", at("10:20:00"): "manager-2", at("10:25:00"): "manager-2", at("10:30:00"): "manager-2",
			}))
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(at("10:30:00"))))
				g.Expect(status.Active).To(HaveLen(4))
			}).Should(Succeed())
		})
	})

	When("the leader is cut off right after it started a queued run (Enqueue)", func() {
		It("should have the new leader serve the rest of the queue, each run once, oldest first", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
			cj := builders.MakeCronJob("drain", ns).Schedule("*/5 * * * *").Enqueue().LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := framework.NewClock(at("10:04:00"))
			cut := newCutOff(func(out cronjob.Outcome) bool { return !out.Dequeued.IsZero() })
			leader, follower, leaderClock := startPair(ns, clk, cut)

			By("starting 10:05 and queueing 10:10 and 10:15 while its Job runs")
			for _, tick := range []string{"10:05", "10:10", "10:15"} {
				leaderClock.AdvanceTo(hhmm(tick).Add(time.Second))
				Eventually(func(g Gomega) []time.Time {
					st := framework.GetCronJob(ctx, g, k8sClient, cj).Status
					return append(queuedTimes(st), st.LastScheduleTime.UTC())
				}).Should(ContainElement(hhmm(tick)))
			}
			Expect(queuedTimes(framework.GetCronJob(ctx, Default, k8sClient, cj).Status)).To(Equal([]time.Time{at("10:10:00"), at("10:15:00")}))

			By("finishing the 10:05 Job: the leader starts the queued 10:10 run and is cut off")
			clk.SetTime(at("10:16:00"))
			finishJob(ctx, cj, at("10:05:00"), at("10:16:00"))
			Eventually(cut.done).Should(BeClosed())
			leader.Kill()
			Expect(oracle.ScheduledTimes(cj.UID)).To(Equal([]time.Time{at("10:05:00"), at("10:10:00")}))

			By("the follower takes over, and starts 10:15 when the 10:10 Job finishes")
			Eventually(follower.Elected()).WithTimeout(framework.Timeout * 2).Should(BeClosed())
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).WithTimeout(2*time.Second).
				Should(Equal([]time.Time{at("10:05:00"), at("10:10:00")}), "10:15 waits for the 10:10 Job")
			clk.SetTime(at("10:17:00"))
			finishJob(ctx, cj, at("10:10:00"), at("10:17:00"))
			want := []time.Time{at("10:05:00"), at("10:10:00"), at("10:15:00")}
			Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(want))
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(want), "no run starts twice")
			Expect(creators(oracle, cj)).To(Equal(map[time.Time]string{
				at("10:05:00"): "manager-1", at("10:10:00"): "manager-1", at("10:15:00"): "manager-2",
			}))
			Eventually(func(g Gomega) {
				st := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(st.Queued).To(BeEmpty())
				g.Expect(st.LastScheduleTime).To(BeComparableTo(metaTime(at("10:15:00"))))
			}).Should(Succeed())
		})
	})
})
