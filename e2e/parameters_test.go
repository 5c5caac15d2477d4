//go:build e2e

package e2e

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// logsOf returns the log of the container of the Pod.
func logsOf(ctx context.Context, g Gomega, pod *corev1.Pod, container string) string {
	raw, err := clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Container: container}).DoRaw(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	return string(raw)
}

var _ = Describe("Parameters", Label("conformance"), func() {
	It("should run a parameterised manual run whose Pod prints its parameter", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		// Suspended: no scheduled run interferes. The init container reads DATE through $(DATE), which the
		// kubelet expands in args; the main container through the shell, with MODE from its own env replaced.
		cj := builders.MakeCronJob("report", ns).Schedule("* * * * *").Image(settings.busyboxImage).Suspend().
			PatternParameter("DATE", "2026-01-01", `^\d{4}-\d{2}-\d{2}$`).EnumParameter("MODE", "full", "full", "delta").
			Command("sh", "-c", `echo "report for $DATE in mode $MODE"`).Env("MODE", "from-template").
			InitContainer("announce", "echo", "fetching $(DATE)").Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		By("refusing a value that does not match the pattern, before any run is created")
		_, err := kubectlCJO(ctx, "-n", ns, "run", cj.Name, "-p", "DATE=01/03/2026")
		Expect(err).To(MatchError(ContainSubstring("-p DATE=01/03/2026: does not match the pattern")))
		var runs cronjobv1.CronJobRunList
		Expect(k8sClient.List(ctx, &runs, client.InNamespace(ns))).To(Succeed())
		Expect(runs.Items).To(BeEmpty())

		By("refusing the same value at admission, from a client that does not check it")
		err = k8sClient.Create(ctx, builders.MakeCronJobRun("bad-date", ns, cj.Name).Parameter("DATE", "01/03/2026").Obj())
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
		Expect(err.Error()).To(ContainSubstring(`spec.parameters[DATE]: Invalid value: "01/03/2026": does not match the pattern ^\d{4}-\d{2}-\d{2}$ of CronJob report's parameter DATE`))

		By("running it with kubectl cjo run -p DATE=2026-03-01 --wait")
		out, err := kubectlCJO(ctx, "-n", ns, "run", cj.Name, "-p", "DATE=2026-03-01", "--wait", "--timeout", settleWait.String())
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring(" Succeeded "))
		run := &cronjobv1.CronJobRun{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: runNameIn(out)}, run)).To(Succeed())
		Expect(run.Spec.Parameters).To(Equal([]cronjobv1.ParameterValue{{Name: "DATE", Value: "2026-03-01"}}))

		jobs := jobsOf(ctx, Default, cj)
		Expect(jobs).To(HaveLen(1))
		job := jobs[0]
		Expect(job.Name).To(Equal(run.Status.JobName))
		Expect(job.Annotations).To(HaveKeyWithValue(cronjobv1.ParametersAnnotation, `{"DATE":"2026-03-01","MODE":"full"}`))

		By("reading what its Pod printed")
		Eventually(func(g Gomega) {
			var succeeded []corev1.Pod
			for _, p := range podsOf(ctx, g, ns, job.UID) {
				if p.Status.Phase == corev1.PodSucceeded {
					succeeded = append(succeeded, p)
				}
			}
			g.Expect(succeeded).To(HaveLen(1))
			g.Expect(logsOf(ctx, g, &succeeded[0], "main")).To(Equal("report for 2026-03-01 in mode full\n"))
			g.Expect(logsOf(ctx, g, &succeeded[0], "announce")).To(Equal("fetching 2026-03-01\n"))
		}).WithTimeout(settleWait).Should(Succeed())
		Expect(job.Spec.Template.Spec.Containers[0].Env).To(Equal([]corev1.EnvVar{
			{Name: "MODE", Value: "full"}, {Name: "DATE", Value: "2026-03-01"}}))
	})
})
