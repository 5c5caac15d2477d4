package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
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
			Entry("a cronjobrun annotation of ours in the Job template, which would point every Job at a run",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("reserved", ns).JobAnnotation(cronjobv1.CronJobRunAnnotation, "other-run").Obj()
				},
				"spec.jobTemplate.metadata.annotations: Invalid value: keys with the prefix batch.cronjob-operator.dev/ are reserved for the operator"),
			Entry("a trigger label of ours in the Job template",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("reserved", ns).JobLabel(cronjobv1.TriggerLabel, cronjobv1.TriggerManual).Obj()
				},
				"spec.jobTemplate.metadata.labels: Invalid value: keys with the prefix batch.cronjob-operator.dev/ are reserved for the operator"),
			Entry("a schedule padded past 256 bytes",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("long", ns).Schedule("0 * * * *" + strings.Repeat(" ", 1<<20)).Obj()
				},
				"spec.schedule: Too long: may not be more than 256 bytes"),
			Entry("a failedJobsHistoryLimit over 100",
				func(ns string) *cronjobv1.CronJob {
					return builders.MakeCronJob("history", ns).HistoryLimits(3, 101).Obj()
				},
				"spec.failedJobsHistoryLimit in body should be less than or equal to 100"),
		)

		It("should accept a schedule of 256 bytes, history limits and maxActiveJobs of 100, and template keys of other prefixes", func(ctx SpecContext) {
			cj := builders.MakeCronJob("bounds", ns).Schedule("0 * * * *"+strings.Repeat(" ", cronjobv1.MaxScheduleLength-len("0 * * * *"))).
				HistoryLimits(cronjobv1.MaxHistoryLimit, cronjobv1.MaxHistoryLimit).MaxActiveJobs(cronjobv1.MaxActiveJobsLimit).
				JobLabel("lifecycle.cronjob-operator.dev/run-for", "5s").JobAnnotation("cronjob-operator.dev/team", "reports").Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		})

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

	// The CronJobRun webhook (controllers/webhooks/cronjobrun_webhook.go) warns about its CronJob, never
	// refuses for it: a run may be created just before its CronJob. (It refuses parameter values that do not
	// fit an existing CronJob: parameters_test.go and the fixtures.)
	When("a CronJobRun is created", func() {
		var ns string
		BeforeEach(func(ctx SpecContext) {
			ns = newNamespace(ctx)
		})

		It("should admit it with a warning when its CronJob does not exist", func(ctx SpecContext) {
			c, warnings := warningClient()

			Expect(c.Create(ctx, builders.MakeCronJobRun("early", ns, "nightly").Obj())).To(Succeed())
			Expect(warnings.get()).To(ConsistOf(SatisfyAll(
				ContainSubstring(fmt.Sprintf(`spec.cronJobName: CronJob "nightly" does not exist in namespace %q`, ns)),
				ContainSubstring("the run will be Rejected (CronJobNotFound)"),
				ContainSubstring("check spec.cronJobName"))))
		})

		It("should admit it with a warning when its CronJob is being deleted", func(ctx SpecContext) {
			cj := builders.MakeCronJob("going", ns).Finalizers("example.com/keep").Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) {
				Expect(k8sClient.Patch(ctx, cj, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))).To(Succeed())
			})
			Expect(k8sClient.Delete(ctx, cj)).To(Succeed())
			c, warnings := warningClient()

			Expect(c.Create(ctx, builders.MakeCronJobRun("late", ns, "going").Obj())).To(Succeed())
			Expect(warnings.get()).To(ConsistOf(ContainSubstring(
				fmt.Sprintf(`spec.cronJobName: CronJob "going" in namespace %q is being deleted: the run will be Rejected (CronJobDeleting)`, ns))))
		})

		It("should admit it without a warning when its CronJob exists", func(ctx SpecContext) {
			Expect(k8sClient.Create(ctx, builders.MakeCronJob("nightly", ns).Obj())).To(Succeed())
			c, warnings := warningClient()

			Expect(c.Create(ctx, builders.MakeCronJobRun("now", ns, "nightly").Obj())).To(Succeed())
			Expect(warnings.get()).To(BeEmpty())
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
				if obj.GetKind() == "CronJobRun" {
					// The CronJob the CronJobRun fixtures name, so that only the one naming another is warned about,
					// with the parameters their values are checked against.
					Expect(k8sClient.Create(ctx, builders.MakeCronJob("report", ns).
						PatternParameter("DATE", "2026-01-01", `^\d{4}-\d{2}-\d{2}$`).EnumParameter("MODE", "full", "full", "delta").Obj())).To(Succeed())
				}
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

		DescribeTable("should treat the v2 form of each v1 CronJob fixture as the v1 one, naming the fields by their v2 paths",
			func(ctx SpecContext, name string, in *cronjobv1.CronJob, data []byte) {
				twin := &cronjobv2.CronJob{}
				cronjobv2.ToV2(in, twin)
				twin.Namespace = ns
				c, warnings := warningClient()

				err := c.Create(ctx, twin)

				if strings.HasPrefix(name, "invalid-") {
					want := cronjobv2.V2Paths(fixtures.Comment(data, "expect"))
					Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
					Expect(err.Error()).To(ContainSubstring(want))
					return
				}
				Expect(err).NotTo(HaveOccurred())
				if want := fixtures.Comment(data, "warning"); want != "" {
					Expect(warnings.get()).To(ContainElement(ContainSubstring(cronjobv2.V2Paths(want))))
				} else {
					Expect(warnings.get()).To(BeEmpty())
				}
			},
			v2TwinEntries(),
		)
	})
})

