package integration

import (
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// A concurrency story steps a "*/5 * * * *" CronJob (last run 10:00, history limits 2 succeeded and 1
// failed) through the scheduled times 10:05 to 10:35 while the spec plays the Job controller. Runs are
// named by their scheduled time, "hh:mm" on the day of at(); a list of runs is one space-separated string.
// Every expectation below is worked out from the README's "Scheduling semantics", not taken from a run.

// policyTick is one scheduled time of a concurrency story: the spec moves the clock one second past it and
// checks what the controller did, then finishes Jobs before the next scheduled time.
type policyTick struct {
	at     string      // the scheduled time
	jobs   string      // the runs whose Jobs exist once the controller has acted
	active string      // of those, the runs whose Jobs are running
	then   []jobFinish // the Jobs the Job controller finishes before the next scheduled time, in order
}

// jobFinish is the Job controller finishing the Job of a run, and what the CronJob controller must leave
// once it has seen that (history pruned, a skipped run started).
type jobFinish struct {
	run    string
	how    batchv1.JobConditionType // JobComplete or JobFailed
	at     string                   // "hh:mm"
	jobs   string
	active string
}

// policyOutcome is what a concurrency story must leave behind.
type policyOutcome struct {
	succeeded, failed, running             string // the runs whose Jobs remain, by how they ended
	lastSchedule, lastSuccess, lastFailure string // "hh:mm"
}

// Allow: the Jobs of 10:05 and 10:25 overlap the next runs, which start anyway.
var allowStory = []policyTick{
	{at: "10:05", jobs: "10:05", active: "10:05"},
	{at: "10:10", jobs: "10:05 10:10", active: "10:05 10:10", then: []jobFinish{
		{run: "10:10", how: batchv1.JobFailed, at: "10:11", jobs: "10:05 10:10", active: "10:05"},
	}},
	{at: "10:15", jobs: "10:05 10:10 10:15", active: "10:05 10:15", then: []jobFinish{
		{run: "10:15", how: batchv1.JobComplete, at: "10:16", jobs: "10:05 10:10 10:15", active: "10:05"},
		{run: "10:05", how: batchv1.JobComplete, at: "10:17", jobs: "10:05 10:10 10:15", active: ""},
	}},
	{at: "10:20", jobs: "10:05 10:10 10:15 10:20", active: "10:20", then: []jobFinish{
		// Three succeeded: 10:05 goes, the oldest by start time although it finished last.
		{run: "10:20", how: batchv1.JobComplete, at: "10:22", jobs: "10:10 10:15 10:20", active: ""},
	}},
	{at: "10:25", jobs: "10:10 10:15 10:20 10:25", active: "10:25"},
	{at: "10:30", jobs: "10:10 10:15 10:20 10:25 10:30", active: "10:25 10:30", then: []jobFinish{
		{run: "10:25", how: batchv1.JobFailed, at: "10:31", jobs: "10:15 10:20 10:25 10:30", active: "10:30"},
		{run: "10:30", how: batchv1.JobComplete, at: "10:33", jobs: "10:20 10:25 10:30", active: ""},
	}},
	{at: "10:35", jobs: "10:20 10:25 10:30 10:35", active: "10:35"},
}

// Forbid: the same long Jobs block the runs of 10:10, 10:15 and 10:30 (JobAlreadyActive); when the Job
// finishes, the most recent skipped run starts, so 10:10 never runs.
var forbidStory = []policyTick{
	{at: "10:05", jobs: "10:05", active: "10:05"},
	{at: "10:10", jobs: "10:05", active: "10:05"},
	{at: "10:15", jobs: "10:05", active: "10:05", then: []jobFinish{
		{run: "10:05", how: batchv1.JobComplete, at: "10:17", jobs: "10:05 10:15", active: "10:15"},
		{run: "10:15", how: batchv1.JobFailed, at: "10:18", jobs: "10:05 10:15", active: ""},
	}},
	{at: "10:20", jobs: "10:05 10:15 10:20", active: "10:20", then: []jobFinish{
		{run: "10:20", how: batchv1.JobComplete, at: "10:22", jobs: "10:05 10:15 10:20", active: ""},
	}},
	{at: "10:25", jobs: "10:05 10:15 10:20 10:25", active: "10:25"},
	{at: "10:30", jobs: "10:05 10:15 10:20 10:25", active: "10:25", then: []jobFinish{
		// One reconcile prunes the older failed Job (10:15) and starts the skipped run of 10:30.
		{run: "10:25", how: batchv1.JobFailed, at: "10:31", jobs: "10:05 10:20 10:25 10:30", active: "10:30"},
		{run: "10:30", how: batchv1.JobComplete, at: "10:33", jobs: "10:20 10:25 10:30", active: ""},
	}},
	{at: "10:35", jobs: "10:20 10:25 10:30 10:35", active: "10:35"},
}

// Replace: the long Job of 10:25 is deleted at 10:30 and the finished Jobs around it stay.
var replaceStory = []policyTick{
	{at: "10:05", jobs: "10:05", active: "10:05", then: []jobFinish{
		{run: "10:05", how: batchv1.JobFailed, at: "10:06", jobs: "10:05", active: ""},
	}},
	{at: "10:10", jobs: "10:05 10:10", active: "10:10", then: []jobFinish{
		{run: "10:10", how: batchv1.JobComplete, at: "10:12", jobs: "10:05 10:10", active: ""},
	}},
	{at: "10:15", jobs: "10:05 10:10 10:15", active: "10:15", then: []jobFinish{
		{run: "10:15", how: batchv1.JobComplete, at: "10:16", jobs: "10:05 10:10 10:15", active: ""},
	}},
	{at: "10:20", jobs: "10:05 10:10 10:15 10:20", active: "10:20", then: []jobFinish{
		{run: "10:20", how: batchv1.JobFailed, at: "10:22", jobs: "10:10 10:15 10:20", active: ""},
	}},
	{at: "10:25", jobs: "10:10 10:15 10:20 10:25", active: "10:25"},
	{at: "10:30", jobs: "10:10 10:15 10:20 10:30", active: "10:30", then: []jobFinish{
		{run: "10:30", how: batchv1.JobComplete, at: "10:33", jobs: "10:15 10:20 10:30", active: ""},
	}},
	{at: "10:35", jobs: "10:15 10:20 10:30 10:35", active: "10:35"},
}

var _ = Describe("Concurrency policies across several ticks", func() {
	When("Jobs overlap, succeed and fail over seven scheduled times", func() {
		DescribeTable("should start, skip or replace runs as the policy says, and keep the newest finished Jobs",
			func(ctx SpecContext, policy cronjobv1.ConcurrencyPolicy, story []policyTick, want policyOutcome) {
				ns := newNamespace(ctx)
				cj := builders.MakeCronJob("report", ns).ConcurrencyPolicy(policy).HistoryLimits(2, 1).
					LastScheduleTime(at("10:00:00")).Obj()
				Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
				s := &policyStory{ns: ns, cj: cj, clk: startController(ns, at("10:04:00")),
					started: map[string]time.Time{}, events: map[string]int{}, lastRun: at("10:00:00")}

				for _, tick := range story {
					By("moving the clock past " + tick.at)
					s.clk.AdvanceTo(hhmm(tick.at).Add(time.Second))
					s.next = hhmm(tick.at).Add(5*time.Minute + time.Second)
					s.expectTick(ctx, tick)
					for _, f := range tick.then {
						By(fmt.Sprintf("finishing the Job of %s at %s: %s", f.run, f.at, f.how))
						s.finish(ctx, f)
						s.expect(ctx, f.jobs, f.active)
					}
				}

				By("keeping the newest finished Jobs and tracking the running one")
				Eventually(func(g Gomega) {
					byOutcome := map[batchv1.JobConditionType][]string{}
					var running []types.GomegaMatcher
					for _, job := range listJobs(ctx, g, ns) {
						g.Expect(job.DeletionTimestamp).To(BeNil(), "Job %s is being deleted", job.Name)
						_, how := framework.JobFinished(&job)
						byOutcome[how] = append(byOutcome[how], job.Name)
						if how == "" {
							running = append(running, BeComparableTo(activeRef(&job), ignoreResourceVersion))
						}
					}
					g.Expect(byOutcome[batchv1.JobComplete]).To(ConsistOf(s.names(want.succeeded)))
					g.Expect(byOutcome[batchv1.JobFailed]).To(ConsistOf(s.names(want.failed)))
					g.Expect(byOutcome[""]).To(ConsistOf(s.names(want.running)))
					status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
					g.Expect(status.Active).To(ConsistOf(running))
					g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(hhmm(want.lastSchedule))))
					g.Expect(status.LastSuccessfulTime).To(BeComparableTo(metaTime(hhmm(want.lastSuccess))))
					g.Expect(status.LastFailureTime).To(BeComparableTo(metaTime(hhmm(want.lastFailure))))
				}).Should(Succeed())
				last := s.names(strings.Join(s.runs, " "))
				Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(last),
					"no Job may start or go after the last step")
			},
			Entry("Allow", cronjobv1.AllowConcurrent, allowStory, policyOutcome{
				succeeded: "10:20 10:30", failed: "10:25", running: "10:35",
				lastSchedule: "10:35", lastSuccess: "10:33", lastFailure: "10:31"}),
			Entry("Forbid", cronjobv1.ForbidConcurrent, forbidStory, policyOutcome{
				succeeded: "10:20 10:30", failed: "10:25", running: "10:35",
				lastSchedule: "10:35", lastSuccess: "10:33", lastFailure: "10:31"}),
			Entry("Replace", cronjobv1.ReplaceConcurrent, replaceStory, policyOutcome{
				succeeded: "10:15 10:30", failed: "10:20", running: "10:35",
				lastSchedule: "10:35", lastSuccess: "10:33", lastFailure: "10:22"}),
		)
	})
})

