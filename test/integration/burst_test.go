package integration

import (
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/cronjob"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// outcomeLog records every reconcile's outcome in the order they ended, across CronJobs.
type outcomeLog struct {
	mu  sync.Mutex
	all []cronjob.Outcome
}

func (l *outcomeLog) record(_ types.NamespacedName, o cronjob.Outcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, o)
}

func (l *outcomeLog) list() []cronjob.Outcome {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]cronjob.Outcome(nil), l.all...)
}

var _ = Describe("Jobs first", func() {
	When("many CronJobs are due at the same time", func() {
		It("should create every Job once before it writes the runs' records, and write every record", func(ctx SpecContext) {
			const n = 40
			ns := newNamespace(ctx)
			var cronJobs []*cronjobv1.CronJob
			for i := range n {
				cj := builders.MakeCronJob(fmt.Sprintf("burst-%02d", i), ns).Schedule("*/5 * * * *").
					LastScheduleTime(at("10:00:00")).Obj()
				Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
				cronJobs = append(cronJobs, cj)
			}
			log := &outcomeLog{}
			clk := framework.NewClock(at("10:04:00"))
			DeferCleanup(fwk.StartManager(framework.ManagerOptions{
				Namespace: ns, Clock: clk, MaxConcurrentReconciles: 2, OnReconcile: log.record,
			}).Stop)
			Eventually(func(g Gomega) {
				for _, cj := range cronJobs {
					g.Expect(framework.GetCronJob(ctx, g, k8sClient, cj).Status.ObservedSchedule).NotTo(BeNil())
				}
			}).Should(Succeed(), "every CronJob was seen before 10:05")

			By("moving the clock past 10:05, when all of them are due")
			clk.AdvanceTo(at("10:05:01"))
			want := make([]string, 0, n)
			for _, cj := range cronJobs {
				want = append(want, jobNameFor(cj, at("10:05:00")))
			}
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(want))
			Eventually(func(g Gomega) {
				for _, cj := range cronJobs {
					status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
					g.Expect(status.LastScheduleTime).NotTo(BeNil(), "%s", cj.Name)
					g.Expect(status.LastScheduleTime.Time).To(BeTemporally("==", at("10:05:00")), "%s", cj.Name)
					g.Expect(status.Active).To(ConsistOf(HaveField("Name", jobNameFor(cj, at("10:05:00")))), "%s", cj.Name)
				}
			}).Should(Succeed(), "every run is recorded")
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }, "2s").Should(ConsistOf(want),
				"no run is started twice")
			Eventually(func(g Gomega) {
				for _, cj := range cronJobs {
					g.Expect(eventOccurrences(ctx, g, cj)).To(HaveKeyWithValue("Normal/SuccessfulCreate", 1), "%s", cj.Name)
				}
			}).Should(Succeed(), "each run's SuccessfulCreate, held back with its record, is emitted once")

			By("reading the order of the reconciles")
			var created, deferred, createdBeforeFirstRecord int
			recordWritten := false
			for _, o := range log.list() {
				Expect(o.Err).NotTo(HaveOccurred())
				switch {
				case o.Run == cronjob.RunCreated:
					created++
					if !recordWritten {
						createdBeforeFirstRecord++
					}
					if o.Status == cronjob.StatusDeferred {
						deferred++
					}
				case o.Run == cronjob.RunNone && o.Status == cronjob.StatusWritten && created > 0:
					recordWritten = true
				}
			}
			Expect(created).To(Equal(n), "one create per CronJob")
			Expect(deferred).To(BeNumerically(">=", n/2), "the records of most runs waited behind the Jobs due with them")
			Expect(createdBeforeFirstRecord).To(BeNumerically(">=", n/2), "most Jobs were created before the first deferred record was written")
		})
	})
})
