package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// Issue 24 on a real API server, the fake clock driving every decision: run timeouts under Forbid and
// Enqueue, the start timeout, the dead-man's switch, pause after failures and the history across a restart.
// Each CronJob runs every five minutes and last ran at 10:00; nothing plays the Job controller but the spec.

// runResults returns "<scheduled hh:mm>=<result>" for each entry of status.recentRuns, newest first.
func runResults(s cronjobv1.CronJobStatus) []string {
	out := []string{}
	for _, r := range s.RecentRuns {
		when := "manual"
		if r.ScheduledTime != nil {
			when = r.ScheduledTime.UTC().Format("15:04")
		}
		out = append(out, when+"="+string(r.Result))
	}
	return out
}

// jobsOf returns the scheduled times ("hh:mm", UTC) of the Jobs in the CronJob's namespace, from their
// scheduled-at annotation.
func jobsOf(ctx SpecContext, cj *cronjobv1.CronJob) func(Gomega) []string {
	return func(g Gomega) []string {
		out := []string{}
		for _, job := range listJobs(ctx, g, cj.Namespace) {
			at, err := time.Parse(time.RFC3339, job.Annotations[cronjobv1.ScheduledAtAnnotation])
			g.Expect(err).NotTo(HaveOccurred(), "Job %s: scheduled-at annotation", job.Name)
			out = append(out, at.UTC().Format("15:04"))
		}
		return out
	}
}

// endJob is endJobAs for the run scheduled at "hh:mm".
func endJob(ctx SpecContext, cj *cronjobv1.CronJob, run string, how batchv1.JobConditionType, done time.Time) {
	GinkgoHelper()
	endJobAs(ctx, cj, hhmm(run), how, done)
}

func cronJobStatus(ctx SpecContext, cj *cronjobv1.CronJob) func(Gomega) cronjobv1.CronJobStatus {
	return func(g Gomega) cronjobv1.CronJobStatus { return framework.GetCronJob(ctx, g, k8sClient, cj).Status }
}

func condition(s cronjobv1.CronJobStatus, t string) metav1.Condition {
	if c := meta.FindStatusCondition(s.Conditions, t); c != nil {
		return *c
	}
	return metav1.Condition{}
}

