//go:build e2e

package e2e

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/faults"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The specs of this file run the features batch/v1 does not have on a real cluster: the Enqueue policy
// with Jobs that really run and finish, and a catch-up of missed runs across a manager crash.
var _ = Describe("Runs on the team's terms", Label("features"), func() {
	It("should start queued runs one after the other as the real Jobs finish, each minute once (Enqueue)", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		// Each Job runs 75 s, longer than the minute between runs: every run after the first waits in the queue.
		cj := minutely("queue", ns, 75*time.Second, 0).Enqueue().Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		By("waiting for three runs, the second and third started from the queue")
		var jobs []batchv1.Job
		Eventually(func(g Gomega) {
			g.Expect(oracle.JobsOf(cj.UID)).To(HaveLen(3))
			jobs = jobsOf(ctx, g, cj)
			g.Expect(jobs).To(HaveLen(3))
			for _, j := range jobs[:2] {
				g.Expect(j.Status.CompletionTime).NotTo(BeNil(), "Job %s has not completed", j.Name)
			}
		}).WithTimeout(5 * time.Minute).WithPolling(5 * time.Second).Should(Succeed())

		By("checking that no Job started before the one before it had completed")
		byScheduled := map[string]batchv1.Job{}
		for _, j := range jobs {
			byScheduled[j.Annotations[cronjobv1.ScheduledAtAnnotation]] = j
		}
		times := oracle.ScheduledTimes(cj.UID)
		Expect(times).To(HaveLen(3))
		for i := 1; i < len(times); i++ {
			Expect(times[i].Sub(times[i-1])).To(Equal(time.Minute), "consecutive minutes, oldest first: %v", times)
			prev := byScheduled[times[i-1].Format(time.RFC3339)]
			cur := byScheduled[times[i].Format(time.RFC3339)]
			Expect(prev.Status.CompletionTime).NotTo(BeNil())
			Expect(cur.CreationTimestamp.Time).To(BeTemporally(">=", prev.Status.CompletionTime.Time),
				"Job %s was created before %s completed", cur.Name, prev.Name)
		}
		checkStatusMatchesJobs(ctx, cj)
	})

	It("should start each missed run once, oldest first, when the manager crashes in the middle of a catch-up", Serial, func(ctx SpecContext) {
		By("arming the manager to exit right after its next Job create, before it writes status")
		setManagerEnv(ctx, faults.Env, faults.AfterJobCreate)
		DeferCleanup(setManagerEnv, faults.Env, "")
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		cj := minutely("catch-up", ns, 0, 0).Schedule("0 * * * *").CatchUp(3).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		Eventually(func(g Gomega) *cronjobv1.ObservedSchedule {
			return framework.GetCronJob(ctx, g, k8sClient, cj).Status.ObservedSchedule
		}).WithTimeout(runWait).ShouldNot(BeNil(), "the controller has seen the CronJob")

		By("recording that the last run was five hours ago, as after a downtime, and waking the controller")
		hour := time.Now().UTC().Truncate(time.Hour)
		fiveHoursAgo := metav1.NewTime(hour.Add(-5 * time.Hour))
		Eventually(func(g Gomega) {
			live := framework.GetCronJob(ctx, g, k8sClient, cj)
			live.Status.LastScheduleTime = &fiveHoursAgo
			live.Status.ObservedSchedule = &cronjobv1.ObservedSchedule{Schedule: live.Spec.Schedule, Since: fiveHoursAgo}
			g.Expect(k8sClient.Status().Update(ctx, live)).To(Succeed())
		}).Should(Succeed())
		// A spec edit that changes no scheduling field: status writes do not trigger reconciles.
		Eventually(func(g Gomega) {
			live := framework.GetCronJob(ctx, g, k8sClient, cj)
			live.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](5)
			g.Expect(k8sClient.Update(ctx, live)).To(Succeed())
		}).Should(Succeed())

		By("checking that the last three hours ran once each, through the crash, and the two before never")
		want := []time.Time{hour.Add(-2 * time.Hour), hour.Add(-time.Hour), hour}
		Eventually(func(g Gomega) {
			times := oracle.ScheduledTimes(cj.UID)
			if len(times) == len(want)+1 { // the spec crossed the top of the hour: that run is scheduled
				g.Expect(times[len(want)]).To(BeTemporally("==", hour.Add(time.Hour)))
				times = times[:len(want)]
			}
			g.Expect(times).To(HaveLen(len(want)), "the oracle saw %v", times)
			for i := range want {
				g.Expect(times[i]).To(BeTemporally("==", want[i]), "the oracle saw %v", times)
			}
			status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
			g.Expect(status.LastScheduleTime).NotTo(BeNil())
			g.Expect(status.LastScheduleTime.Time).To(BeTemporally(">=", hour))
		}).WithTimeout(3 * time.Minute).Should(Succeed())
		Expect(managerRestarts(ctx)).To(BeNumerically(">=", 1), "the manager exited at the fault point")
		Consistently(func() int { return len(oracle.ScheduledTimes(cj.UID)) }).WithTimeout(20*time.Second).
			Should(BeNumerically("<=", len(want)+1), "no catch-up run starts twice")
		checkStatusMatchesJobs(ctx, cj)
	})
})

