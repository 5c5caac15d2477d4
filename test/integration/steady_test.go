package integration

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

var _ = Describe("Steady state", func() {
	// A minutely CronJob runs for a simulated span of time. The spec plays the Job controller: each Job
	// succeeds right after it starts, and the controller prunes the history. The API server's own request
	// counters and controller-runtime's reconcile counters show what the controller cost.
	DescribeTable("a minutely CronJob whose Jobs succeed",
		func(ctx SpecContext, runs int) {
			ns := newNamespace(ctx)
			oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
			start := at("00:00:00")
			cj := builders.MakeCronJob("pulse", ns).Schedule("* * * * *").LastScheduleTime(start).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, start.Add(30*time.Second))
			Eventually(func() bool { return clk.WakeupBy(start.Add(time.Minute + time.Second)) }).Should(BeTrue())

			reconcilesBefore, err := framework.CountReconciles()
			Expect(err).NotTo(HaveOccurred())
			requestsBefore, err := framework.ScrapeAPIRequests(ctx, cfg)
			Expect(err).NotTo(HaveOccurred())
			began := time.Now()

			var want []time.Time
			for i := 1; i <= runs; i++ {
				scheduled := start.Add(time.Duration(i) * time.Minute)
				want = append(want, scheduled)
				clk.AdvanceTo(scheduled.Add(time.Second))
				var name string
				Eventually(func() []time.Time {
					var at []time.Time
					for _, j := range oracle.JobsOf(cj.UID) {
						at, name = append(at, j.ScheduledAt), j.Name
					}
					return at
				}).WithPolling(time.Millisecond).Should(Equal(want), "run %d of %s", i, scheduled.Format("15:04"))

				var job batchv1.Job
				Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &job)).To(Succeed())
				Expect(k8sClient.Status().Update(ctx, builders.FromJob(&job).Succeeded(clk.Now()).Obj())).To(Succeed())
			}
			last := want[len(want)-1]
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(last)))
				g.Expect(status.LastSuccessfulTime).To(BeComparableTo(metaTime(last.Add(time.Second))))
				g.Expect(status.Active).To(BeEmpty())
				g.Expect(jobNames(listJobs(ctx, g, ns))).To(ConsistOf(
					jobNameFor(cj, last.Add(-2*time.Minute)), jobNameFor(cj, last.Add(-time.Minute)), jobNameFor(cj, last)),
					"the default successfulJobsHistoryLimit keeps the newest 3")
			}).Should(Succeed())
			elapsed := time.Since(began)

			By("measuring what the span cost, and checking the controller then rests")
			var reconciles framework.Reconciles
			Eventually(func(g Gomega) {
				now, err := framework.CountReconciles()
				g.Expect(err).NotTo(HaveOccurred())
				reconciles = now.Since(reconcilesBefore)
			}).Should(Succeed())
			Consistently(func(g Gomega) float64 {
				now, err := framework.CountReconciles()
				g.Expect(err).NotTo(HaveOccurred())
				return now.Since(reconcilesBefore).Total()
			}).Should(Equal(reconciles.Total()), "no reconcile may run once nothing changes: no hot loop")
			requestsNow, err := framework.ScrapeAPIRequests(ctx, cfg)
			Expect(err).NotTo(HaveOccurred())
			requests := requestsNow.Since(requestsBefore)
			statusWrites := requests.Count(func(r framework.APIRequest) bool {
				return r.Resource == "cronjobs" && r.Subresource == "status" && (r.Verb == "PATCH" || r.Verb == "PUT")
			})
			conflicts := requests.Count(func(r framework.APIRequest) bool {
				return r.Resource == "cronjobs" && r.Subresource == "status" && r.Code == "409"
			})
			all409 := requests.Count(func(r framework.APIRequest) bool { return r.Code == "409" })
			alreadyExists := requests.Count(func(r framework.APIRequest) bool {
				return r.Resource == "jobs" && r.Verb == "POST" && r.Code == "409"
			})
			creates := requests.Count(func(r framework.APIRequest) bool { return r.Resource == "jobs" && r.Verb == "POST" })
			deletes := requests.Count(func(r framework.APIRequest) bool { return r.Resource == "jobs" && r.Verb == "DELETE" })
			AddReportEntry(fmt.Sprintf("%d minutely runs", runs), fmt.Sprintf(
				"%s wall time; %.0f reconciles %v; %.0f status writes, %.0f Job creates (%.0f AlreadyExists), %.0f Job deletes, %.0f status conflicts (%.0f 409s of any client)",
				elapsed.Round(time.Millisecond), reconciles.Total(), reconciles, statusWrites, creates, alreadyExists, deletes, conflicts, all409))

			// A run makes three Job events (added, finished, deleted from the history) and one wakeup; each
			// may cause one reconcile, and nothing else may.
			Expect(reconciles.Total()).To(BeNumerically("<=", 4*runs+2), "reconciles per run are bounded by its events")
			Expect(reconciles["error"]).To(BeZero())
			Expect(conflicts).To(BeZero(), "status writes must not conflict in steady state")
			Expect(creates).To(BeNumerically("==", runs))
			// The run's start and its completion each change the status once.
			Expect(statusWrites).To(BeNumerically("<=", 2*runs))
		},
		Entry("for an hour", 60),
		Entry("for a day", Label("slow"), 24*60),
	)
})