var _ = Describe("Run timeouts", func() {
	When("a Job under Forbid never finishes", func() {
		It("should end it at runTimeoutSeconds and start the run due in the same reconcile", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("stuck", ns).Forbid().LastScheduleTime(at("10:00:00")).Obj()
			cj.Spec.RunTimeoutSeconds = ptr.To[int64](600)
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, at("10:04:00"))

			By("starting 10:05 (created at 10:05:01, so its deadline is 10:15:01) and holding 10:10 behind it")
			clk.AdvanceTo(at("10:05:01"))
			Eventually(jobsOf(ctx, cj)).Should(ConsistOf("10:05"))
			clk.AdvanceTo(at("10:10:01"))
			Consistently(jobsOf(ctx, cj)).WithTimeout(time.Second).Should(ConsistOf("10:05"))

			By("holding 10:15 too while the clock is a millisecond before the deadline")
			clk.AdvanceTo(at("10:15:00.5"))
			clk.SetTime(at("10:15:01").Add(-time.Millisecond))
			Consistently(jobsOf(ctx, cj)).WithTimeout(time.Second).Should(ConsistOf("10:05"))

			By("ending 10:05 at its deadline: deleted, recorded TimedOut, and 10:15 started on time")
			clk.AdvanceTo(at("10:15:02"))
			Eventually(jobsOf(ctx, cj)).Should(ConsistOf("10:15"))
			Eventually(func(g Gomega) {
				s := cronJobStatus(ctx, cj)(g)
				g.Expect(runResults(s)).To(Equal([]string{"10:15=Running", "10:05=TimedOut"}))
				g.Expect(s.RecentRuns[1].Reason).To(Equal(cronjobv1.ReasonRunTimedOut))
				// 10:10 was missed meanwhile, so 10:15 counts as a catch-up, as in runs_started_total.
				g.Expect(s.RecentRuns[0].Trigger).To(Equal(cronjobv1.TriggeredByCatchUp))
				g.Expect(s.FailedRuns).To(BeEquivalentTo(1))
				g.Expect(s.ConsecutiveFailures).To(BeEquivalentTo(1))
				g.Expect(s.LastFailureTime).NotTo(BeNil())
				g.Expect(s.LastScheduleTime.Time).To(BeTemporally("==", at("10:15:00")))
			}).Should(Succeed())
			Eventually(func(g Gomega) []string {
				return framework.EventReasonsRegarding(ctx, g, k8sClient, cj)
			}).Should(ContainElement("Warning/" + cronjobv1.ReasonRunTimedOut))
		})
	})

	When("the Job at the head of an Enqueue CronJob never finishes", func() {
		It("should end it and start the oldest queued run", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("queue", ns).Enqueue().LastScheduleTime(at("10:00:00")).Obj()
			cj.Spec.RunTimeoutSeconds = ptr.To[int64](600)
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, at("10:04:00"))

			clk.AdvanceTo(at("10:05:01"))
			Eventually(jobsOf(ctx, cj)).Should(ConsistOf("10:05"))
			clk.AdvanceTo(at("10:10:01"))
			Eventually(func(g Gomega) int { return len(cronJobStatus(ctx, cj)(g).Queued) }).Should(Equal(1))

			By("ending 10:05 at 10:15:01: the queued 10:10 starts, 10:15 waits behind it")
			clk.AdvanceTo(at("10:15:02"))
			Eventually(jobsOf(ctx, cj)).Should(ConsistOf("10:10"))
			Eventually(func(g Gomega) {
				s := cronJobStatus(ctx, cj)(g)
				g.Expect(runResults(s)).To(Equal([]string{"10:10=Running", "10:05=TimedOut"}))
				g.Expect(s.RecentRuns[0].Trigger).To(Equal(cronjobv1.TriggeredByQueue))
				g.Expect(s.Queued).To(HaveLen(1))
				g.Expect(s.Queued[0].ScheduledTime.Time).To(BeTemporally("==", at("10:15:00")))
			}).Should(Succeed())
		})
	})

	When("no Pod of a Job starts", func() {
		It("should end it at startTimeoutSeconds as NeverStarted, and leave a started one alone", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("pending", ns).LastScheduleTime(at("10:00:00")).Obj()
			cj.Spec.StartTimeoutSeconds = ptr.To[int64](120)
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := framework.NewClock(at("10:04:00"))
			m := fwk.StartManager(framework.ManagerOptions{Namespace: ns, Clock: clk})
			DeferCleanup(m.Stop)

			clk.AdvanceTo(at("10:05:01"))
			Eventually(jobsOf(ctx, cj)).Should(ConsistOf("10:05"))
			clk.AdvanceTo(at("10:07:02"))
			Eventually(jobsOf(ctx, cj)).Should(BeEmpty())
			Eventually(func(g Gomega) {
				s := cronJobStatus(ctx, cj)(g)
				g.Expect(runResults(s)).To(Equal([]string{"10:05=NeverStarted"}))
				g.Expect(s.RecentRuns[0].Reason).To(Equal(cronjobv1.ReasonRunNeverStarted))
				g.Expect(s.Active).To(BeEmpty())
			}).Should(Succeed())

			By("starting 10:10, whose Pod is ready before its start timeout: it runs on")
			clk.AdvanceTo(at("10:10:01"))
			Eventually(jobsOf(ctx, cj)).Should(ConsistOf("10:10"))
			var job batchv1.Job
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: jobNameFor(cj, hhmm("10:10"))}, &job)).To(Succeed())
			job.Status.StartTime = ptr.To(metav1.NewTime(at("10:10:02")))
			job.Status.Active, job.Status.Ready = 1, ptr.To[int32](1)
			Expect(k8sClient.Status().Update(ctx, &job)).To(Succeed())
			Eventually(func(g Gomega) int32 {
				var cached batchv1.Job
				g.Expect(m.Cache().Get(ctx, client.ObjectKeyFromObject(&job), &cached)).To(Succeed())
				return ptr.Deref(cached.Status.Ready, 0)
			}).Should(BeEquivalentTo(1), "the manager's cache has seen the ready Pod")
			clk.SetTime(at("10:14:00"))
			Consistently(jobsOf(ctx, cj)).WithTimeout(time.Second).Should(ConsistOf("10:10"))
			Expect(runResults(cronJobStatus(ctx, cj)(Default))).To(Equal([]string{"10:10=Running", "10:05=NeverStarted"}))
		})
	})
})