// policyStory is a concurrency story under way: what it has done so far, from which the spec derives the
// status and events the controller must show.
type policyStory struct {
	ns   string
	cj   *cronjobv1.CronJob
	clk  *framework.Clock
	next time.Time // one second past the next scheduled time: the controller must have asked to be woken by then

	runs                     []string             // the runs whose Jobs exist
	started                  map[string]time.Time // run → when its Job started: the clock when the Job appeared
	lastRun                  time.Time            // the latest run whose Job was created
	lastSuccess, lastFailure *metav1.Time
	events                   map[string]int // "<type>/<reason>" → how many times the controller must have emitted it
}

// Event reasons the stories count.
const (
	evCreate    = "Normal/SuccessfulCreate"
	evDelete    = "Normal/SuccessfulDelete"
	evSkip      = "Normal/JobAlreadyActive"
	evCompleted = "Normal/SawCompletedJob"
)

// expectTick checks the controller's action at a scheduled time; a run whose Job did not appear was
// skipped. It first waits until the controller has acted and asked to be woken for the next scheduled
// time: a skipped run changes nothing else to wait for.
func (s *policyStory) expectTick(ctx SpecContext, tick policyTick) {
	GinkgoHelper()
	Eventually(func() bool { return s.clk.WakeupBy(s.next) }).Should(BeTrue(),
		"the controller should act at %s and requeue itself for the next scheduled time", tick.at)
	if !slices.Contains(s.names(tick.jobs), s.name(tick.at)) {
		s.events[evSkip]++
	}
	s.expect(ctx, tick.jobs, tick.active)
}

