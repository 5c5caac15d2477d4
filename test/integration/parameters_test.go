package integration

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// nightlyWithParameters is a CronJob of */5 last scheduled at 10:00, declaring DATE (a date pattern,
// default 2026-01-01) and MODE (full or delta, default full), whose container sets MODE itself (the
// parameter overrides it) and which has an init container.
func nightlyWithParameters(ns string) *cronjobv1.CronJob {
	return builders.MakeCronJob("nightly", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).
		PatternParameter("DATE", "2026-01-01", `^\d{4}-\d{2}-\d{2}$`).EnumParameter("MODE", "full", "full", "delta").
		Env("MODE", "from-template").InitContainer("fetch", "true").Obj()
}

// envOf is the env of each container and init container of the Job, by container name.
func envOf(job *batchv1.Job) map[string][]corev1.EnvVar {
	env := map[string][]corev1.EnvVar{}
	spec := job.Spec.Template.Spec
	for _, c := range append(spec.InitContainers, spec.Containers...) {
		env[c.Name] = c.Env
	}
	return env
}

var _ = Describe("Parameters", func() {
	var (
		ns  string
		cj  *cronjobv1.CronJob
		clk *framework.Clock
	)

	When("a CronJob declares parameters", func() {
		BeforeEach(func(ctx SpecContext) {
			ns = newNamespace(ctx)
			cj = nightlyWithParameters(ns)
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			clk = startController(ns, at("10:02:00"))
		})

		It("should give the Job of a scheduled run the defaults, in every container's env and the annotation", func(ctx SpecContext) {
			clk.AdvanceTo(at("10:05:01"))

			job := onlyJob(ctx, ns)
			Expect(job.Name).To(Equal(jobNameFor(cj, at("10:05:00"))))
			Expect(envOf(&job)).To(Equal(map[string][]corev1.EnvVar{
				"fetch": {{Name: "DATE", Value: "2026-01-01"}, {Name: "MODE", Value: "full"}},
				"main":  {{Name: "MODE", Value: "full"}, {Name: "DATE", Value: "2026-01-01"}},
			}))
			Expect(job.Annotations).To(HaveKeyWithValue(cronjobv1.ParametersAnnotation, `{"DATE":"2026-01-01","MODE":"full"}`))
		})

		It("should give the Job of a CronJobRun the run's values, and the defaults for the others", func(ctx SpecContext) {
			run := builders.MakeCronJobRun("", ns, cj.Name).GenerateName(cj.Name+"-").Parameter("DATE", "2026-02-28").Obj()

			jobName := runningJobOf(ctx, run)

			job := onlyJob(ctx, ns)
			Expect(job.Name).To(Equal(jobName))
			Expect(envOf(&job)).To(Equal(map[string][]corev1.EnvVar{
				"fetch": {{Name: "DATE", Value: "2026-02-28"}, {Name: "MODE", Value: "full"}},
				"main":  {{Name: "MODE", Value: "full"}, {Name: "DATE", Value: "2026-02-28"}},
			}))
			Expect(job.Annotations).To(HaveKeyWithValue(cronjobv1.ParametersAnnotation, `{"DATE":"2026-02-28","MODE":"full"}`))
			Expect(job.Annotations).To(HaveKeyWithValue(cronjobv1.CronJobRunAnnotation, run.Name))
		})

		It("should refuse at admission a CronJobRun whose value does not fit, naming the parameter", func(ctx SpecContext) {
			run := builders.MakeCronJobRun("bad-date", ns, cj.Name).Parameter("MODE", "delta").Parameter("DATE", "01/03/2026").Obj()

			err := k8sClient.Create(ctx, run)

			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
			Expect(err.Error()).To(ContainSubstring(`spec.parameters[DATE]: Invalid value: "01/03/2026": does not match the pattern ^\d{4}-\d{2}-\d{2}$ of CronJob nightly's parameter DATE`))
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(BeEmpty())
		})

		It("should refuse a change of a CronJobRun's values", func(ctx SpecContext) {
			run := builders.MakeCronJobRun("fixed", ns, cj.Name).Parameter("MODE", "delta").Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed())

			run.Spec.Parameters[0].Value = "full"
			err := k8sClient.Update(ctx, run)

			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
			Expect(err.Error()).To(ContainSubstring("spec.parameters is immutable: create another CronJobRun"))
		})
	})

	When("a CronJobRun whose values do not fit was admitted without the webhook", func() {
		It("should be Rejected with reason InvalidParameters and a Warning event, and create no Job", func(ctx SpecContext) {
			ns = newNamespaceWithoutWebhooks(ctx)
			cj = nightlyWithParameters(ns)
			Expect(framework.CreateCronJob(ctx, k8sClient, cj)).To(Succeed())
			run := builders.MakeCronJobRun("bad-mode", ns, cj.Name).Parameter("MODE", "fast").Obj()
			Expect(k8sClient.Create(ctx, run)).To(Succeed(), "no webhook checks the values in this namespace")
			startController(ns, at("10:02:00"))

			Eventually(func(g Gomega) {
				got := getRun(ctx, g, run)
				g.Expect(got.Status.Phase).To(Equal(cronjobv1.RunRejected))
				g.Expect(runReady(got)).To(SatisfyAll(
					HaveField("Status", metav1.ConditionFalse),
					HaveField("Reason", cronjobv1.ReasonInvalidParameters),
					HaveField("Message", ContainSubstring(`spec.parameters[MODE]: Invalid value: "fast": is not one of the values of CronJob nightly's parameter MODE: "full", "delta"`))))
			}).Should(Succeed())
			Eventually(func(g Gomega) []string { return framework.EventReasonsRegarding(ctx, g, k8sClient, run) }).
				Should(ContainElement("Warning/" + cronjobv1.ReasonInvalidParameters))
			Consistently(func(g Gomega) []batchv1.Job { return listJobs(ctx, g, ns) }).Should(BeEmpty())
		})
	})
})
