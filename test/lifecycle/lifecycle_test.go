//go:build lifecycle

package lifecycle

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/cluster"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// t0 is the last scheduled time of every CronJob of these specs, on ours' fake clock; their schedule is
// minutely, so the runs are due at t0 + n minutes.
var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func slot(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

// due moves ours' clock to a second past slot n, once ours has asked to be woken for it (it requeues a
// few milliseconds past a scheduled time).
func due(clk *framework.Clock, n int) {
	GinkgoHelper()
	clk.AdvanceTo(slot(n).Add(time.Second))
}

// minutely builds a CronJob that last ran at t0 and runs every minute.
func minutely(name, ns string) *builders.CronJobWrapper {
	return builders.MakeCronJob(name, ns).Schedule("* * * * *").LastScheduleTime(t0)
}

// start creates cj, starts an oracle of its namespace's Jobs and ours on a fake clock at t0 + 30 s.
func start(ctx context.Context, cj *cronjobv1.CronJob) (*framework.Clock, *framework.JobOracle) {
	GinkgoHelper()
	oracle := framework.StartSpecJobOracle(ctx, cfg, cj.Namespace)
	Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
	clk := framework.NewClock(t0.Add(30 * time.Second))
	DeferCleanup(fwk.StartManager(framework.ManagerOptions{Namespace: cj.Namespace, Clock: clk}).Stop)
	return clk, oracle
}

func jobName(cj *cronjobv1.CronJob, t time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, t.Unix()/60)
}

// jobNames returns the names of the Jobs in ns.
func jobNames(ctx context.Context, ns string) func(Gomega) []string {
	return func(g Gomega) []string {
		var jobs batchv1.JobList
		g.Expect(k8sClient.List(ctx, &jobs, client.InNamespace(ns))).To(Succeed())
		names := []string{}
		for _, j := range jobs.Items {
			names = append(names, j.Name)
		}
		return names
	}
}

// podPhases returns the phases of the Pods of the Job named job (by the Job controller's label).
func podPhases(ctx context.Context, ns, job string) func(Gomega) []corev1.PodPhase {
	return func(g Gomega) []corev1.PodPhase {
		var pods corev1.PodList
		g.Expect(k8sClient.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{batchv1.JobNameLabel: job})).To(Succeed())
		phases := []corev1.PodPhase{}
		for _, p := range pods.Items {
			phases = append(phases, p.Status.Phase)
		}
		return phases
	}
}

// jobFinished returns the type of the Job's terminal condition (Complete or Failed), "" while it runs.
func jobFinished(ctx context.Context, ns, name string) func(Gomega) batchv1.JobConditionType {
	return func(g Gomega) batchv1.JobConditionType {
		var job batchv1.Job
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &job)).To(Succeed())
		for _, c := range job.Status.Conditions {
			if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
				return c.Type
			}
		}
		return ""
	}
}

// status returns the CronJob's status as the API server has it.
func status(ctx context.Context, cj *cronjobv1.CronJob) func(Gomega) cronjobv1.CronJobStatus {
	return func(g Gomega) cronjobv1.CronJobStatus {
		var got cronjobv1.CronJob
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &got)).To(Succeed())
		return got.Status
	}
}

func activeNames(s cronjobv1.CronJobStatus) []string {
	names := []string{}
	for _, r := range s.Active {
		names = append(names, r.Name)
	}
	return names
}

func ready(s cronjobv1.CronJobStatus) metav1.ConditionStatus {
	if c := meta.FindStatusCondition(s.Conditions, cronjobv1.ConditionReady); c != nil {
		return c.Status
	}
	return metav1.ConditionUnknown
}

// runs returns the scheduled times of the runs the oracle saw, one per Job: a run started twice shows twice.
func runs(oracle *framework.JobOracle, cj *cronjobv1.CronJob) func() []time.Time {
	return func() []time.Time { return oracle.ScheduledTimes(cj.UID) }
}

