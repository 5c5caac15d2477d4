package integration

import (
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The namespaces config/namespaced lists as its example (--watch-namespaces=team-a,team-b).
const overlayNamespaceA, overlayNamespaceB = "team-a", "team-b"

var _ = Describe("Namespace-scoped mode", func() {
	When("the manager watches two namespaces with config/namespaced's RBAC only", func() {
		var (
			watchedA, watchedB, outside string
			cronJobs                    map[string]*cronjobv1.CronJob
			clk                         *framework.Clock
		)
		BeforeEach(func(ctx SpecContext) {
			watchedA, watchedB, outside = newNamespace(ctx), newNamespace(ctx), newNamespace(ctx)

			By("applying config/namespaced's RBAC, its RoleBindings moved to the spec's watched namespaces")
			objs, err := framework.Kustomize(ctx, "config/namespaced")
			Expect(err).NotTo(HaveOccurred())
			moved := map[string]string{}
			for _, o := range objs {
				if o.GetKind() != "RoleBinding" {
					continue
				}
				switch o.GetNamespace() {
				case overlayNamespaceA:
					o.SetNamespace(watchedA)
				case overlayNamespaceB:
					o.SetNamespace(watchedB)
				default:
					continue
				}
				moved[o.GetNamespace()] = o.GetName()
			}
			Expect(moved).To(HaveLen(2), "config/namespaced binds the manager in %s and %s", overlayNamespaceA, overlayNamespaceB)
			Expect(framework.ApplyRBAC(ctx, k8sClient, objs)).To(Succeed())
			// The watched namespace first: allowed, it proves the authorizer has seen the bindings.
			expectAnswers(ctx, managerUser, serviceAccountGroups, []request{
				{verb: "list", group: "batch.cronjob-operator.dev", resource: "cronjobs", namespace: watchedA},
				{verb: "list", group: "batch.cronjob-operator.dev", resource: "cronjobs"},
				{verb: "create", group: "batch", resource: "jobs", namespace: outside},
			}, map[string]bool{
				"list cronjobs.batch.cronjob-operator.dev in " + watchedA: true,
				"list cronjobs.batch.cronjob-operator.dev":                false,
				"create jobs.batch in " + outside:                         false,
			})

			cronJobs = map[string]*cronjobv1.CronJob{}
			for _, ns := range []string{watchedA, watchedB, outside} {
				cronJobs[ns] = builders.MakeCronJob("report", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
				Expect(framework.CreateCronJob(ctx, k8sClient, cronJobs[ns])).To(Succeed())
			}
			clk = framework.NewClock(at("10:04:59"))
			DeferCleanup(fwk.StartManager(framework.ManagerOptions{
				WatchNamespaces: []string{watchedA, watchedB}, User: managerUser, Clock: clk,
			}).Stop)
		})

		It("should run the CronJobs of the watched namespaces and leave the one outside alone", func(ctx SpecContext) {
			By("waiting until both watched CronJobs are evaluated at 10:04:59")
			// The workqueue keeps one timer for both, so AdvanceTo alone cannot tell that the second one has
			// asked to be woken too.
			for _, ns := range []string{watchedA, watchedB} {
				Eventually(func(g Gomega) {
					cond := meta.FindStatusCondition(framework.GetCronJob(ctx, g, k8sClient, cronJobs[ns]).Status.Conditions, cronjobv1.ConditionReady)
					g.Expect(cond).NotTo(BeNil())
					g.Expect(cond.LastTransitionTime.Time).To(BeTemporally("==", at("10:04:59")))
				}).Should(Succeed(), "the first reconcile in %s", ns)
			}

			By("moving the clock past 10:05")
			clk.AdvanceTo(at("10:05:01"))
			for _, ns := range []string{watchedA, watchedB} {
				Eventually(func(g Gomega) {
					g.Expect(jobNames(listJobs(ctx, g, ns))).To(ConsistOf(jobNameFor(cronJobs[ns], at("10:05:00"))))
					last := framework.GetCronJob(ctx, g, k8sClient, cronJobs[ns]).Status.LastScheduleTime
					g.Expect(last).NotTo(BeNil())
					g.Expect(last.Time).To(BeTemporally("==", at("10:05:00")))
				}).Should(Succeed(), "the 10:05 run in %s", ns)
			}

			By("moving the clock past 10:10: the manager keeps working")
			clk.AdvanceTo(at("10:10:01"))
			Eventually(func(g Gomega) []string { return jobNames(listJobs(ctx, g, watchedA)) }).Should(
				ConsistOf(jobNameFor(cronJobs[watchedA], at("10:05:00")), jobNameFor(cronJobs[watchedA], at("10:10:00"))))

			By("checking that the CronJob outside has no Job, no status write and no event")
			before := cronJobs[outside].DeepCopy()
			Consistently(func(g Gomega) {
				g.Expect(listJobs(ctx, g, outside)).To(BeEmpty())
				got := framework.GetCronJob(ctx, g, k8sClient, before)
				g.Expect(cmp.Diff(before.Status, got.Status)).To(BeEmpty(), "status (-before,+now)")
				g.Expect(got.ResourceVersion).To(Equal(before.ResourceVersion))
				var events eventsv1.EventList
				g.Expect(k8sClient.List(ctx, &events, client.InNamespace(outside))).To(Succeed())
				g.Expect(events.Items).To(BeEmpty())
			}).Should(Succeed())
		})
	})
})