// expect waits until the Jobs of the runs `jobs` exist, exactly, and the status and events agree. It does
// not wait to see that nothing more happens: a late extra action fails the next step's exact expectations,
// and the story ends with a Consistently.
func (s *policyStory) expect(ctx SpecContext, jobs, active string) {
	GinkgoHelper()
	runs := strings.Fields(jobs)
	for _, run := range runs {
		if !slices.Contains(s.runs, run) {
			s.started[run] = s.clk.Now()
			if hhmm(run).After(s.lastRun) {
				s.lastRun = hhmm(run)
			}
			s.events[evCreate]++
		}
	}
	for _, run := range s.runs {
		if !slices.Contains(runs, run) {
			s.events[evDelete]++
		}
	}
	s.runs = runs
	want := s.names(jobs)
	Eventually(func(g Gomega) {
		g.Expect(jobNames(listJobs(ctx, g, s.ns))).To(ConsistOf(want), "the Jobs of the runs %s", jobs)
		status := framework.GetCronJob(ctx, g, k8sClient, s.cj).Status
		g.Expect(activeNames(status.Active)).To(ConsistOf(s.names(active)), "status.active: the runs %s", active)
		g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(s.lastRun)))
		g.Expect(status.LastSuccessfulTime).To(BeComparableTo(s.lastSuccess))
		g.Expect(status.LastFailureTime).To(BeComparableTo(s.lastFailure))
		got := eventOccurrences(ctx, g, s.cj)
		for _, reason := range []string{evCreate, evDelete, evSkip} {
			g.Expect(got[reason]).To(Equal(s.events[reason]), reason)
		}
		// A reconcile on a cache that has not seen the last status write may see a completion twice.
		if s.events[evCompleted] > 0 {
			g.Expect(got[evCompleted]).To(BeNumerically(">", 0), evCompleted)
		} else {
			g.Expect(got[evCompleted]).To(BeZero(), evCompleted)
		}
	}).Should(Succeed())
}