var _ = Describe("Jobs that run", func() {
	It("Replace deletes the running Job, and the garbage collector its Pod", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("replaced", ns).Replace().BackoffLimit(0).PodAnnotation(cluster.RunForAnnotation, "10m").Obj()
		clk, oracle := start(ctx, cj)

		By("starting the run of 10:01, whose Pod runs")
		due(clk, 1)
		first := jobName(cj, slot(1))
		Eventually(podPhases(ctx, ns, first)).Should(Equal([]corev1.PodPhase{corev1.PodRunning}))

		By("replacing it with the run of 10:02")
		due(clk, 2)
		second := jobName(cj, slot(2))
		Eventually(podPhases(ctx, ns, second)).Should(Equal([]corev1.PodPhase{corev1.PodRunning}))
		Eventually(jobNames(ctx, ns)).Should(ConsistOf(second))
		Eventually(podPhases(ctx, ns, first)).Should(BeEmpty(), "the replaced Job's Pod is deleted with it")
		Eventually(func(g Gomega) []string { return activeNames(status(ctx, cj)(g)) }).Should(ConsistOf(second))
		Expect(runs(oracle, cj)()).To(Equal([]time.Time{slot(1), slot(2)}))
	})

	It("prunes succeeded Jobs beyond successfulJobsHistoryLimit once they really complete", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("pruned", ns).HistoryLimits(1, 1).PodAnnotation(cluster.RunForAnnotation, "1s").Obj()
		clk, oracle := start(ctx, cj)

		for n := 1; n <= 2; n++ {
			By(fmt.Sprintf("running the run of 10:0%d to completion", n))
			due(clk, n)
			Eventually(jobFinished(ctx, ns, jobName(cj, slot(n)))).Should(Equal(batchv1.JobComplete))
		}
		Eventually(jobNames(ctx, ns)).Should(ConsistOf(jobName(cj, slot(2))), "the older succeeded Job is pruned")
		Eventually(podPhases(ctx, ns, jobName(cj, slot(1)))).Should(BeEmpty(), "with its Pod")
		var last batchv1.Job
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: jobName(cj, slot(2))}, &last)).To(Succeed())
		Eventually(func(g Gomega) {
			s := status(ctx, cj)(g)
			g.Expect(s.LastSuccessfulTime).NotTo(BeNil())
			g.Expect(s.LastSuccessfulTime.Time).To(BeTemporally("==", last.Status.CompletionTime.Time), "the completion of the newest Job")
			g.Expect(s.Active).To(BeEmpty())
		}).Should(Succeed())
		Expect(runs(oracle, cj)()).To(Equal([]time.Time{slot(1), slot(2)}))
	})

	It("reports a Job whose Pod fails: lastFailureTime, the failed history, and Ready stays True", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("failing", ns).HistoryLimits(3, 1).BackoffLimit(0).
			PodAnnotation(cluster.RunForAnnotation, "1s").PodAnnotation(cluster.OutcomeAnnotation, cluster.OutcomeFail).Obj()
		clk, oracle := start(ctx, cj)

		var failedAt []time.Time
		for n := 1; n <= 2; n++ {
			By(fmt.Sprintf("running the run of 10:0%d until its Pod fails", n))
			due(clk, n)
			name := jobName(cj, slot(n))
			Eventually(jobFinished(ctx, ns, name)).Should(Equal(batchv1.JobFailed))
			Expect(podPhases(ctx, ns, name)(Default)).To(Equal([]corev1.PodPhase{corev1.PodFailed}))
			var job batchv1.Job
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &job)).To(Succeed())
			cond := jobCondition(&job, batchv1.JobFailed)
			failedAt = append(failedAt, cond.LastTransitionTime.Time)
			Eventually(func(g Gomega) {
				s := status(ctx, cj)(g)
				g.Expect(s.LastFailureTime).NotTo(BeNil())
				g.Expect(s.LastFailureTime.Time).To(BeTemporally("==", cond.LastTransitionTime.Time), "when the Job failed")
				g.Expect(s.LastSuccessfulTime).To(BeNil())
				g.Expect(ready(s)).To(Equal(metav1.ConditionTrue), "a failing workload is not a broken CronJob")
			}).Should(Succeed())
		}
		Eventually(jobNames(ctx, ns)).Should(ConsistOf(jobName(cj, slot(2))), "failedJobsHistoryLimit 1 keeps the newest")
		Expect(failedAt[1]).NotTo(BeTemporally("<", failedAt[0]))
		Expect(runs(oracle, cj)()).To(Equal([]time.Time{slot(1), slot(2)}))
	})

	It("never runs again a Job that finished and was deleted by ttlSecondsAfterFinished: 0", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("ephemeral", ns).JobTTLSecondsAfterFinished(0).PodAnnotation(cluster.RunForAnnotation, "1s").Obj()
		clk, oracle := start(ctx, cj)

		By("running the run of 10:01, which the TTL-after-finished controller deletes once it completes")
		due(clk, 1)
		Eventually(runs(oracle, cj)).Should(Equal([]time.Time{slot(1)}))
		Eventually(jobNames(ctx, ns)).Should(BeEmpty())
		clk.Step(20 * time.Second) // 10:01:21, still within the minute of 10:01
		Consistently(runs(oracle, cj)).Should(Equal([]time.Time{slot(1)}), "the deleted Job's run is not started again")
		Eventually(func(g Gomega) {
			s := status(ctx, cj)(g)
			g.Expect(s.LastScheduleTime).NotTo(BeNil())
			g.Expect(s.LastScheduleTime.Time).To(BeTemporally("==", slot(1)))
			g.Expect(s.Active).To(BeEmpty())
		}).Should(Succeed())

		By("running the next minute's run once")
		due(clk, 2)
		Eventually(runs(oracle, cj)).Should(Equal([]time.Time{slot(1), slot(2)}))
		Eventually(jobNames(ctx, ns)).Should(BeEmpty())
		Consistently(runs(oracle, cj)).Should(Equal([]time.Time{slot(1), slot(2)}))
	})

	It("Forbid starts the skipped run as soon as the active Job really completes", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cj := minutely("forbidden", ns).Forbid().PodAnnotation(cluster.RunForAnnotation, "8s").Obj()
		clk, oracle := start(ctx, cj)

		By("starting the run of 10:01, whose Pod runs 8 s")
		due(clk, 1)
		Eventually(podPhases(ctx, ns, jobName(cj, slot(1)))).Should(Equal([]corev1.PodPhase{corev1.PodRunning}))

		By("holding the run of 10:02 while it runs")
		due(clk, 2)
		Consistently(runs(oracle, cj)).WithTimeout(2 * time.Second).Should(Equal([]time.Time{slot(1)}))
		Expect(jobFinished(ctx, ns, jobName(cj, slot(1)))(Default)).To(BeEmpty(), "the spec held the run while the first Job was active")

		By("starting it once the Job completes, with no move of ours' clock")
		Eventually(jobFinished(ctx, ns, jobName(cj, slot(1)))).Should(Equal(batchv1.JobComplete))
		Eventually(runs(oracle, cj)).Should(Equal([]time.Time{slot(1), slot(2)}))
		Eventually(jobFinished(ctx, ns, jobName(cj, slot(2)))).Should(Equal(batchv1.JobComplete))
		Consistently(runs(oracle, cj)).Should(Equal([]time.Time{slot(1), slot(2)}))
	})
})

func jobCondition(job *batchv1.Job, t batchv1.JobConditionType) batchv1.JobCondition {
	GinkgoHelper()
	for _, c := range job.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	Fail(fmt.Sprintf("Job %s has no condition %s", job.Name, t))
	return batchv1.JobCondition{}
}
