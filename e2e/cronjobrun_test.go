//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/cmd/kubectl-cjo/plugin"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// kubectlCJO runs `kubectl cjo args...` in process, with the suite's kubeconfig, as kubectl would run
// the plugin, and returns its output.
func kubectlCJO(ctx context.Context, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := plugin.NewCommand(plugin.NewKubeconfigFactory(), nil, &out, &errOut)
	cmd.SetArgs(append([]string{"--kubeconfig", filepath.Join(settings.artifacts, "kubeconfig")}, args...))
	err := cmd.ExecuteContext(ctx)
	GinkgoWriter.Printf("kubectl cjo %s:\n%s%s", strings.Join(args, " "), out.String(), errOut.String())
	return out.String(), err
}

// runNameIn returns the CronJobRun's name from the first line of `kubectl cjo run`:
// "cronjobrun.batch.cronjob-operator.dev/<name> created".
func runNameIn(out string) string {
	first, _, _ := strings.Cut(out, "\n")
	name, _, _ := strings.Cut(strings.TrimPrefix(first, "cronjobrun.batch.cronjob-operator.dev/"), " created")
	return name
}

var _ = Describe("Manual runs", Label("conformance"), func() {
	It("should run a Job to completion with kubectl cjo run, and prune the run with its Job", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		// Suspended: no scheduled run interferes, and a manual run still starts. One successful Job kept.
		cj := minutely("manual", ns, 0, 0).Suspend().HistoryLimits(1, 1).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		By("running it with kubectl cjo run --wait")
		out, err := kubectlCJO(ctx, "-n", ns, "run", cj.Name, "--wait", "--timeout", settleWait.String())
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring(" Succeeded "))
		first := &cronjobv1.CronJobRun{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: runNameIn(out)}, first)).To(Succeed())
		Expect(first.Status.Phase).To(Equal(cronjobv1.RunSucceeded))
		job := jobsOf(ctx, Default, cj)
		Expect(job).To(HaveLen(1))
		Expect(job[0].Name).To(Equal(first.Status.JobName))
		Expect(job[0].Labels).To(HaveKeyWithValue(cronjobv1.TriggerLabel, cronjobv1.TriggerManual))
		_, how := framework.JobFinished(&job[0])
		Expect(how).To(Equal(batchv1.JobComplete))

		By("running it again: the history limit of 1 deletes the first run's Job, and the first run with it")
		out, err = kubectlCJO(ctx, "-n", ns, "run", cj.Name, "--wait", "--timeout", settleWait.String())
		Expect(err).NotTo(HaveOccurred())
		second := runNameIn(out)
		Eventually(func(g Gomega) []batchv1.Job { return jobsOf(ctx, g, cj) }).WithTimeout(settleWait).
			Should(ConsistOf(HaveField("ObjectMeta.Annotations", HaveKeyWithValue(cronjobv1.CronJobRunAnnotation, second))))
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(first), &cronjobv1.CronJobRun{}))
		}).WithTimeout(settleWait).Should(BeTrue(), "the first run should go with its Job")
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: second}, &cronjobv1.CronJobRun{})).To(Succeed())
	})
})
