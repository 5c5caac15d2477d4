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

// The soak repeats the leader election failure spec at volume (make soak, test/soak/README.md): the
// leader is killed $SOAK_ENVTEST_KILLS times (default 50), by turns gracefully (Manager.Stop, which
// releases the Lease) and hard (Manager.Kill, which leaves it held), with a run coming due at every kill.
// It writes its figures to $SOAK_RESULTS_DIR/envtest.{json,md} (default bin/soak).
var _ = Describe("Soak", Label("soak"), func() {
	var (
		ns     string
		cj     *cronjobv1.CronJob
		oracle *framework.JobOracle
		start  = at("10:00:00")
	)
	BeforeEach(func(ctx SpecContext) {
		ns = newNamespace(ctx)
		oracle = framework.StartSpecJobOracle(ctx, cfg, ns)
		cj = builders.MakeCronJob("soak", ns).Schedule("* * * * *").LastScheduleTime(start).Obj()
		Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
	})
	minute := func(i int) time.Time { return start.Add(time.Duration(i) * time.Minute) }
	runsUpTo := func(n int) []time.Time { return minutesAfter(start, n) }

	// leadsRun moves the clock to the run-th minute and checks that the leader, and only it, starts that
	// run, records it in status and asks to be woken for the next one.
	leadsRun := func(ctx SpecContext, leader, follower candidate, run int) {
		GinkgoHelper()
		leader.clock.AdvanceTo(minute(run).Add(time.Second))
		Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(runsUpTo(run)))
		Expect(creators(oracle, cj)).To(HaveKeyWithValue(minute(run), leader.Name()), "only the leader may create")
		Expect(follower.clock.Wakeups()).To(BeEmpty(), "the follower's controller must not run")
		Eventually(func(g Gomega) *metav1.Time {
			return framework.GetCronJob(ctx, g, k8sClient, cj).Status.LastScheduleTime
		}).
			Should(BeComparableTo(metaTime(minute(run))))
		Eventually(func() bool { return leader.clock.WakeupBy(minute(run + 1).Add(time.Second)) }).Should(BeTrue(),
			"the leader should requeue itself for the next minute before it is killed")
	}
	// takesOver waits for the follower to lead after the leader was killed at killed, and checks that it
	// starts the run-th minute, due since the kill, once. It returns the takeover's times.
	takesOver := func(ctx SpecContext, le *framework.LeaderElection, follower candidate, run int, killed time.Time) framework.SoakKill {
		GinkgoHelper()
		Eventually(follower.Elected()).WithTimeout(le.LeaseDuration + framework.Timeout).Should(BeClosed())
		Eventually(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(runsUpTo(run)),
			"the successor should start the run due at the kill, once")
		Expect(creators(oracle, cj)).To(HaveKeyWithValue(minute(run), follower.Name()))
		lease := getLease(ctx, le)
		Expect(ptr.Deref(lease.Spec.HolderIdentity, "")).To(Equal(follower.Name()))
		Expect(lease.Spec.AcquireTime).NotTo(BeNil())
		return framework.SoakKill{Successor: follower.Name(), Takeover: lease.Spec.AcquireTime.Sub(killed),
			FirstRun: firstSeen(oracle, cj, minute(run)).Sub(killed)}
	}

	When("the leader is killed again and again, by turns releasing its Lease and dying with it held", func() {
		It("should start exactly one Job for every scheduled minute, the one due at each kill by the successor", func(ctx SpecContext) {
			kills, err := framework.EnvCount("SOAK_ENVTEST_KILLS", 50)
			Expect(err).NotTo(HaveOccurred())
			le := framework.ShortLeases(ns, "cronjob-operator")
			pool := &candidates{ns: ns, le: le, clock: framework.NewClock(start.Add(30 * time.Second))}
			result := &framework.SoakResult{Layer: "envtest", Started: time.Now(), Definitions: map[string]string{
				"kill": "graceful: Manager.Stop, the Lease released (ReleaseOnCancel); hard: Manager.Kill, " +
					"connections cut first, the Lease held until it expires",
				"takeover": "from the kill being issued (before Stop/Kill) to the acquireTime the successor " +
					"wrote in the Lease (real clock; ShortLeases: lease 2 s, renew 1.5 s, retry 0.2 s)",
				"first run": "from the kill being issued to the JobOracle seeing the Job the successor " +
					"started for the minute the fake clock was moved to right after the kill",
			}}
			run := 0
			DeferCleanup(func() {
				result.Finished = time.Now()
				result.Runs = framework.CountRuns(oracle.ScheduledTimes(cj.UID), runsUpTo(run))
				result.Passed = !CurrentSpecReport().Failed()
				Expect(result.Write("")).To(Succeed())
				AddReportEntry("soak summary", result.Markdown())
			})

			leader := pool.start()
			Eventually(leader.Elected()).Should(BeClosed(), "the only manager should lead")
			follower := pool.start()
			for k := 1; k <= kills; k++ {
				kind := framework.GracefulKill
				if k%2 == 0 {
					kind = framework.HardKill
				}
				By(fmt.Sprintf("kill %d/%d (%s): %s leads the run of %s", k, kills, kind, leader.Name(), minute(run+1).Format("15:04")))
				run++
				leadsRun(ctx, leader, follower, run)

				killed := time.Now()
				if kind == framework.HardKill {
					leader.Kill()
				} else {
					leader.Stop()
					Expect(leaseHolder(ctx, Default, le)).To(BeElementOf("", follower.Name()),
						"a stopped leader must have released its Lease")
				}
				run++
				pool.clock.SetTime(minute(run).Add(time.Second))
				kill := takesOver(ctx, le, follower, run, killed)
				kill.Kind, kill.Victim = kind, leader.Name()
				result.Kills = append(result.Kills, kill)
				if kind == framework.HardKill {
					Expect(kill.Takeover).To(BeNumerically(">=", le.LeaseDuration/2),
						"the successor must wait for a Lease that was not released to expire")
				}
				leader, follower = follower, pool.start()
			}

			By(fmt.Sprintf("%s leads the last run", leader.Name()))
			run++
			leadsRun(ctx, leader, follower, run)
			Consistently(func() []time.Time { return oracle.ScheduledTimes(cj.UID) }).Should(Equal(runsUpTo(run)),
				"no run may start twice")
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(minute(run))))
				g.Expect(status.Active).To(HaveLen(run), "every Job still runs: status.active must list them all")
			}).Should(Succeed())
		})
	})
})

// getLease reads the Lease of le from the API server.
func getLease(ctx SpecContext, le *framework.LeaderElection) *coordinationv1.Lease {
	GinkgoHelper()
	var lease coordinationv1.Lease
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: le.Namespace, Name: le.ID}, &lease)).To(Succeed())
	return &lease
}

// firstSeen returns when the oracle first saw a Job of the CronJob for the run scheduled at t.
func firstSeen(oracle *framework.JobOracle, cj *cronjobv1.CronJob, t time.Time) time.Time {
	GinkgoHelper()
	for _, j := range oracle.JobsOf(cj.UID) {
		if j.ScheduledAt.Equal(t) {
			return j.Seen
		}
	}
	Fail(fmt.Sprintf("the oracle saw no Job for %s", t))
	return time.Time{}
}
