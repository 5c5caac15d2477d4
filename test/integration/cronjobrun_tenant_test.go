package integration

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// Manual runs when a tenant asks for many: the runs of a CronJob wait in line behind a Forbid Job, the
// line has a cap, and a Rejected run goes with its CronJob. And the manager's cache, which holds every Job
// of its namespaces without its pod template.

// unfinished returns the names of the Jobs that have not finished.
func unfinished(jobs []batchv1.Job) []string {
	var out []string
	for _, j := range jobs {
		done := false
		for _, c := range j.Status.Conditions {
			if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
				done = true
			}
		}
		if !done && j.DeletionTimestamp == nil {
			out = append(out, j.Name)
		}
	}
	return out
}

var _ = Describe("Manual runs of one CronJob at scale", func() {
	var (
		ns string
		cj *cronjobv1.CronJob
	)

	// forbidWithActiveJob creates a Forbid CronJob of */5 last scheduled at 10:00, starts a manager at
	// 10:05:30 with opts (Namespace and Clock set here), and returns the 10:05 Job, active.
	forbidWithActiveJob := func(ctx SpecContext, opts framework.ManagerOptions) (batchv1.Job, *framework.Manager) {
		GinkgoHelper()
		ns = newNamespace(ctx)
		cj = builders.MakeCronJob("line", ns).Schedule("*/5 * * * *").Forbid().LastScheduleTime(at("10:00:00")).Obj()
		Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
		opts.Namespace, opts.Clock = ns, framework.NewClock(at("10:05:30"))
		m := fwk.StartManager(opts)
		DeferCleanup(m.Stop)
		return onlyJob(ctx, ns), m
	}

	When("50 CronJobRuns wait behind a Forbid Job", func() {
		It("should start them one by one, oldest first, each once", func(ctx SpecContext) {
			active, _ := forbidWithActiveJob(ctx, framework.ManagerOptions{MaxConcurrentReconciles: 4})
			const n = 50
			runs := make([]*cronjobv1.CronJobRun, n)
			for i := range runs {
				runs[i] = builders.MakeCronJobRun(fmt.Sprintf("run-%02d", i), ns, cj.Name).Obj()
				Expect(k8sClient.Create(ctx, runs[i])).To(Succeed())
			}
			Eventually(func(g Gomega) {
				for _, run := range runs {
					g.Expect(getRun(ctx, g, run).Status.Phase).To(Equal(cronjobv1.RunPending), run.Name)
				}
			}).Should(Succeed())

			jobs := []string{active.Name}
			for i, run := range runs {
				Expect(k8sClient.Status().Update(ctx, builders.FromJob(&active).StartedAt(at("10:05:30")).Succeeded(at("10:06:00")).Obj())).To(Succeed())
				Eventually(func(g Gomega) {
					got := getRun(ctx, g, run)
					g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunRunning))
					g.Expect(got.Status.JobName).NotTo(BeEmpty())
				}).Should(Succeed(), "run %d of %d", i, n)
				name := getRun(ctx, Default, run).Status.JobName
				jobs = append(jobs, name)
				all := listJobs(ctx, Default, ns)
				// The CronJob's history limits delete the oldest finished Jobs (and their runs with them).
				Expect(jobs).To(ContainElements(jobNames(all)), "no Job but one per run that started")
				Expect(unfinished(all)).To(ConsistOf(name), "Forbid: only the newest run's Job is active")
				if i+1 < n {
					Expect(getRun(ctx, Default, runs[i+1]).Status.Phase).To(Equal(cronjobv1.RunPending), "the next run still waits")
				}
				Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &active)).To(Succeed())
			}
		})
	})

	When("more CronJobRuns wait than the cap on waiting runs", func() {
		It("should reject the runs beyond it with TooManyWaitingRuns, owned by the CronJob", func(ctx SpecContext) {
			forbidWithActiveJob(ctx, framework.ManagerOptions{MaxWaitingRunsPerCronJob: 3})
			runs := make([]*cronjobv1.CronJobRun, 5)
			for i := range runs {
				runs[i] = builders.MakeCronJobRun(fmt.Sprintf("run-%d", i), ns, cj.Name).Obj()
				Expect(k8sClient.Create(ctx, runs[i])).To(Succeed())
				// One at a time, so the line is in creation order whatever the second each was created in.
				Eventually(func(g Gomega) cronjobv1.CronJobRunPhase { return getRun(ctx, g, runs[i]).Status.Phase }).ShouldNot(BeEmpty())
			}
			for _, run := range runs[:3] {
				Expect(getRun(ctx, Default, run).Status.Phase).To(Equal(cronjobv1.RunPending), run.Name)
			}
			for _, run := range runs[3:] {
				got := getRun(ctx, Default, run)
				Expect(got.Status.Phase).To(Equal(cronjobv1.RunRejected), run.Name)
				Expect(runReady(got).Reason).To(Equal(cronjobv1.ReasonTooManyWaitingRuns))
				Expect(runReady(got).Message).To(ContainSubstring("has 3 CronJobRuns waiting already"))
				Expect(got.OwnerReferences).To(ConsistOf(And(HaveField("Kind", "CronJob"), HaveField("UID", cj.UID))))
				Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, run) }).Should(ContainElement("Warning/TooManyWaitingRuns"))
			}
			Expect(listJobs(ctx, Default, ns)).To(HaveLen(1))
		})
	})

	When("a CronJobRun of an existing CronJob is Rejected", func() {
		It("should be owned by the CronJob, so it goes with it", func(ctx SpecContext) {
			forbidWithActiveJob(ctx, framework.ManagerOptions{})
			run := builders.MakeCronJobRun("future", ns, cj.Name).ScheduledTime(at("11:00:00")).Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())
			Eventually(func(g Gomega) {
				got := getRun(ctx, g, run)
				g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunRejected))
				g.Expect(runReady(got).Reason).To(Equal(cronjobv1.ReasonScheduledTimeInFuture))
				g.Expect(got.OwnerReferences).To(ConsistOf(metav1.OwnerReference{
					APIVersion: cronjobv1.GroupVersion.String(), Kind: "CronJob", Name: cj.Name, UID: cj.UID,
				}))
			}).Should(Succeed())
		})
	})
})

