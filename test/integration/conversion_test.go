package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// asV2 is the v2 form of a v1 CronJob built by the builders, as a user would write it.
func asV2(cj *cronjobv1.CronJob) *cronjobv2.CronJob {
	var out cronjobv2.CronJob
	cronjobv2.ToV2(cj, &out)
	return &out
}

// The CRD serves v1 (stored) and v2; the API server converts between them through the test's webhook
// server (/convert), as it does through the manager's in a cluster.
var _ = Describe("API versions", func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = newNamespace(ctx)
	})

	It("should read a CronJob created in v1 in v2, take an update in v2, and read it back in v1", func(ctx SpecContext) {
		cj := builders.MakeCronJob("nightly", ns).Schedule("0 2 * * *").TimeZone("Europe/Berlin").Obj()
		cj.Spec.StartingDeadlineSeconds = ptr.To[int64](600)
		cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](5)
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		var v2 cronjobv2.CronJob
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &v2)).To(Succeed())
		Expect(v2.Spec.Schedule.Cron).To(Equal("0 2 * * *"))
		Expect(v2.Spec.Schedule.TimeZone).To(Equal(ptr.To("Europe/Berlin")))
		Expect(v2.Spec.MissedRuns.StartingDeadlineSeconds).To(Equal(ptr.To[int64](600)))
		Expect(v2.Spec.History).To(Equal(cronjobv2.History{SuccessfulJobs: ptr.To[int32](5), FailedJobs: ptr.To[int32](1), RecentRuns: ptr.To[int32](10)}),
			"the v1 defaults, applied at create, are read in their v2 places")
		Expect(v2.Spec.Concurrency.Policy).To(Equal(cronjobv1.AllowConcurrent))

		v2.Spec.Concurrency = cronjobv2.Concurrency{Policy: cronjobv1.EnqueueConcurrent, MaxQueuedRuns: ptr.To[int32](4)}
		v2.Spec.Timeouts.RunSeconds = ptr.To[int64](3600)
		Expect(k8sClient.Update(ctx, &v2)).To(Succeed())

		var v1 cronjobv1.CronJob
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &v1)).To(Succeed())
		Expect(v1.Spec.ConcurrencyPolicy).To(Equal(cronjobv1.EnqueueConcurrent))
		Expect(v1.Spec.MaxQueuedRuns).To(Equal(ptr.To[int32](4)))
		Expect(v1.Spec.RunTimeoutSeconds).To(Equal(ptr.To[int64](3600)))
		Expect(v1.Spec.Schedule).To(Equal("0 2 * * *"))
		Expect(v1.ResourceVersion).To(Equal(v2.ResourceVersion))
	})

	It("should apply the v2 defaults to a CronJob created in v2 with no groups, as v1 applies its own", func(ctx SpecContext) {
		in := asV2(builders.MakeCronJob("bare", ns).Schedule("*/5 * * * *").Obj())
		in.Spec.Concurrency, in.Spec.MissedRuns, in.Spec.History, in.Spec.Suspend = cronjobv2.Concurrency{}, cronjobv2.MissedRuns{}, cronjobv2.History{}, nil
		Expect(k8sClient.Create(ctx, in)).To(Succeed())

		var v1 cronjobv1.CronJob
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(in), &v1)).To(Succeed())
		Expect(v1.Spec.ConcurrencyPolicy).To(Equal(cronjobv1.AllowConcurrent))
		Expect(v1.Spec.MissedRunPolicy).To(Equal(cronjobv1.MissedRunMostRecent))
		Expect(v1.Spec.SuccessfulJobsHistoryLimit).To(Equal(ptr.To(cronjobv1.DefaultSuccessfulJobsHistoryLimit)))
		Expect(v1.Spec.FailedJobsHistoryLimit).To(Equal(ptr.To(cronjobv1.DefaultFailedJobsHistoryLimit)))
		Expect(v1.Spec.RecentRunsLimit).To(Equal(ptr.To(cronjobv1.DefaultRecentRunsLimit)))
		Expect(v1.Spec.Suspend).To(Equal(ptr.To(false)))
	})

	It("should list CronJobs created in either version in both, and carry the status across", func(ctx SpecContext) {
		Expect(k8sClient.Create(ctx, builders.MakeCronJob("made-in-v1", ns).Schedule("0 * * * *").Obj())).To(Succeed())
		v2 := asV2(builders.MakeCronJob("made-in-v2", ns).Schedules("0 9 * * *", "30 17 * * *").Obj())
		Expect(k8sClient.Create(ctx, v2)).To(Succeed())
		v2.Status.LastScheduleTime = ptr.To(metav1.NewTime(at("09:00:00")))
		v2.Status.ConsecutiveFailures = 2
		Expect(k8sClient.Status().Update(ctx, v2)).To(Succeed())

		var l1 cronjobv1.CronJobList
		Expect(k8sClient.List(ctx, &l1, client.InNamespace(ns))).To(Succeed())
		byName := map[string]cronjobv1.CronJob{}
		for _, cj := range l1.Items {
			byName[cj.Name] = cj
		}
		Expect(byName).To(HaveLen(2))
		Expect(byName["made-in-v2"].Spec.Schedules).To(Equal([]cronjobv1.ScheduleEntry{{Schedule: "0 9 * * *"}, {Schedule: "30 17 * * *"}}))
		Expect(byName["made-in-v2"].Status.LastScheduleTime.Time).To(BeTemporally("==", at("09:00:00")))
		Expect(byName["made-in-v2"].Status.ConsecutiveFailures).To(Equal(int32(2)))

		var l2 cronjobv2.CronJobList
		Expect(k8sClient.List(ctx, &l2, client.InNamespace(ns))).To(Succeed())
		crons := map[string]string{}
		for _, cj := range l2.Items {
			crons[cj.Name] = cj.Spec.Schedule.Cron
		}
		Expect(crons).To(Equal(map[string]string{"made-in-v1": "0 * * * *", "made-in-v2": ""}))
	})

	It("should send a v2 watcher the CronJobs written in v1, converted", func(ctx SpecContext) {
		wc, err := client.NewWithWatch(cfg, client.Options{Scheme: framework.Scheme()})
		Expect(err).NotTo(HaveOccurred())
		w, err := wc.Watch(ctx, &cronjobv2.CronJobList{}, client.InNamespace(ns))
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()

		cj := builders.MakeCronJob("watched", ns).Schedule("15 3 * * *").Obj()
		cj.Spec.PauseAfterFailures = ptr.To[int32](3)
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		var ev watch.Event
		Eventually(w.ResultChan()).Should(Receive(&ev))
		Expect(ev.Type).To(Equal(watch.Added))
		got, ok := ev.Object.(*cronjobv2.CronJob)
		Expect(ok).To(BeTrue(), "a %T", ev.Object)
		Expect(got.Spec.Schedule.Cron).To(Equal("15 3 * * *"))
		Expect(got.Spec.Health.PauseAfterFailures).To(Equal(ptr.To[int32](3)))
	})

	DescribeTable("should refuse the same CronJob in both versions for the same reason, naming the field as the user wrote it",
		func(ctx SpecContext, byWebhook bool, edit func(*cronjobv1.CronJob), v1Field, v2Field, reason string) {
			cj := builders.MakeCronJob("refused", ns).Schedule("*/5 * * * *").Obj()
			edit(cj)
			errV1 := k8sClient.Create(ctx, cj.DeepCopy())
			errV2 := k8sClient.Create(ctx, asV2(cj))
			Expect(apierrors.IsInvalid(errV1)).To(BeTrue(), "v1: %v", errV1)
			Expect(apierrors.IsInvalid(errV2)).To(BeTrue(), "v2: %v", errV2)
			Expect(errV1.Error()).To(ContainSubstring(v1Field))
			Expect(errV2.Error()).To(ContainSubstring(v2Field))
			Expect(errV1.Error()).To(ContainSubstring(reason))
			Expect(errV2.Error()).To(ContainSubstring(reason))
			if byWebhook { // the webhook sees the v1 form of both; CEL rules are each version's own
				Expect(errV2.Error()).To(Equal(cronjobv2.V2Paths(errV1.Error())), "the v2 message is the v1 message with v2 paths")
			}
		},
		Entry("a schedule robfig/cron cannot parse (webhook)", true, func(cj *cronjobv1.CronJob) { cj.Spec.Schedule = "61 * * * *" },
			"spec.schedule:", "spec.schedule.cron:", "end of range (61) above maximum (59)"),
		Entry("an unknown time zone (webhook)", true, func(cj *cronjobv1.CronJob) { cj.Spec.TimeZone = ptr.To("Mars/Olympus") },
			"spec.timeZone:", "spec.schedule.timeZone:", "Mars/Olympus"),
		Entry("jitter longer than the interval (webhook)", true, func(cj *cronjobv1.CronJob) { cj.Spec.JitterSeconds = ptr.To[int32](600) },
			"spec.jitterSeconds:", "spec.schedule.jitterSeconds:", "shortest interval between two runs"),
		Entry("a queue bound without Enqueue (CEL)", false, func(cj *cronjobv1.CronJob) { cj.Spec.MaxQueuedRuns = ptr.To[int32](3) },
			"spec.maxQueuedRuns is only allowed", "spec.concurrency.maxQueuedRuns: Invalid value: spec.concurrency.maxQueuedRuns is only allowed", "remove it or set"),
		Entry("a catch-up cap without All (CEL)", false, func(cj *cronjobv1.CronJob) { cj.Spec.MaxCatchUpRuns = ptr.To[int32](3) },
			"spec.maxCatchUpRuns is only allowed", "spec.missedRuns.maxCatchUpRuns: Invalid value: spec.missedRuns.maxCatchUpRuns is only allowed", "remove it or set"),
		Entry("a start timeout not shorter than the run timeout (CEL)", false, func(cj *cronjobv1.CronJob) {
			cj.Spec.RunTimeoutSeconds, cj.Spec.StartTimeoutSeconds = ptr.To[int64](60), ptr.To[int64](60)
		}, "spec.startTimeoutSeconds must be shorter", "spec.timeouts.startSeconds: Invalid value: spec.timeouts.startSeconds must be shorter", "or the run timeout would always end a run first"),
	)

	It("should print the v2 columns (kubectl get) and explain the v2 fields (kubectl explain) from the CRD", func(ctx SpecContext) {
		Expect(k8sClient.Create(ctx, builders.MakeCronJob("printed", ns).Schedule("0 4 * * *").TimeZone("Asia/Tokyo").Obj())).To(Succeed())
		rc, err := rest.HTTPClientFor(cfg)
		Expect(err).NotTo(HaveOccurred())
		get := func(path, accept string) []byte {
			GinkgoHelper()
			var body []byte
			// The OpenAPI document of a CRD's version is published a moment after the CRD is.
			Eventually(func(g Gomega) {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+path, nil)
				g.Expect(err).NotTo(HaveOccurred())
				req.Header.Set("Accept", accept)
				resp, err := rc.Do(req)
				g.Expect(err).NotTo(HaveOccurred())
				defer func() { _ = resp.Body.Close() }()
				body, err = io.ReadAll(resp.Body)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(resp.StatusCode).To(Equal(http.StatusOK), "GET %s%s: %s", cfg.Host, path, body)
			}).Should(Succeed())
			return body
		}

		var table metav1.Table
		Expect(json.Unmarshal(get("/apis/batch.cronjob-operator.dev/v2/namespaces/"+ns+"/cronjobs",
			"application/json;as=Table;v=v1;g=meta.k8s.io"), &table)).To(Succeed())
		var names []string
		for _, c := range table.ColumnDefinitions {
			names = append(names, c.Name)
		}
		Expect(names).To(HaveExactElements("Name", "Schedule", "Crons", "TimeZone", "Suspend", "Active", "Last Schedule", "Next", "Failures", "Healthy", "Age"))
		Expect(table.Rows).To(HaveLen(1))
		Expect(table.Rows[0].Cells[1:4]).To(HaveExactElements("0 4 * * *", nil, "Asia/Tokyo"), "read from spec.schedule.cron and spec.schedule.timeZone")

		var doc struct {
			Components struct {
				Schemas map[string]struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"schemas"`
			} `json:"components"`
		}
		Expect(json.Unmarshal(get("/openapi/v3/apis/batch.cronjob-operator.dev/v2", "application/json"), &doc)).To(Succeed())
		spec, ok := doc.Components.Schemas["dev.cronjob-operator.batch.v2.CronJob"]
		Expect(ok).To(BeTrue(), "the v2 CronJob in the OpenAPI document kubectl explain reads")
		Expect(string(spec.Properties["spec"])).To(ContainSubstring("v1: spec.maxQueuedRuns"), "each v2 field names its v1 field")
	})

	It("should run a CronJob created in v2 on the controller, which works on v1, and report its status in v2", func(ctx SpecContext) {
		cj := builders.MakeCronJob("from-v2", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
		in := asV2(cj)
		status := in.Status
		Expect(k8sClient.Create(ctx, in)).To(Succeed())
		in.Status = status
		Expect(k8sClient.Status().Update(ctx, in)).To(Succeed())
		clk := startController(ns, at("10:02:00"))

		clk.AdvanceTo(at("10:05:01"))

		job := onlyJob(ctx, ns)
		Expect(job.Name).To(Equal(jobNameFor(cj, at("10:05:00"))))
		Eventually(func(g Gomega) {
			var got cronjobv2.CronJob
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(in), &got)).To(Succeed())
			g.Expect(got.Status.LastScheduleTime).NotTo(BeNil())
			g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", at("10:05:00")))
			g.Expect(got.Status.Active).To(HaveLen(1))
		}).Should(Succeed())
	})
})
