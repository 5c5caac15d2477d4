package integration

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// candidates starts managers that compete for one Lease and act on one time line: each gets a Share of
// one fake clock, so a spec waits for the wakeup of the manager that leads.
type candidates struct {
	ns    string
	le    *framework.LeaderElection
	clock *framework.Clock
	n     int
}

// candidate is a running manager and its Share of the clock.
type candidate struct {
	*framework.Manager
	clock *framework.Clock
}

// start starts the next manager, named manager-1, manager-2, ...; it is stopped when the spec ends.
func (c *candidates) start() candidate {
	c.n++
	clk := c.clock.Share()
	m := fwk.StartManager(framework.ManagerOptions{
		Name: fmt.Sprintf("manager-%d", c.n), Namespace: c.ns, Clock: clk, LeaderElection: c.le,
	})
	DeferCleanup(m.Stop)
	return candidate{Manager: m, clock: clk}
}

// leaseHolder reads the holder of the Lease from the API server.
func leaseHolder(ctx SpecContext, g Gomega, le *framework.LeaderElection) string {
	var lease coordinationv1.Lease
	g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: le.Namespace, Name: le.ID}, &lease)).To(Succeed())
	return ptr.Deref(lease.Spec.HolderIdentity, "")
}

// creators returns the field manager that created each Job of the CronJob the oracle saw, by scheduled
// time.
func creators(oracle *framework.JobOracle, cj *cronjobv1.CronJob) map[time.Time]string {
	by := map[time.Time]string{}
	for _, j := range oracle.JobsOf(cj.UID) {
		by[j.ScheduledAt] = j.Creator
	}
	return by
}

// minutesAfter returns the n minutes after start: the scheduled times of runs 1 to n of a minutely
// CronJob last scheduled at start.
func minutesAfter(start time.Time, n int) []time.Time {
	var want []time.Time
	for i := 1; i <= n; i++ {
		want = append(want, start.Add(time.Duration(i)*time.Minute))
	}
	return want
}