// finish plays the Job controller: it sets the clock to the time the Job finishes and writes the Job's
// status. The clock moves between scheduled times only once the controller has asked to be woken for the
// next one, so that the move cannot push that wakeup later (see framework.Clock).
func (s *policyStory) finish(ctx SpecContext, f jobFinish) {
	GinkgoHelper()
	Eventually(func() bool { return s.clk.WakeupBy(s.next) }).Should(BeTrue())
	done := hhmm(f.at)
	s.clk.SetTime(done)
	var job batchv1.Job
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: s.name(f.run)}, &job)).To(Succeed())
	b := builders.FromJob(&job).StartedAt(s.started[f.run])
	switch f.how {
	case batchv1.JobComplete:
		b.Succeeded(done)
		s.lastSuccess = metaTime(done)
	case batchv1.JobFailed:
		b.Failed(done)
		s.lastFailure = metaTime(done)
	default:
		Fail("a Job finishes as JobComplete or JobFailed, not " + string(f.how))
	}
	Expect(k8sClient.Status().Update(ctx, b.Obj())).To(Succeed())
	s.events[evCompleted]++
}

// name is the name of the Job of the run scheduled at "hh:mm".
func (s *policyStory) name(run string) string { return jobNameFor(s.cj, hhmm(run)) }

// names are the names of the Jobs of the space-separated runs.
func (s *policyStory) names(runs string) []string {
	var names []string
	for run := range strings.FieldsSeq(runs) {
		names = append(names, s.name(run))
	}
	return names
}

// eventOccurrences counts, by "<type>/<reason>", the occurrences of the events regarding obj: one per
// event, or its series count. The events.k8s.io recorder folds an event that repeats one of the same type,
// reason and object at the same resourceVersion (whatever its note), such as the JobAlreadyActive of two
// runs skipped in a row, into a series; it writes the count on the second occurrence (later ones only
// every 30 minutes, which no story needs).
func eventOccurrences(ctx SpecContext, g Gomega, obj client.Object) map[string]int {
	events, err := framework.EventsRegarding(ctx, k8sClient, obj)
	g.Expect(err).NotTo(HaveOccurred())
	count := map[string]int{}
	for _, e := range events {
		n := 1
		if e.Series != nil {
			n = int(e.Series.Count)
		}
		count[e.Type+"/"+e.Reason] += n
	}
	return count
}

// hhmm is the instant hh:mm UTC on the day of at().
func hhmm(s string) time.Time { return at(s + ":00") }

// activeNames returns the names of the Jobs in status.active.
func activeNames(refs []corev1.ObjectReference) []string {
	names := make([]string, 0, len(refs))
	for _, ref := range refs {
		names = append(names, ref.Name)
	}
	return names
}