// managerRestarts is the sum of the restart counts of the manager containers.
func managerRestarts(ctx SpecContext) int32 {
	GinkgoHelper()
	var n int32
	for _, p := range managerPods(ctx, Default) {
		for _, st := range p.Status.ContainerStatuses {
			n += st.RestartCount
		}
	}
	return n
}

var _ = Describe("Jobs first", Label("features"), func() {
	It("should start the runs of many CronJobs due on the same minute once each, and record every run and its Event", func(ctx SpecContext) {
		const n = 30
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		// One scheduled time for all of them, 30 to 90 s away: with 30 reconciles due at once, most runs'
		// records and Events wait behind the Jobs (README "Jobs first").
		due := time.Now().UTC().Add(30 * time.Second).Truncate(time.Minute).Add(time.Minute)
		var cronJobs []*cronjobv1.CronJob
		for i := range n {
			cj := minutely(fmt.Sprintf("burst-%02d", i), ns, 0, 0).
				Schedule(fmt.Sprintf("%d %d %d %d *", due.Minute(), due.Hour(), due.Day(), int(due.Month()))).
				TimeZone("Etc/UTC").Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())
			cronJobs = append(cronJobs, cj)
		}

		By("waiting for the Job of every CronJob, each scheduled at " + due.Format(time.TimeOnly))
		Eventually(func(g Gomega) {
			for _, cj := range cronJobs {
				g.Expect(oracle.ScheduledTimes(cj.UID)).To(HaveLen(1), "%s", cj.Name)
			}
		}).WithTimeout(time.Until(due) + runWait).WithPolling(time.Second).Should(Succeed())
		Consistently(func(g Gomega) {
			for _, cj := range cronJobs {
				g.Expect(oracle.ScheduledTimes(cj.UID)).To(ConsistOf(BeTemporally("==", due)), "%s", cj.Name)
			}
		}).WithTimeout(10*time.Second).WithPolling(time.Second).Should(Succeed(), "each run starts once")

		By("checking that every run is recorded, with one SuccessfulCreate each")
		for _, cj := range cronJobs {
			Eventually(func(g Gomega) {
				st := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(st.LastScheduleTime).NotTo(BeNil())
				g.Expect(st.LastScheduleTime.Time).To(BeTemporally("==", due))
				created := 0
				for _, r := range framework.EventReasonsRegarding(ctx, g, k8sClient, cj) {
					if r == "Normal/SuccessfulCreate" {
						created++
					}
				}
				g.Expect(created).To(Equal(1), "SuccessfulCreate events of %s", cj.Name)
			}).WithTimeout(settleWait).Should(Succeed(), "%s", cj.Name)
		}
		checkStatusMatchesJobs(ctx, cronJobs...)
	})
})
