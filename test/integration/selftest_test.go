package integration

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/selftest"
)

// The checks of `helm test` (manager --self-test) against the suite's control plane, which has the CRD in
// v1 and v2, the admission webhooks and the conversion webhook, as a release with webhooks has.
var _ = Describe("Self test", func() {
	It("should pass every check, each a dry run that leaves no CronJob", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		var out bytes.Buffer
		Expect(selftest.Run(ctx, k8sClient, selftest.Options{Namespace: ns, Webhooks: true}, &out)).To(Succeed(), out.String())
		Expect(out.String()).To(Equal("ok   a valid CronJob is admitted (dry run)\n" +
			"ok   the admission webhook refuses the schedule 61 * * * *\n" +
			"ok   the conversion webhook converts a v2 CronJob (dry run)\n"))
		var left cronjobv1.CronJobList
		Expect(k8sClient.List(ctx, &left)).To(Succeed())
		for _, cj := range left.Items {
			Expect(cj.Namespace).NotTo(Equal(ns), "a dry run left %s", cj.Name)
		}
	})

	It("should fail the webhook check in a namespace the webhooks skip, saying the webhook did not judge", func(ctx SpecContext) {
		ns := newNamespaceWithoutWebhooks(ctx)
		var out bytes.Buffer
		err := selftest.Run(ctx, k8sClient, selftest.Options{Namespace: ns, Webhooks: true}, &out)
		Expect(err).To(MatchError(ContainSubstring("1 of the checks failed: the admission webhook refuses the schedule")))
		Expect(out.String()).To(ContainSubstring("FAIL the admission webhook refuses the schedule 61 * * * *: it was admitted: the webhook did not judge it"))
	})
})