var _ = Describe("Time zone edit", func() {
	// On 2026-03-01 09:00 is 08:00 UTC in Berlin (CET) and 14:00 UTC in New York (EST). The edit is seen at
	// 10:00 UTC: 11:00 in Berlin, 05:00 in New York.
	var (
		berlin, newYork *time.Location
		ns              string
		cj              *cronjobv1.CronJob
	)
	BeforeEach(func(ctx SpecContext) {
		var err error
		berlin, err = time.LoadLocation("Europe/Berlin")
		Expect(err).NotTo(HaveOccurred())
		newYork, err = time.LoadLocation("America/New_York")
		Expect(err).NotTo(HaveOccurred())
		ns = newNamespace(ctx)
		cj = builders.MakeCronJob("nightly", ns).Schedule("0 9 * * *").TimeZone("Europe/Berlin").
			LastScheduleTime(time.Date(2026, 2, 28, 9, 0, 0, 0, berlin)).Obj()
		Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
	})

	// editTimeZone sets spec.timeZone to New York.
	editTimeZone := func(ctx SpecContext) {
		GinkgoHelper()
		patch := client.MergeFrom(cj.DeepCopy())
		cj.Spec.TimeZone = ptr.To("America/New_York")
		Expect(k8sClient.Patch(ctx, cj, patch)).To(Succeed())
	}

	// expectEditSeenAt10 waits until status.observedSchedule records New York, seen at 10:00 UTC.
	expectEditSeenAt10 := func(ctx SpecContext) {
		GinkgoHelper()
		Expect(observedTimeZone(ctx, cj, "America/New_York").Since.Time).To(BeTemporally("==", at("10:00:00")))
	}

	// expectNewYorkRun moves the clock past 09:00 in New York and expects its Job, once, beside `before`.
	expectNewYorkRun := func(ctx SpecContext, clk *framework.Clock, before ...string) {
		GinkgoHelper()
		run := time.Date(2026, 3, 1, 9, 0, 0, 0, newYork)
		clk.AdvanceTo(run.Add(time.Second))
		want := append(before, jobNameFor(cj, run))
		Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(want))
		Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(want))
		var job batchv1.Job
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: jobNameFor(cj, run)}, &job)).To(Succeed())
		Expect(job.Annotations).To(HaveKeyWithValue(cronjobv1.ScheduledAtAnnotation, "2026-03-01T09:00:00-05:00"))
		Eventually(func(g Gomega) {
			status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
			g.Expect(status.LastScheduleTime).To(BeComparableTo(metaTime(run)))
			g.Expect(status.ObservedSchedule).NotTo(BeNil())
			g.Expect(status.ObservedSchedule.TimeZone).To(Equal("America/New_York"))
		}).Should(Succeed())
	}

	When("it is edited from Berlin to New York after 09:00 in Berlin and before 09:00 in New York", func() {
		It("should start no run at the edit, and the 09:00 New York run exactly once", func(ctx SpecContext) {
			By("starting the 09:00 Berlin run")
			clk := startController(ns, at("07:00:00"))
			observedTimeZone(ctx, cj, "Europe/Berlin")
			berlinRun := time.Date(2026, 3, 1, 9, 0, 0, 0, berlin)
			clk.AdvanceTo(berlinRun.Add(time.Second))
			berlinJob := onlyJob(ctx, ns)
			Expect(berlinJob.Name).To(Equal(jobNameFor(cj, berlinRun)))
			Expect(berlinJob.Annotations).To(HaveKeyWithValue(cronjobv1.ScheduledAtAnnotation, "2026-03-01T09:00:00+01:00"))
			Eventually(func(g Gomega) *metav1.Time {
				return framework.GetCronJob(ctx, g, k8sClient, cj).Status.LastScheduleTime
			}).
				Should(BeComparableTo(metaTime(berlinRun)))

			By("editing the time zone at 10:00 UTC")
			Eventually(func() bool { return clk.WakeupBy(berlinRun.Add(24*time.Hour + time.Second)) }).Should(BeTrue(),
				"the controller should requeue itself for the next Berlin run before the clock moves")
			clk.SetTime(at("10:00:00"))
			editTimeZone(ctx)
			expectEditSeenAt10(ctx)
			Consistently(func(g Gomega) []string { return jobNames(listJobs(ctx, g, ns)) }).Should(ConsistOf(berlinJob.Name))

			By("moving the clock past 09:00 in New York, which the controller must now wake up for")
			expectNewYorkRun(ctx, clk, berlinJob.Name)
		})
	})

	When("it is edited to New York while the controller is down over 09:00 in Berlin", func() {
		// Counted from the last run, yesterday 09:00 in Berlin, yesterday 09:00 in New York is unmet: a
		// controller that did not honour the edit's time would start it at once, as batch/v1 does.
		It("should start neither the missed Berlin run nor yesterday's New York run", func(ctx SpecContext) {
			By("observing the Berlin schedule at 07:00 UTC, then stopping the controller")
			_, stop := startStoppableController(ns, at("07:00:00"))
			observedTimeZone(ctx, cj, "Europe/Berlin")
			stop()

			By("editing the time zone, and starting the controller again at 10:00 UTC")
			editTimeZone(ctx)
			clk := startController(ns, at("10:00:00"))
			expectEditSeenAt10(ctx)
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(BeEmpty(),
				"no run due before the edit was seen may start")
			Expect(framework.EventReasonsRegarding(ctx, Default, k8sClient, cj)).NotTo(ContainElement(BeElementOf(
				evCreate, "Warning/MissSchedule", "Warning/TooManyMissedTimes")))

			By("moving the clock past 09:00 in New York")
			expectNewYorkRun(ctx, clk)
		})
	})
})

// observedTimeZone waits until status.observedSchedule records the time zone tz, and returns it.
func observedTimeZone(ctx SpecContext, cj *cronjobv1.CronJob, tz string) *cronjobv1.ObservedSchedule {
	GinkgoHelper()
	var obs *cronjobv1.ObservedSchedule
	Eventually(func(g Gomega) {
		obs = framework.GetCronJob(ctx, g, k8sClient, cj).Status.ObservedSchedule
		g.Expect(obs).NotTo(BeNil())
		g.Expect(obs.TimeZone).To(Equal(tz))
	}).Should(Succeed())
	return obs
}
