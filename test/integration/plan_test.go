package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The specs of this file cover issue 25's planning fields (several schedules, calendars, an active window,
// suspendUntil) against a real API server, with the controller on a fake clock.

// calendar is a CronCalendar of ns that excludes the given dates (YYYY-MM-DD, UTC).
func calendar(ns, name string, dates ...string) *cronjobv1.CronCalendar {
	return &cronjobv1.CronCalendar{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: cronjobv1.CronCalendarSpec{ExcludeDates: dates}}
}

// readyReason is the reason of the CronJob's Ready condition, "" without one.
func readyReason(ctx SpecContext, g Gomega, cj *cronjobv1.CronJob) string {
	return condition(framework.GetCronJob(ctx, g, k8sClient, cj).Status, cronjobv1.ConditionReady).Reason
}

// nextScheduleTime reads status.nextScheduleTime in UTC, the zero time while it is unset.
func nextScheduleTime(ctx SpecContext, cj *cronjobv1.CronJob) func(Gomega) time.Time {
	return func(g Gomega) time.Time {
		if t := framework.GetCronJob(ctx, g, k8sClient, cj).Status.NextScheduleTime; t != nil {
			return t.UTC()
		}
		return time.Time{}
	}
}

var _ = Describe("Runs as people plan them", func() {
	When("two schedules in two time zones meet on an instant", func() {
		It("should start one Job for that instant and one for each of their other times", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			// 10:00 UTC is 11:00 in Berlin (CET): both entries fire at 10:00 UTC; the second also at 10:30.
			cj := builders.MakeCronJob("union", ns).Schedules("0 11 * * * @ Europe/Berlin", "0,30 10 * * *").
				LastScheduleTime(at("09:30:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, at("09:59:00"))

			clk.AdvanceTo(at("10:00:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(jobNameFor(cj, at("10:00:00"))))
			Eventually(func(g Gomega) time.Time {
				return framework.GetCronJob(ctx, g, k8sClient, cj).Status.NextScheduleTime.UTC()
			}).Should(Equal(at("10:30:00")))
			clk.AdvanceTo(at("10:30:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(
				jobNameFor(cj, at("10:00:00")), jobNameFor(cj, at("10:30:00"))))
			Consistently(func(g Gomega) int { return len(listJobs(ctx, g, ns)) }).Should(Equal(2), "the shared instant ran once")
		})
	})

	When("a calendar excludes a time and is edited while times are due", func() {
		It("should start nothing at an excluded time, report it once, and re-plan on the edit with no surprise run", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			// The calendar excludes the whole day of at() (UTC).
			Expect(k8sClient.Create(ctx, calendar(ns, "freeze", at("00:00:00").Format(time.DateOnly)))).To(Succeed())
			cj := builders.MakeCronJob("planned", ns).Schedule("*/10 * * * *").Calendars("freeze").
				LastScheduleTime(at("09:50:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, at("09:59:00"))

			By("reaching 10:00 and 10:10: no Job, one ExcludedByCalendar each, nothing next today")
			for _, tick := range []string{"10:00", "10:10"} {
				clk.AdvanceTo(hhmm(tick).Add(time.Second))
				Eventually(func(g Gomega) time.Time {
					last := framework.GetCronJob(ctx, g, k8sClient, cj).Status.LastExcludedTime
					g.Expect(last).NotTo(BeNil())
					return last.UTC()
				}).Should(Equal(hhmm(tick)))
			}
			Eventually(func(g Gomega) map[string]int { return eventOccurrences(ctx, g, cj) }).Should(HaveKeyWithValue("Normal/ExcludedByCalendar", 2))
			st := framework.GetCronJob(ctx, Default, k8sClient, cj).Status
			Expect(st.NextScheduleTime.UTC()).To(Equal(at("00:00:00").AddDate(0, 0, 1)))
			Expect(jobNames(listJobs(ctx, Default, ns))).To(BeEmpty())

			By("editing the calendar at 10:15 to exclude nothing of today: 10:00 and 10:10 do not start after all")
			clk.SetTime(at("10:15:00")) // the controller sleeps until 10:20, the next excluded time
			var cal cronjobv1.CronCalendar
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "freeze"}, &cal)).To(Succeed())
			cal.Spec.ExcludeDates = []string{"2030-01-01"}
			Expect(k8sClient.Update(ctx, &cal)).To(Succeed())
			Eventually(func(g Gomega) time.Time {
				return framework.GetCronJob(ctx, g, k8sClient, cj).Status.ObservedSchedule.Since.UTC()
			}).Should(Equal(at("10:15:00")), "the edit re-planned the CronJob")
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }, "2s").Should(BeEmpty(), "no surprise run")

			By("reaching 10:20: it runs")
			clk.AdvanceTo(at("10:20:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(jobNameFor(cj, at("10:20:00"))))
			Expect(eventOccurrences(ctx, Default, cj)).To(HaveKeyWithValue("Normal/ExcludedByCalendar", 2), "each excluded time reported once")
		})
	})

	When("a CronJob with spec.schedules is updated", func() {
		It("should admit the update through the webhook (its match condition reads spec.schedule with has())", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("edited", ns).Schedules("0 9 * * *", "0 17 * * *").Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())
			Eventually(func(g Gomega) {
				live := framework.GetCronJob(ctx, g, k8sClient, cj)
				live.Spec.Suspend = ptr.To(true)
				g.Expect(k8sClient.Update(ctx, live)).To(Succeed())
			}).Should(Succeed())
			Eventually(func(g Gomega) error {
				live := framework.GetCronJob(ctx, g, k8sClient, cj)
				live.Spec.Schedules = append(live.Spec.Schedules, cronjobv1.ScheduleEntry{Schedule: "0 25 * * *"})
				return k8sClient.Update(ctx, live)
			}).Should(MatchError(ContainSubstring(`spec.schedules[2].schedule "0 25 * * *" is not a valid cron schedule`)))
		})
	})

	When("an active window opens and closes while the clock runs", func() {
		It("should start the times inside it only, miss none outside, and say when it has ended", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("window", ns).Schedule("*/10 * * * *").ActiveWindow(at("10:10:00"), at("10:20:00")).
				LastScheduleTime(at("09:50:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, at("09:59:00"))

			Eventually(nextScheduleTime(ctx, cj)).Should(Equal(at("10:10:00")), "10:00 is before notBefore: not a run at all")
			for _, tick := range []string{"10:10", "10:20"} {
				clk.AdvanceTo(hhmm(tick).Add(time.Second))
				Eventually(jobsOf(ctx, cj)).Should(ContainElement(tick))
			}
			Eventually(func(g Gomega) string { return readyReason(ctx, g, cj) }).Should(Equal(cronjobv1.ReasonActiveWindowEnded))
			Expect(framework.GetCronJob(ctx, Default, k8sClient, cj).Status.NextScheduleTime).To(BeNil())
			clk.SetTime(at("10:31:00"))
			Consistently(jobsOf(ctx, cj)).WithTimeout(time.Second).Should(ConsistOf("10:10", "10:20"), "10:00 and 10:30 are outside the window")
			Expect(eventOccurrences(ctx, Default, cj)).NotTo(HaveKey("Warning/MissSchedule"))
		})
	})

	When("a schedule names the last day of the month, across a change to summer time", func() {
		It("should run on the last day of February and of March at 18:00 Berlin time, and plan April's", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			// 18:00 in Berlin is 17:00 UTC on 2026-02-28 (CET) and 16:00 UTC on 2026-03-31 (CEST, since 03-29).
			feb := time.Date(2026, time.February, 28, 17, 0, 0, 0, time.UTC)
			mar := time.Date(2026, time.March, 31, 16, 0, 0, 0, time.UTC)
			apr := time.Date(2026, time.April, 30, 16, 0, 0, 0, time.UTC)
			cj := builders.MakeCronJob("month-end", ns).Schedule("0 18 L * *").TimeZone("Europe/Berlin").
				LastScheduleTime(time.Date(2026, time.January, 31, 17, 0, 0, 0, time.UTC)).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, feb.Add(-time.Hour))

			next := nextScheduleTime(ctx, cj)
			Eventually(next).Should(Equal(feb))
			clk.AdvanceTo(feb.Add(time.Second))
			Eventually(next).Should(Equal(mar))
			clk.AdvanceTo(mar.Add(time.Second))
			Eventually(next).Should(Equal(apr))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(jobNameFor(cj, feb), jobNameFor(cj, mar)))
		})
	})

	When("weekday-of-the-month schedules meet public holidays and a weekly freeze", func() {
		It("should run the first Monday and the last weekday, except on Easter Monday and in Tuesday evening's freeze", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			// Berlin: MON#1 at 09:00 and LW at 18:00. 2026-03-02 is the first Monday (08:00Z); the last weekday
			// of March is Tuesday the 31st (16:00Z, in the freeze); the first Monday of April is Easter Monday,
			// a public holiday in DE (07:00Z); the last weekday of April is Thursday the 30th (16:00Z).
			de := &cronjobv1.CronCalendar{ObjectMeta: metav1.ObjectMeta{Name: "de", Namespace: ns}, Spec: cronjobv1.CronCalendarSpec{
				TimeZone: ptr.To("Europe/Berlin"), Holidays: []cronjobv1.HolidaySet{{Country: "DE"}}, ExcludeSchedules: []string{"* 16-23 * * TUE"}}}
			Expect(k8sClient.Create(ctx, de)).To(Succeed())
			cj := builders.MakeCronJob("monthly", ns).Schedules("0 9 * * MON#1", "0 18 LW * *").TimeZone("Europe/Berlin").Calendars("de").
				LastScheduleTime(time.Date(2026, time.February, 27, 17, 0, 0, 0, time.UTC)).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			mar2 := time.Date(2026, time.March, 2, 8, 0, 0, 0, time.UTC)
			mar31 := time.Date(2026, time.March, 31, 16, 0, 0, 0, time.UTC)
			apr6 := time.Date(2026, time.April, 6, 7, 0, 0, 0, time.UTC)
			apr30 := time.Date(2026, time.April, 30, 16, 0, 0, 0, time.UTC)
			clk := startController(ns, mar2.Add(-time.Minute))

			Eventually(nextScheduleTime(ctx, cj)).Should(Equal(mar2))
			clk.AdvanceTo(mar2.Add(time.Second))
			Eventually(nextScheduleTime(ctx, cj)).Should(Equal(apr30), "31 March is in the freeze and 6 April a holiday")
			clk.AdvanceTo(mar31.Add(time.Second))
			Eventually(func(g Gomega) int { return eventOccurrences(ctx, g, cj)["Normal/ExcludedByCalendar"] }).Should(Equal(1))
			clk.AdvanceTo(apr6.Add(time.Second))
			Eventually(func(g Gomega) int { return eventOccurrences(ctx, g, cj)["Normal/ExcludedByCalendar"] }).Should(Equal(2))
			clk.AdvanceTo(apr30.Add(time.Second))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(jobNameFor(cj, mar2), jobNameFor(cj, apr30)))
			Expect(eventOccurrences(ctx, Default, cj)).NotTo(HaveKey("Warning/MissSchedule"))
		})
	})

	When("suspendUntil is set", func() {
		It("should start nothing before it, and no surprise run when it passes", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("later", ns).Schedule("*/10 * * * *").SuspendUntil(at("10:25:00")).
				LastScheduleTime(at("09:50:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk := startController(ns, at("09:59:00"))

			Eventually(func(g Gomega) string { return readyReason(ctx, g, cj) }).Should(Equal(cronjobv1.ReasonSuspendedUntil))
			Expect(framework.GetCronJob(ctx, Default, k8sClient, cj).Status.NextScheduleTime.UTC()).To(Equal(at("10:30:00")))
			clk.AdvanceTo(at("10:25:00").Add(requeuePad))
			Eventually(func(g Gomega) string { return readyReason(ctx, g, cj) }).Should(Equal(cronjobv1.ReasonScheduled))
			Expect(jobNames(listJobs(ctx, Default, ns))).To(BeEmpty(), "10:00, 10:10 and 10:20 never start")
			clk.AdvanceTo(at("10:30:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(jobNameFor(cj, at("10:30:00"))))
			Expect(eventOccurrences(ctx, Default, cj)).NotTo(HaveKey("Warning/MissSchedule"))
		})
	})
})