var _ = Describe("The dead-man's switch", func() {
	It("should turn Healthy False once past successDeadlineSeconds with no success, and True at the next success", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := builders.MakeCronJob("watched", ns).LastScheduleTime(at("10:00:00")).Obj()
		cj.Spec.SuccessDeadlineSeconds = ptr.To[int64](900)
		Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
		clk := startController(ns, at("10:04:00"))

		var since time.Time
		Eventually(func(g Gomega) {
			s := cronJobStatus(ctx, cj)(g)
			g.Expect(s.ObservedSchedule).NotTo(BeNil())
			since = s.ObservedSchedule.Since.Time
			g.Expect(condition(s, cronjobv1.ConditionHealthy).Reason).To(Equal(cronjobv1.ReasonSucceededRecently))
		}).Should(Succeed())
		deadline := since.Add(900 * time.Second)

		By("running and failing 10:05, still within the deadline")
		clk.AdvanceTo(at("10:05:01"))
		Eventually(jobsOf(ctx, cj)).Should(ConsistOf("10:05"))
		endJob(ctx, cj, "10:05", batchv1.JobFailed, at("10:06:00"))
		Eventually(func(g Gomega) int32 { return cronJobStatus(ctx, cj)(g).ConsecutiveFailures }).Should(BeEquivalentTo(1))
		Expect(condition(cronJobStatus(ctx, cj)(Default), cronjobv1.ConditionHealthy).Status).To(Equal(metav1.ConditionTrue))

		By("passing the deadline with no success: Healthy False, NoRecentSuccess, one event")
		clk.AdvanceTo(deadline.Add(time.Second))
		Eventually(func(g Gomega) metav1.Condition {
			return condition(cronJobStatus(ctx, cj)(g), cronjobv1.ConditionHealthy)
		}).Should(And(
			HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", cronjobv1.ReasonNoRecentSuccess)))
		Eventually(func(g Gomega) []string {
			return framework.EventReasonsRegarding(ctx, g, k8sClient, cj)
		}).Should(ContainElement("Warning/" + cronjobv1.ReasonNoRecentSuccess))

		By("succeeding: Healthy True again")
		next := deadline.Truncate(5 * time.Minute).Add(5 * time.Minute)
		clk.AdvanceTo(next.Add(time.Second))
		run := next.UTC().Format("15:04")
		Eventually(jobsOf(ctx, cj)).Should(ContainElement(run))
		endJob(ctx, cj, run, batchv1.JobComplete, next.Add(time.Minute))
		Eventually(func(g Gomega) metav1.Condition {
			return condition(cronJobStatus(ctx, cj)(g), cronjobv1.ConditionHealthy)
		}).Should(And(
			HaveField("Status", metav1.ConditionTrue),
			HaveField("Reason", cronjobv1.ReasonSucceededRecently)))
		warnings := 0
		for _, r := range framework.EventReasonsRegarding(ctx, Default, k8sClient, cj) {
			if r == "Warning/"+cronjobv1.ReasonNoRecentSuccess {
				warnings++
			}
		}
		Expect(warnings).To(Equal(1), "NoRecentSuccess is reported once")
	})
})

var _ = Describe("Pause after failures", func() {
	It("should suspend the CronJob at the N-th failure in a row, and resume with no surprise run", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := builders.MakeCronJob("flaky", ns).HistoryLimits(3, 3).LastScheduleTime(at("10:00:00")).Obj()
		cj.Spec.PauseAfterFailures = ptr.To[int32](2)
		Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
		clk := startController(ns, at("10:04:00"))

		for _, run := range []string{"10:05", "10:10"} {
			By("running and failing " + run)
			clk.AdvanceTo(hhmm(run).Add(time.Second))
			Eventually(jobsOf(ctx, cj)).Should(ContainElement(run))
			endJob(ctx, cj, run, batchv1.JobFailed, hhmm(run).Add(time.Minute))
		}

		By("pausing after the second: spec.suspend, the paused-at annotation, Ready False, an event")
		Eventually(func(g Gomega) {
			got := framework.GetCronJob(ctx, g, k8sClient, cj)
			g.Expect(ptr.Deref(got.Spec.Suspend, false)).To(BeTrue())
			g.Expect(got.Annotations).To(HaveKey(cronjobv1.PausedAtAnnotation))
			g.Expect(got.Status.ConsecutiveFailures).To(BeEquivalentTo(2))
			g.Expect(condition(got.Status, cronjobv1.ConditionReady)).To(And(
				HaveField("Status", metav1.ConditionFalse),
				HaveField("Reason", cronjobv1.ReasonPausedAfterFailures)))
		}).Should(Succeed())
		Eventually(func(g Gomega) []string {
			return framework.EventReasonsRegarding(ctx, g, k8sClient, cj)
		}).Should(ContainElement("Warning/" + cronjobv1.ReasonPausedAfterFailures))

		By("starting nothing at 10:15 and 10:20 while paused")
		clk.SetTime(at("10:20:30"))
		Consistently(jobsOf(ctx, cj)).WithTimeout(time.Second).Should(ConsistOf("10:05", "10:10"))

		By("resuming at 10:20:30: no run of 10:15 or 10:20, the count restarts, the annotation goes")
		Eventually(func() error {
			got := framework.GetCronJob(ctx, Default, k8sClient, cj)
			got.Spec.Suspend = ptr.To(false)
			return k8sClient.Update(ctx, got)
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			got := framework.GetCronJob(ctx, g, k8sClient, cj)
			g.Expect(got.Annotations).NotTo(HaveKey(cronjobv1.PausedAtAnnotation))
			g.Expect(got.Status.ConsecutiveFailures).To(BeZero())
			g.Expect(condition(got.Status, cronjobv1.ConditionReady).Status).To(Equal(metav1.ConditionTrue))
		}).Should(Succeed())
		Eventually(func(g Gomega) []string {
			return framework.EventReasonsRegarding(ctx, g, k8sClient, cj)
		}).Should(ContainElement("Normal/" + cronjobv1.ReasonResumed))
		Consistently(jobsOf(ctx, cj)).WithTimeout(time.Second).Should(ConsistOf("10:05", "10:10"))

		By("starting 10:25 as scheduled")
		clk.AdvanceTo(at("10:25:01"))
		Eventually(jobsOf(ctx, cj)).Should(ContainElement("10:25"))
	})
})