// v2TwinEntries returns one entry per v1 CronJob fixture that decodes strictly into the Go type (name, the
// object, the file): the v2 form is made from the Go object. The fixtures left out give a field a value
// of the wrong JSON type (such as suspendUntil: "tomorrow"), which the shared schema of both versions
// refuses before any rule of ours: there is no v2 object to make of them.
func v2TwinEntries() []TableEntry {
	all := fixtures.All()
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	var entries []TableEntry
	for _, name := range names {
		data := all[name]
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(data, &meta); err != nil || meta.Kind != "CronJob" || meta.APIVersion != cronjobv1.GroupVersion.String() {
			continue
		}
		in := &cronjobv1.CronJob{}
		if err := yaml.UnmarshalStrict(data, in); err != nil {
			continue
		}
		entries = append(entries, Entry(name, name, in, data))
	}
	return entries
}

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

// The preflight (controllers/webhooks/preflight.go): the webhook builds the CronJob's Job and asks the API
// server with a dry-run create. fixtures/invalid-template-*.yaml hold one refused template of each kind
// (restartPolicy Always or unset, no containers, a bad label key, a negative backoffLimit or parallelism),
// run by "a CronJob from fixtures/ is created" above. A template without a containers field at all never
// reaches the webhook: the CRD schema requires it.
var _ = Describe("Admission preflight", func() {
	When("an update makes the template one the API server refuses", func() {
		It("should refuse it with the API server's message on the field under spec.jobTemplate", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("edited", ns).Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())

			cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
			err := k8sClient.Update(ctx, cj)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
			Expect(err.Error()).To(ContainSubstring(`spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`))
		})
	})

	When("a Job of the template draws a warning (Pod Security's warn mode)", func() {
		It("should admit the CronJob and return the warning", func(ctx SpecContext) {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "pod-security-warn-",
				Labels: map[string]string{"pod-security.kubernetes.io/warn": "restricted"}}}
			Expect(k8sClient.Create(ctx, ns)).To(Succeed())
			cj := builders.MakeCronJob("privileged", ns.Name).Obj()
			cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
			c, warnings := warningClient()

			Expect(c.Create(ctx, cj)).To(Succeed())
			Expect(warnings.get()).To(ContainElement(SatisfyAll(
				ContainSubstring("spec.jobTemplate: a Job made from it gets this warning"),
				ContainSubstring(`would violate PodSecurity "restricted:latest"`),
				ContainSubstring("privileged"))))
		})
	})

	// A webhook with side effects would refuse the dry run too, but admissionregistration/v1 no longer admits
	// one (sideEffects must be None or NoneOnDryRun).
	When("the dry run cannot be made (a webhook on Jobs that no server answers)", func() {
		It("should admit the CronJob and say so in a warning", func(ctx SpecContext) {
			ns := namespaceSelectedBy(ctx, "unanswered")
			installWebhook(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "unanswered-"},
				Webhooks: []admissionregistrationv1.ValidatingWebhook{{
					Name:                    "jobs.unanswered.example.com",
					ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To(unreachableURL)},
					Rules:                   []admissionregistrationv1.RuleWithOperations{rule("batch", "jobs")},
					NamespaceSelector:       selectorOf(ns),
					SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
					FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
					AdmissionReviewVersions: []string{"v1"},
				}},
			})
			cj := builders.MakeCronJob("", ns).Obj()
			cj.GenerateName = "unchecked-" // a create that came before the configuration took effect keeps its name
			c, warnings := warningClient()

			Eventually(func(g Gomega) {
				g.Expect(c.Create(ctx, cj.DeepCopy())).To(Succeed())
				g.Expect(warnings.get()).To(ContainElement(SatisfyAll(
					ContainSubstring("spec.jobTemplate was not checked against the API server"),
					ContainSubstring("failed calling webhook"))))
			}).Should(Succeed(), "the webhook configuration takes a moment to reach the API server's admission")
		})
	})
})