var _ = Describe("Leader election", func() {
	// Two managers with leader election run side by side, as two replicas of the operator do. Leader
	// election runs on the real clock; scheduling runs on the spec's fake clock. A JobOracle, watching
	// Jobs on its own, records every Job ever created and which manager created it.
	var (
		ns     string
		cj     *cronjobv1.CronJob
		oracle *framework.JobOracle
		start  = at("10:00:00")
	)
	BeforeEach(func(ctx SpecContext) {
		ns = newNamespace(ctx)
		oracle = framework.StartSpecJobOracle(ctx, cfg, ns)
		cj = builders.MakeCronJob("heartbeat", ns).Schedule("* * * * *").LastScheduleTime(start).Obj()
		Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
	})

	// minute returns the scheduled time of the i-th run after start.
	minute := func(i int) time.Time { return start.Add(time.Duration(i) * time.Minute) }
	runsUpTo := func(n int) []time.Time { return minutesAfter(start, n) }

	When("the leader is stopped many times, mostly releasing its Lease, sometimes dying without a word", func() {
		It("should have only the leader create Jobs, and exactly one Job for every scheduled minute", func(ctx SpecContext) {
			const handovers = 8
			hard := map[int]bool{3: true, 6: true} // handovers in which the leader does not release the Lease
			le := framework.ShortLeases(ns, "cronjob-operator")
			pool := &candidates{ns: ns, le: le, clock: framework.NewClock(start.Add(30 * time.Second))}

			leader := pool.start()
			Eventually(leader.Elected()).Should(BeClosed(), "the only manager should lead")
			follower := pool.start()
			Consistently(follower.Elected()).ShouldNot(BeClosed(), "a second manager must not lead while the first renews")

			run := 0
			for h := 1; h <= handovers; h++ {
				By(fmt.Sprintf("handover %d: %s leads the run of %s", h, leader.Name(), minute(run+1).Format("15:04")))
				run++
				leader.clock.AdvanceTo(minute(run).Add(time.Second))
				Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(runsUpTo(run)))
				Expect(creators(oracle, cj)).To(HaveKeyWithValue(minute(run), leader.Name()), "only the leader may create")
				Expect(follower.clock.Wakeups()).To(BeEmpty(), "the follower's controller must not run")
				Eventually(func(g Gomega) *metav1.Time {
					return framework.GetCronJob(ctx, g, k8sClient, cj).Status.LastScheduleTime
				}).
					Should(BeComparableTo(metaTime(minute(run))))
				Eventually(func() bool { return leader.clock.WakeupBy(minute(run + 1).Add(time.Second)) }).Should(BeTrue(),
					"the leader should requeue itself for the next minute before it is stopped")

				if hard[h] {
					By(fmt.Sprintf("killing %s, which cannot release the Lease; the run of %s comes due with no leader",
						leader.Name(), minute(run+1).Format("15:04")))
					leader.Kill()
					stopped := time.Now()
					run++
					pool.clock.SetTime(minute(run).Add(time.Second))
					Consistently(follower.Elected()).WithTimeout(le.LeaseDuration/2).ShouldNot(BeClosed(),
						"the follower must wait for the Lease to expire")
					Eventually(follower.Elected()).WithTimeout(le.LeaseDuration + framework.Timeout).Should(BeClosed())
					AddReportEntry(fmt.Sprintf("takeover %d (Lease not released)", h), time.Since(stopped).Round(time.Millisecond))

					By(fmt.Sprintf("%s takes over and starts the missed run of %s once", follower.Name(), minute(run).Format("15:04")))
					Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(runsUpTo(run)))
					Expect(creators(oracle, cj)).To(HaveKeyWithValue(minute(run), follower.Name()))
				} else {
					By(fmt.Sprintf("stopping %s, which releases the Lease", leader.Name()))
					leader.Stop()
					stopped := time.Now()
					Eventually(follower.Elected()).Should(BeClosed(), "the follower should take a released Lease at once")
					AddReportEntry(fmt.Sprintf("takeover %d (Lease released)", h), time.Since(stopped).Round(time.Millisecond))
				}
				Eventually(func(g Gomega) string { return leaseHolder(ctx, g, le) }).Should(Equal(follower.Name()))
				leader, follower = follower, pool.start()
			}

			By(fmt.Sprintf("%s leads the last run", leader.Name()))
			run++
			leader.clock.AdvanceTo(minute(run).Add(time.Second))
			Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(runsUpTo(run)))
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(runsUpTo(run)),
				"no run may start twice")
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(minute(run))))
				g.Expect(status.Active).To(HaveLen(run), "every Job still runs: status.active must list them all")
			}).Should(Succeed())
		})
	})

	When("the leader dies without releasing a Lease of the default duration", func() {
		It("should let the follower take over once the Lease expires, and start the run missed meanwhile", func(ctx SpecContext) {
			// The default 15 s lease, 10 s renew deadline and 2 s retry period; the Lease is released on a
			// graceful stop, as main.go does.
			le := &framework.LeaderElection{Namespace: ns, ID: "cronjob-operator", ReleaseOnCancel: true}
			pool := &candidates{ns: ns, le: le, clock: framework.NewClock(start.Add(30 * time.Second))}
			leader := pool.start()
			Eventually(leader.Elected()).Should(BeClosed())
			follower := pool.start()

			leader.clock.AdvanceTo(minute(1).Add(time.Second))
			Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(runsUpTo(1)))
			Eventually(func() bool { return leader.clock.WakeupBy(minute(2).Add(time.Second)) }).Should(BeTrue())

			By("killing the leader, which cannot release the Lease, and letting the next run come due")
			leader.Kill()
			stopped := time.Now()
			pool.clock.SetTime(minute(2).Add(time.Second))
			Consistently(follower.Elected()).WithTimeout(10*time.Second).ShouldNot(BeClosed(),
				"the follower must wait for the Lease to expire")
			Eventually(follower.Elected()).WithTimeout(15*time.Second + framework.Timeout).Should(BeClosed())
			AddReportEntry("takeover with the default Lease (not released)", time.Since(stopped).Round(time.Millisecond))

			Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(runsUpTo(2)))
			Expect(creators(oracle, cj)).To(Equal(map[time.Time]string{minute(1): leader.Name(), minute(2): follower.Name()}))
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(runsUpTo(2)))
			Eventually(func(g Gomega) *metav1.Time {
				return framework.GetCronJob(ctx, g, k8sClient, cj).Status.LastScheduleTime
			}).
				Should(BeComparableTo(metaTime(minute(2))))
		})
	})
})
