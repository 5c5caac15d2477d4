//go:build e2e

package e2e

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The specs of this file run issue 25's planning fields on a real cluster, in real time.
var _ = Describe("Runs as people plan them", Label("features"), func() {
	It("should run each minute of two schedules' union once, none before suspendUntil", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		// Even and odd minutes: their union is every minute. Suspended until the start of the minute after
		// next, so that at least one scheduled minute passes while it holds.
		until := time.Now().Truncate(time.Minute).Add(2 * time.Minute)
		cj := minutely("union", ns, 0, 0).Schedules("*/2 * * * *", "1-59/2 * * * *").SuspendUntil(until).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		By("reporting SuspendedUntil while it holds")
		Eventually(func(g Gomega) string {
			c := meta.FindStatusCondition(framework.GetCronJob(ctx, g, k8sClient, cj).Status.Conditions, cronjobv1.ConditionReady)
			g.Expect(c).NotTo(BeNil())
			return c.Reason
		}).WithTimeout(runWait).Should(Equal(cronjobv1.ReasonSuspendedUntil))

		By("waiting for the two minutes from suspendUntil on, then checking each ran once and none before")
		last := until.Add(time.Minute)
		Eventually(func(g Gomega) {
			checkRuns(g, oracle, cj, until.Add(-time.Minute), last)
		}).WithTimeout(time.Until(last) + runWait).WithPolling(5 * time.Second).Should(Succeed())
		for _, at := range oracle.ScheduledTimes(cj.UID) {
			Expect(at).NotTo(BeTemporally("<", until), "a run before spec.suspendUntil")
		}
		checkStatusMatchesJobs(ctx, cj)
	})

	It("should start no Job at a minute its calendar excludes, report each, and run the others once", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		odd := &cronjobv1.CronCalendar{ObjectMeta: metav1.ObjectMeta{Name: "odd-minutes", Namespace: ns},
			Spec: cronjobv1.CronCalendarSpec{ExcludeSchedules: []string{"1-59/2 * * * *"}}}
		Expect(k8sClient.Create(ctx, odd)).To(Succeed())
		cj := minutely("even", ns, 0, 0).Calendars(odd.Name).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		created := time.Now()
		last := created.Truncate(time.Minute).Add(3 * time.Minute)

		By("waiting three minute boundaries: the even minutes run once, the odd ones never")
		Eventually(func(g Gomega) {
			counts := map[int64]int{}
			for _, at := range oracle.ScheduledTimes(cj.UID) {
				counts[at.Unix()]++
			}
			for m := created.Truncate(time.Minute).Add(time.Minute); !m.After(last); m = m.Add(time.Minute) {
				want := 1 - m.Minute()%2
				g.Expect(counts[m.Unix()]).To(Equal(want), "minute %s; the oracle saw %v", m.UTC().Format(time.TimeOnly), oracle.ScheduledTimes(cj.UID))
			}
		}).WithTimeout(time.Until(last) + runWait).WithPolling(5 * time.Second).Should(Succeed())
		Eventually(func(g Gomega) int {
			events, err := framework.EventsRegarding(ctx, k8sClient, cj)
			g.Expect(err).NotTo(HaveOccurred())
			n := 0
			for _, e := range events {
				if e.Reason == cronjobv1.ReasonExcludedByCalendar {
					n++
				}
			}
			return n
		}).WithTimeout(settleWait).Should(BeNumerically(">=", 1))
		checkStatusMatchesJobs(ctx, cj)
	})
})