var _ = Describe("The manager's cache", func() {
	When("Jobs with large pod templates exist, ours and others'", func() {
		It("should hold them without their template, and still follow the CronJob's Jobs", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("report", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			big := strings.Repeat("x", 256<<10)
			foreign := builders.MakeJob("foreign", ns).Obj()
			foreign.Spec.Template.Spec.Containers[0].Command = []string{"sh", "-c", big}
			Expect(framework.CreateJob(ctx, k8sClient, foreign)).To(Succeed())
			m := fwk.StartManager(framework.ManagerOptions{Namespace: ns, Clock: framework.NewClock(at("10:02:00"))})
			DeferCleanup(m.Stop)

			run := builders.MakeCronJobRun("now", ns, cj.Name).Obj()
			name := runningJobOf(ctx, run)
			for _, job := range []string{"foreign", name} {
				var cached, live batchv1.Job
				Eventually(func() error {
					return m.Cache().Get(ctx, client.ObjectKey{Namespace: ns, Name: job}, &cached)
				}).Should(Succeed())
				Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: job}, &live)).To(Succeed())
				Expect(live.Spec.Template.Spec.Containers).NotTo(BeEmpty(), "the API server has the template of %s", job)
				Expect(cached.Spec.Template).To(BeZero(), "the cache holds %s without its template", job)
				Expect(cached.ManagedFields).To(BeEmpty())
				Expect(cached.OwnerReferences).To(Equal(live.OwnerReferences))
				ours := map[string]string{}
				for k, v := range live.Annotations {
					if strings.HasPrefix(k, cronjobv1.ReservedPrefix) {
						ours[k] = v
					}
				}
				if len(ours) == 0 {
					ours = nil
				}
				Expect(cached.Annotations).To(Equal(ours), "our group's annotations are kept, batch/v1's and others' dropped")
			}

			By("following the run's Job to its end, and the CronJob's history")
			var job batchv1.Job
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &job)).To(Succeed())
			Expect(k8sClient.Status().Update(ctx, builders.FromJob(&job).StartedAt(at("10:02:00")).Succeeded(at("10:03:00")).Obj())).To(Succeed())
			Eventually(func(g Gomega) cronjobv1.CronJobRunPhase { return getRun(ctx, g, run).Status.Phase }).Should(Equal(cronjobv1.RunSucceeded))
			Eventually(func(g Gomega) {
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.Active).To(BeEmpty())
				g.Expect(status.LastSuccessfulTime).NotTo(BeNil())
			}).Should(Succeed())
		})
	})
})
