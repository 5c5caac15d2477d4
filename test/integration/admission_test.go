package integration

import (
	"context"
	"sort"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/fixtures"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

var _ = Describe("Admission", func() {
	When("a CronJob is created", func() {
		var ns string
		BeforeEach(func(ctx SpecContext) {
			ns = newNamespace(ctx)
		})

		DescribeTable("should reject an invalid field with a message that says what to fix",
			func(ctx SpecContext, build func(ns string) *cronjobv1.CronJob, wantMessage string) {
				err := k8sClient.Create(ctx, build(ns))
				Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
				Expect(err.Error()).To(ContainSubstring(wantMessage))
			},
			Entry("a name longer than 52 characters",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob(strings.Repeat("a", cronjobv1.MaxNameLength+1), ns).Obj()
				},
				"metadata.name must be at most 52 characters: Job names add a dash and the scheduled minute"),
			Entry("a TZ= prefix in the schedule",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("tz", ns).Schedule("TZ=Europe/Berlin 0 3 * * *").Obj()
				},
				"schedule must not contain TZ= or CRON_TZ=: remove the prefix and set spec.timeZone"),
			Entry("a CRON_TZ= prefix in the schedule",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("crontz", ns).Schedule("CRON_TZ=UTC 0 3 * * *").Obj()
				},
				"schedule must not contain TZ= or CRON_TZ=: remove the prefix and set spec.timeZone"),
			Entry("a blank schedule",
				func(ns string) *cronjobv1.CronJob { return builders.MakeCronJob("blank", ns).Schedule("  ").Obj() },
				"schedule must not be blank: give a cron expression such as '*/5 * * * *'"),
			Entry("a negative startingDeadlineSeconds",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("deadline", ns).StartingDeadlineSeconds(-1).Obj()
				},
				"spec.startingDeadlineSeconds in body should be greater than or equal to 0"),
			Entry("a negative successfulJobsHistoryLimit",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("history", ns).HistoryLimits(-1, 1).Obj()
				},
				"spec.successfulJobsHistoryLimit in body should be greater than or equal to 0"),
		)

		It("should accept a name of exactly 52 characters", func(ctx SpecContext) {
			cj := builders.MakeCronJob(strings.Repeat("a", cronjobv1.MaxNameLength), ns).Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		})

		It("should store the batch/v1 defaults when the spec leaves them unset", func(ctx SpecContext) {
			cj := builders.MakeCronJob("defaults", ns).Obj()
			Expect(cj.Spec.ConcurrencyPolicy).To(BeEmpty())
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())

			got := framework.GetCronJob(ctx, Default, k8sClient, cj)
			Expect(got.Spec.ConcurrencyPolicy).To(Equal(cronjobv1.AllowConcurrent))
			Expect(got.Spec.Suspend).To(Equal(ptr.To(false)))
			Expect(got.Spec.SuccessfulJobsHistoryLimit).To(Equal(ptr.To(cronjobv1.DefaultSuccessfulJobsHistoryLimit)))
			Expect(got.Spec.FailedJobsHistoryLimit).To(Equal(ptr.To(cronjobv1.DefaultFailedJobsHistoryLimit)))
			Expect(got.Spec.Schedule).To(Equal(builders.DefaultSchedule))
		})
	})

	When("a CronJob is created where the admission webhook does not reach", func() {
		DescribeTable("should still reject a time zone of the wrong format, as batch/v1 does, through the CRD's CEL rules",
			func(ctx SpecContext, tz, wantMessage string) {
				ns := newNamespaceWithoutWebhooks(ctx)
				err := k8sClient.Create(ctx, builders.MakeCronJob("tz", ns).TimeZone(tz).Obj())
				Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
				Expect(err.Error()).To(ContainSubstring(wantMessage))
			},
			Entry("Local", "Local", "not Local"),
			Entry("local, in lower case", "local", "not Local"),
			Entry("a leading slash", "/etc/localtime", "no leading '/'"),
			Entry("a '..' element", "Europe/../Berlin", "no '.' or '..' element"),
			Entry("an element starting with '-'", "Etc/-1", "none starting with '-'"),
			Entry("an element longer than 14 characters", "America/Argentina_Buenos_Aires", "1 to 14 letters"),
			Entry("a space", "Europe/New York", "1 to 14 letters"),
			Entry("an empty string", "", "spec.timeZone in body should be at least 1 chars long"),
		)

		It("should admit a well-formed time zone it cannot check, leaving that to the webhook and the controller", func(ctx SpecContext) {
			ns := newNamespaceWithoutWebhooks(ctx)
			Expect(k8sClient.Create(ctx, builders.MakeCronJob("tz", ns).TimeZone("Mars/Phobos").Obj())).To(Succeed())
			Expect(k8sClient.Create(ctx, builders.MakeCronJob("tz-utc", ns).TimeZone("Etc/GMT+5").Obj())).To(Succeed())
		})
	})

	When("a CronJob from fixtures/ is created", func() {
		var ns string
		BeforeEach(func(ctx SpecContext) {
			ns = newNamespace(ctx)
		})

		DescribeTable("should admit valid-*.yaml and reject invalid-*.yaml with the message of its comment",
			func(ctx SpecContext, name string, data []byte) {
				var obj unstructured.Unstructured
				Expect(yaml.Unmarshal(data, &obj.Object)).To(Succeed(), "decoding %s", name)
				obj.SetNamespace(ns)
				c, warnings := warningClient()

				err := c.Create(ctx, &obj)

				if strings.HasPrefix(name, "invalid-") {
					want := fixtures.Comment(data, "expect")
					Expect(want).NotTo(BeEmpty(), "%s has no first-line comment '# expect: <message>'", name)
					Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
					Expect(err.Error()).To(ContainSubstring(want))
					return
				}
				Expect(err).NotTo(HaveOccurred())
				if want := fixtures.Comment(data, "warning"); want != "" {
					Expect(warnings.get()).To(ContainElement(ContainSubstring(want)))
				} else {
					Expect(warnings.get()).To(BeEmpty())
				}
			},
			fixtureEntries(),
		)
	})
})

// fixtureEntries returns one table entry per file of fixtures/, in name order, with the file's name and
// content as parameters.
func fixtureEntries() []TableEntry {
	all := fixtures.All()
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	entries := make([]TableEntry, 0, len(names))
	for _, name := range names {
		entries = append(entries, Entry(name, name, all[name]))
	}
	return entries
}

// warningRecorder is a rest.WarningHandlerWithContext that keeps the warnings the API server returns.
type warningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

// HandleWarningHeaderWithContext records the text of a warning.
func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warnings = append(w.warnings, text)
}

// get returns the warnings recorded so far.
func (w *warningRecorder) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.warnings...)
}

// warningClient returns a live client of the control plane and the recorder of the warnings its requests
// get back.
func warningClient() (client.Client, *warningRecorder) {
	GinkgoHelper()
	warnings := &warningRecorder{}
	wcfg := rest.CopyConfig(cfg)
	wcfg.WarningHandler = nil
	wcfg.WarningHandlerWithContext = warnings
	c, err := client.New(wcfg, client.Options{Scheme: framework.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c, warnings
}