var _ = Describe("The run history", func() {
	It("should survive a restart of the manager and count each run once", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := builders.MakeCronJob("history", ns).LastScheduleTime(at("10:00:00")).Obj()
		Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
		clk := framework.NewClock(at("10:04:00"))
		m := fwk.StartManager(framework.ManagerOptions{Namespace: ns, Clock: clk})

		clk.AdvanceTo(at("10:05:01"))
		Eventually(jobsOf(ctx, cj)).Should(ConsistOf("10:05"))
		endJob(ctx, cj, "10:05", batchv1.JobComplete, at("10:06:00"))
		clk.AdvanceTo(at("10:10:01"))
		Eventually(jobsOf(ctx, cj)).Should(ConsistOf("10:05", "10:10"))
		Eventually(func(g Gomega) []string { return runResults(cronJobStatus(ctx, cj)(g)) }).
			Should(Equal([]string{"10:10=Running", "10:05=Succeeded"}))

		By("killing the manager, failing 10:10 while none runs, and starting another")
		m.Kill()
		endJob(ctx, cj, "10:10", batchv1.JobFailed, at("10:11:00"))
		clk.SetTime(at("10:12:00"))
		DeferCleanup(fwk.StartManager(framework.ManagerOptions{Namespace: ns, Clock: clk.Share()}).Stop)
		Eventually(func(g Gomega) {
			s := cronJobStatus(ctx, cj)(g)
			g.Expect(runResults(s)).To(Equal([]string{"10:10=Failed", "10:05=Succeeded"}))
			g.Expect(s.SucceededRuns).To(BeEquivalentTo(1))
			g.Expect(s.FailedRuns).To(BeEquivalentTo(1))
			g.Expect(s.ConsecutiveFailures).To(BeEquivalentTo(1))
		}).Should(Succeed())
		Consistently(func(g Gomega) []int64 {
			s := cronJobStatus(ctx, cj)(g)
			return []int64{s.SucceededRuns, s.FailedRuns}
		}).WithTimeout(2*time.Second).Should(Equal([]int64{1, 1}), "counted once")
	})
})

var _ = Describe("A manual run past its CronJob's timeout", func() {
	It("should end Failed with reason RunTimedOut and stay for its TTL, while the CronJob counts the failure", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		// Suspended: timeouts apply to manual runs of a suspended CronJob too.
		cj := builders.MakeCronJob("manual", ns).Suspend().RunTimeoutSeconds(300).LastScheduleTime(at("10:00:00")).Obj()
		Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
		clk := startController(ns, at("10:04:00"))

		run := builders.MakeCronJobRun("now", ns, cj.Name).Obj()
		job := runningJobOf(ctx, run)

		By("passing its deadline, 10:09:00, on the controller's clock")
		clk.AdvanceTo(at("10:09:01"))
		Eventually(func(g Gomega) {
			got := getRun(ctx, g, run)
			g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunFailed))
			g.Expect(runReady(got).Reason).To(Equal(cronjobv1.ReasonRunTimedOut))
			g.Expect(got.Status.CompletionTime).NotTo(BeNil())
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			s := cronJobStatus(ctx, cj)(g)
			g.Expect(s.RecentRuns).To(HaveLen(1))
			g.Expect(s.RecentRuns[0].JobName).To(Equal(job))
			g.Expect(s.RecentRuns[0].Trigger).To(Equal(cronjobv1.TriggeredByManual))
			g.Expect(s.RecentRuns[0].Result).To(Equal(cronjobv1.RunResultTimedOut))
			g.Expect(s.FailedRuns).To(BeEquivalentTo(1))
		}).Should(Succeed())
		Consistently(func(g Gomega) cronjobv1.CronJobRunPhase { return getRun(ctx, g, run).Status.Phase }).
			WithTimeout(time.Second).Should(Equal(cronjobv1.RunFailed), "kept, not deleted with its Job")
	})
})