// The validating webhook's matchConditions (config/webhook/manifests.yaml): only a create or a change of a
// field it validates reaches it, so with no replica answering, other writes still succeed despite
// failurePolicy Fail.
var _ = Describe("Admission webhook matchConditions", func() {
	When("no webhook server answers", func() {
		It("should let a label edit, a suspend, a policy edit and a finalizer removal through, and refuse a schedule edit", func(ctx SpecContext) {
			ns := namespaceSelectedBy(ctx, "unreachable")
			cj := builders.MakeCronJob("reachable", ns).Finalizers("example.com/keep").Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())

			By("installing the shipped validating webhook again, pointing nowhere, for this namespace only")
			shipped := shippedValidatingWebhook()
			shipped.ObjectMeta = metav1.ObjectMeta{GenerateName: "unreachable-"}
			for i := range shipped.Webhooks {
				shipped.Webhooks[i].ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr.To(unreachableURL)}
				shipped.Webhooks[i].NamespaceSelector = selectorOf(ns)
			}
			installWebhook(ctx, shipped)
			minutes := 1
			Eventually(func() error {
				// A fresh read and a new schedule each time: an edit made before the configuration took
				// effect changed the spec, and the next must change it again.
				edited := &cronjobv1.CronJob{}
				if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), edited); err != nil {
					return err
				}
				minutes++
				edited.Spec.Schedule = fmt.Sprintf("*/%d * * * *", minutes)
				return k8sClient.Update(ctx, edited)
			}).Should(MatchError(ContainSubstring("failed calling webhook")), "a spec edit must reach the unreachable webhook")

			By("editing a label")
			Expect(k8sClient.Patch(ctx, cj, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"b"}}}`)))).To(Succeed())
			By("suspending it and changing its history limit and concurrency policy: spec fields the webhook does not validate")
			Expect(k8sClient.Patch(ctx, cj, client.RawPatch(types.MergePatchType,
				[]byte(`{"spec":{"suspend":true,"successfulJobsHistoryLimit":5,"concurrencyPolicy":"Forbid"}}`)))).To(Succeed())
			Expect(cj.Spec.Suspend).To(Equal(ptr.To(true)))
			By("changing the time zone: a validated field")
			Expect(k8sClient.Patch(ctx, cj, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"timeZone":"Europe/Berlin"}}`)))).
				To(MatchError(ContainSubstring("failed calling webhook")))
			By("removing the finalizer, as a controller does before the CronJob goes")
			Expect(k8sClient.Patch(ctx, cj, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))).To(Succeed())
			Expect(cj.Finalizers).To(BeEmpty())
		})
	})
})

// unreachableURL is a webhook URL nothing listens on: the API server's call fails at once.
const unreachableURL = "https://127.0.0.1:1/unreachable"

// selectionLabel labels a namespace that a spec's own webhook configuration selects.
const selectionLabel = "test.cronjob-operator.dev/selected-by"

// namespaceSelectedBy creates a namespace, as newNamespace, labelled selectionLabel=<its own name>, and
// returns its name.
func namespaceSelectedBy(ctx context.Context, prefix string) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	ns.Labels = map[string]string{selectionLabel: ns.Name}
	Expect(k8sClient.Update(ctx, ns)).To(Succeed())
	return dumpOnFailure(ns)
}

// selectorOf selects the namespace made by namespaceSelectedBy, and no other.
func selectorOf(ns string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{selectionLabel: ns}}
}

// rule matches create and update of group/resource, version v1.
func rule(group, resource string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"},
			Resources: []string{resource}},
	}
}

// installWebhook creates a webhook configuration and deletes it when the spec ends.
func installWebhook(ctx context.Context, c *admissionregistrationv1.ValidatingWebhookConfiguration) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, c)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) { Expect(k8sClient.Delete(ctx, c)).To(Succeed()) })
}

// shippedValidatingWebhook returns the ValidatingWebhookConfiguration of config/webhook/manifests.yaml.
func shippedValidatingWebhook() *admissionregistrationv1.ValidatingWebhookConfiguration {
	GinkgoHelper()
	_, file, _, ok := runtime.Caller(0)
	Expect(ok).To(BeTrue())
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "config", "webhook", "manifests.yaml"))
	Expect(err).NotTo(HaveOccurred())
	for doc := range bytes.SplitSeq(raw, []byte("\n---\n")) {
		var c admissionregistrationv1.ValidatingWebhookConfiguration
		Expect(yaml.Unmarshal(doc, &c)).To(Succeed())
		if c.Kind == "ValidatingWebhookConfiguration" {
			return &c
		}
	}
	Fail("no ValidatingWebhookConfiguration in config/webhook/manifests.yaml")
	return nil
}
