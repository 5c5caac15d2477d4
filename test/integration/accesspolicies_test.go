package integration

import (
	"context"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	batchv1 "k8s.io/api/batch/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The names config/default gives the optional parts these specs turn on (config/policies, config/flowcontrol).
const (
	manualRunsPolicy      = "cronjob-operator-manual-runs"
	managerJobsPolicy     = "cronjob-operator-manager-jobs"
	managerFlowControl    = "cronjob-operator-manager" // the FlowSchema and its PriorityLevelConfiguration
	runEditorRole         = "cronjob-operator-cronjobrun-editor-role"
	triggerRole           = "cronjob-operator-cronjob-trigger-role"
	triggerIgnoreRole     = "cronjob-operator-cronjob-trigger-ignore-role"
	cronJobEditorRole     = "cronjob-operator-cronjob-editor-role"
	authenticatedGroup    = "system:authenticated"
	manualRunsDenial      = "ValidatingAdmissionPolicy '" + manualRunsPolicy + "'"
	managerJobsDenial     = "ValidatingAdmissionPolicy '" + managerJobsPolicy + "'"
	manualRunsProbeUser   = "manual-runs-probe"
	manualRunsProbeTarget = "probe"
)

var _ = Describe("Optional access policies", Ordered, func() {
	var (
		rendered []*unstructured.Unstructured
		probeNS  string
	)
	// probeRun and probeJob are requests each policy refuses while it is in force: a dry-run CronJobRun of a
	// CronJob the probe user may not trigger, and a Job of no CronJob by the manager (a real create: the
	// policy lets dry runs through; nothing runs it in envtest).
	probeRun := func(ctx context.Context) error {
		return clientAs(manualRunsProbeUser, authenticatedGroup).Create(ctx,
			builders.MakeCronJobRun("probe", probeNS, manualRunsProbeTarget).Obj(), client.DryRunAll)
	}
	probeJob := func(ctx context.Context) error {
		job := builders.MakeJob("", probeNS).Obj()
		job.GenerateName = "probe-"
		return clientAs(managerUser, serviceAccountGroups...).Create(ctx, job)
	}

	BeforeAll(func(ctx SpecContext) {
		By("rendering config/default with both policies and the flow control on, and applying its RBAC")
		var err error
		rendered, err = framework.KustomizeDefaultWith(ctx, "policies/manual-runs", "policies/manager-jobs", "flowcontrol")
		Expect(err).NotTo(HaveOccurred())
		Expect(framework.ApplyRBAC(ctx, k8sClient, rendered)).To(Succeed())
		probeNS = newNamespace(ctx)
		bind(ctx, probeNS, "ClusterRole", runEditorRole, manualRunsProbeUser)

		By("applying the policies and their bindings as rendered")
		policies := createRendered(ctx, rendered, "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
		Expect(policies).To(HaveLen(4), "two policies, two bindings")
		DeferCleanup(func(ctx SpecContext) {
			By("deleting the policies and waiting until they no longer refuse their probes, so no other spec meets them")
			for _, o := range policies {
				Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, o))).To(Succeed())
			}
			Eventually(probeRun).WithContext(ctx).Should(Succeed())
			Eventually(probeJob).WithContext(ctx).Should(Succeed())
		})
		By("waiting until both policies are in force (bindings take effect asynchronously)")
		Eventually(probeRun).WithContext(ctx).Should(MatchError(ContainSubstring(manualRunsDenial)))
		Eventually(probeJob).WithContext(ctx).Should(MatchError(ContainSubstring(managerJobsDenial)))
	})

	When("the manual-runs policy is on", func() {
		It("should let a user with trigger on one CronJob run it, and refuse a run of another saying what to grant", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			createCronJobs(ctx, ns, "a", "b")
			bind(ctx, ns, "ClusterRole", runEditorRole, "runner")
			Expect(k8sClient.Create(ctx, &rbacv1.Role{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "trigger-a"},
				Rules: []rbacv1.PolicyRule{{
					APIGroups: []string{cronjobv1.GroupVersion.Group}, Resources: []string{"cronjobs"},
					Verbs: []string{"trigger"}, ResourceNames: []string{"a"},
				}},
			})).To(Succeed())
			bind(ctx, ns, "Role", "trigger-a", "runner")
			runner := clientAs("runner", authenticatedGroup)

			By("creating a run of a (once the authorizer has seen both bindings)")
			Eventually(func(ctx context.Context) error {
				return runner.Create(ctx, builders.MakeCronJobRun("", ns, "a").GenerateName("a-").Obj())
			}).WithContext(ctx).Should(Succeed())

			By("creating a run of b")
			err := runner.Create(ctx, builders.MakeCronJobRun("b-now", ns, "b").Obj())
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "a denial, got %v", err)
			Expect(err).To(MatchError(refusedTrigger(ns, "b")))
			Expect(apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "b-now"}, &cronjobv1.CronJobRun{}))).
				To(BeTrue(), "the refused run was not stored")

			By("creating a run of a as a user with trigger on a but no create on cronjobruns")
			bind(ctx, ns, "Role", "trigger-a", "trigger-only")
			trigger := request{verb: "trigger", group: cronjobv1.GroupVersion.Group, resource: "cronjobs", namespace: ns, name: "a"}
			create := request{verb: "create", group: cronjobv1.GroupVersion.Group, resource: "cronjobruns", namespace: ns}
			expectAnswers(ctx, "trigger-only", []string{authenticatedGroup}, []request{trigger, create},
				map[string]bool{trigger.String(): true, create.String(): false})
			err = clientAs("trigger-only", authenticatedGroup).Create(ctx, builders.MakeCronJobRun("a-by-trigger-only", ns, "a").Obj())
			Expect(err).To(MatchError(ContainSubstring(`cannot create resource "cronjobruns"`)),
				"RBAC's create is still needed: the policy adds a check, it grants nothing")
		})

		It("should refuse an Ignore run to a user without trigger-ignore, and admit it once granted", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			createCronJobs(ctx, ns, "a")
			bind(ctx, ns, "ClusterRole", runEditorRole, "runner")
			bind(ctx, ns, "ClusterRole", triggerRole, "runner")
			runner := clientAs("runner", authenticatedGroup)
			Eventually(func(ctx context.Context) error {
				return runner.Create(ctx, builders.MakeCronJobRun("", ns, "a").GenerateName("honor-").Obj())
			}).WithContext(ctx).Should(Succeed(), "a run that honours the policy needs trigger only")

			err := runner.Create(ctx, builders.MakeCronJobRun("ignore", ns, "a").IgnoreConcurrency().Obj())
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "a denial, got %v", err)
			Expect(err).To(MatchError(And(
				ContainSubstring(manualRunsDenial),
				ContainSubstring("may not trigger CronJob "+ns+"/a with spec.concurrencyPolicy Ignore"),
				ContainSubstring("needs the verb trigger-ignore on cronjobs.batch.cronjob-operator.dev/a in namespace "+ns),
				ContainSubstring(triggerIgnoreRole),
			)))

			bind(ctx, ns, "ClusterRole", triggerIgnoreRole, "runner")
			Eventually(func(ctx context.Context) error {
				return runner.Create(ctx, builders.MakeCronJobRun("", ns, "a").GenerateName("ignore-").IgnoreConcurrency().Obj())
			}).WithContext(ctx).Should(Succeed())
		})

		It("should let whoever holds the CronJob and CronJobRun editor roles trigger any run", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			createCronJobs(ctx, ns, "a")
			bind(ctx, ns, "ClusterRole", runEditorRole, "editor")
			bind(ctx, ns, "ClusterRole", cronJobEditorRole, "editor")
			Eventually(func(ctx context.Context) error {
				return clientAs("editor", authenticatedGroup).Create(ctx,
					builders.MakeCronJobRun("", ns, "a").GenerateName("ignore-").IgnoreConcurrency().Obj())
			}).WithContext(ctx).Should(Succeed())
		})
	})

	When("config/default's user roles are bound", func() {
		It("should grant trigger and trigger-ignore as README \"RBAC\" says, and only on CronJobs", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			roles := map[string]string{ // user: ClusterRole
				"viewer": "cronjob-operator-cronjob-viewer-role", "editor": cronJobEditorRole,
				"admin": "cronjob-operator-cronjob-admin-role", "run-editor": runEditorRole,
				"trigger": triggerRole, "trigger-ignore": triggerIgnoreRole,
			}
			for user, role := range roles {
				bind(ctx, ns, "ClusterRole", role, user)
			}
			cronJobs := func(verb string) request {
				return request{verb: verb, group: cronjobv1.GroupVersion.Group, resource: "cronjobs", namespace: ns, name: "a"}
			}
			// The first request proves the binding is seen (expectAnswers): each user's role allows it.
			proof := map[string]request{
				"viewer": cronJobs("get"), "editor": cronJobs("get"), "admin": cronJobs("get"),
				"run-editor": {verb: "create", group: cronjobv1.GroupVersion.Group, resource: "cronjobruns", namespace: ns},
				"trigger":    cronJobs("trigger"), "trigger-ignore": cronJobs("trigger"),
			}
			trigger, ignore := cronJobs("trigger"), cronJobs("trigger-ignore")
			elsewhere := request{verb: "trigger", group: cronjobv1.GroupVersion.Group, resource: "cronjobs", namespace: anyNamespace, name: "a"}
			builtin := request{verb: "trigger", group: "batch", resource: "cronjobs", namespace: ns, name: "a"}
			//                            trigger trigger-ignore
			want := map[string][2]bool{
				"viewer":         {false, false},
				"editor":         {true, true},
				"admin":          {true, true},
				"run-editor":     {false, false},
				"trigger":        {true, false},
				"trigger-ignore": {true, true},
			}
			for user, answers := range want {
				reqs := []request{proof[user], trigger, ignore, elsewhere, builtin}
				wantByRequest := map[string]bool{proof[user].String(): true, trigger.String(): answers[0], ignore.String(): answers[1],
					elsewhere.String(): false, builtin.String(): false}
				expectAnswers(ctx, user, []string{authenticatedGroup}, reqs, wantByRequest)
			}
		})
	})

	When("the manager-jobs policy is on", func() {
		It("should refuse the manager's ServiceAccount a Job no CronJob of ours controls, and admit one it does", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			cj := builders.MakeCronJob("a", ns).Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())
			manager := clientAs(managerUser, serviceAccountGroups...)

			notOwned := map[string]*batchv1.Job{
				"no owner": builders.MakeJob("stray", ns).Obj(),
				"our CronJob as an owner, not the controller": withOwner(builders.MakeJob("not-controlled", ns).Obj(),
					cronjobv1.GroupVersion.String(), "CronJob", cj, false),
				"a batch/v1 CronJob as the controller": withOwner(builders.MakeJob("builtin-cronjob", ns).Obj(),
					"batch/v1", "CronJob", cj, true),
			}
			for why, job := range notOwned {
				err := manager.Create(ctx, job)
				Expect(err).To(MatchError(And(
					ContainSubstring(managerJobsDenial),
					ContainSubstring("may create only Jobs controlled by a CronJob of batch.cronjob-operator.dev; Job "+ns+"/"+job.Name),
				)), why)
			}

			Expect(manager.Create(ctx, builders.MakeJob("owned", ns).OwnedBy(cj).Obj())).To(Succeed())
			Expect(manager.Create(ctx, builders.MakeJob("dry-run", ns).Obj(), client.DryRunAll)).To(Succeed(),
				"a dry run creates nothing: the admission webhooks' preflight of a template may make one")
			Expect(k8sClient.Create(ctx, builders.MakeJob("someone-elses", ns).Obj())).To(Succeed(),
				"the policy matches the manager's requests only")
		})
	})

	When("the flow control manifests are applied", func() {
		It("should be accepted and put the manager's requests in its own priority level", func(ctx SpecContext) {
			objs := createRendered(ctx, rendered, "PriorityLevelConfiguration", "FlowSchema")
			Expect(objs).To(HaveLen(2))
			DeferCleanup(func(ctx SpecContext) {
				for _, o := range objs {
					Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, o))).To(Succeed())
				}
			})
			fs := &flowcontrolv1.FlowSchema{}
			plc := &flowcontrolv1.PriorityLevelConfiguration{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: managerFlowControl}, fs)).To(Succeed())
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: managerFlowControl}, plc)).To(Succeed())

			By("waiting until the API server has taken the FlowSchema in, its priority level found")
			Eventually(func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(fs), fs)).To(Succeed())
				var dangling *flowcontrolv1.FlowSchemaCondition
				for i := range fs.Status.Conditions {
					if fs.Status.Conditions[i].Type == flowcontrolv1.FlowSchemaConditionDangling {
						dangling = &fs.Status.Conditions[i]
					}
				}
				g.Expect(dangling).NotTo(BeNil(), "no Dangling condition yet")
				g.Expect(dangling.Status).To(Equal(flowcontrolv1.ConditionFalse), "Dangling: %s", dangling.Message)
			}).WithContext(ctx).Should(Succeed())

			By("asking as the manager and reading which FlowSchema and priority level served the request")
			Eventually(func(g Gomega) {
				resp := get(ctx, g, managerUser, serviceAccountGroups, "/apis/batch/v1/jobs?limit=1")
				g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
				header := resp.Header
				g.Expect(header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)).To(Equal(string(fs.UID)))
				g.Expect(header.Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID)).To(Equal(string(plc.UID)))
			}).WithContext(ctx).Should(Succeed())
			header := get(ctx, Default, "someone", []string{authenticatedGroup}, "/apis/batch/v1/jobs?limit=1").Header
			Expect(header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)).NotTo(Equal(string(fs.UID)), "another user's requests go elsewhere")

			By("reading the level's seats from the API server's metrics")
			metrics := getRaw(ctx, "/metrics")
			for _, m := range []string{"nominal_limit_seats", "lower_limit_seats", "upper_limit_seats"} {
				GinkgoWriter.Printf("%s\n", seatsLine(metrics, m))
			}
			// README "API priority and fairness": 10 of 255 shares of envtest's 600 seats (400 + 200 in flight),
			// lending half and borrowing as many again.
			Expect(seatsLine(metrics, "nominal_limit_seats")).To(HaveSuffix(" 24"))
			Expect(seatsLine(metrics, "lower_limit_seats")).To(HaveSuffix(" 12"))
			Expect(seatsLine(metrics, "upper_limit_seats")).To(HaveSuffix(" 48"))
		})
	})
})

// refusedTrigger matches the manual-runs policy's denial of a run of CronJob ns/name: which verb on which
// CronJob is missing, and the ClusterRole that grants it.
func refusedTrigger(ns, name string) types.GomegaMatcher {
	return And(
		ContainSubstring(manualRunsDenial),
		ContainSubstring("may not trigger CronJob "+ns+"/"+name),
		ContainSubstring("needs the verb trigger on cronjobs.batch.cronjob-operator.dev/"+name+" in namespace "+ns),
		ContainSubstring(triggerRole),
		ContainSubstring("resourceNames ["+name+"]"),
	)
}

// clientAs returns a live client that impersonates user in groups.
func clientAs(user string, groups ...string) client.Client {
	GinkgoHelper()
	c, err := client.New(impersonating(user, groups), client.Options{Scheme: framework.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

func impersonating(user string, groups []string) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	return c
}

// get makes a GET of path (from the API server's root, query included) as user and returns the response,
// its body read and closed.
func get(ctx context.Context, g Gomega, user string, groups []string, path string) *http.Response {
	conf := impersonating(user, groups)
	hc, err := rest.HTTPClientFor(conf)
	g.Expect(err).NotTo(HaveOccurred())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(conf.Host, "/")+path, nil)
	g.Expect(err).NotTo(HaveOccurred())
	resp, err := hc.Do(req)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = io.Copy(io.Discard, resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.Body.Close()).To(Succeed())
	return resp
}

// getRaw returns the body of a GET of path by the suite's administrator.
func getRaw(ctx context.Context, path string) string {
	GinkgoHelper()
	hc, err := rest.HTTPClientFor(cfg)
	Expect(err).NotTo(HaveOccurred())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+path, nil)
	Expect(err).NotTo(HaveOccurred())
	resp, err := hc.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	Expect(resp.StatusCode).To(Equal(http.StatusOK), "GET %s", path)
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return string(body)
}

// seatsLine returns the line of the API server's metric apiserver_flowcontrol_<metric> for the manager's
// priority level, or "" if there is none.
func seatsLine(metrics, metric string) string {
	for line := range strings.Lines(metrics) {
		if strings.HasPrefix(line, "apiserver_flowcontrol_"+metric+"{") &&
			strings.Contains(line, `priority_level="`+managerFlowControl+`"`) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// bind grants the user the role (kind Role or ClusterRole) in ns with a RoleBinding.
func bind(ctx context.Context, ns, kind, role, user string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: user + "-"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: role},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	})).To(Succeed())
}

func createCronJobs(ctx context.Context, ns string, names ...string) {
	GinkgoHelper()
	for _, name := range names {
		Expect(k8sClient.Create(ctx, builders.MakeCronJob(name, ns).Obj())).To(Succeed())
	}
}

// createRendered creates the objects of the given kinds among rendered, in the order of kinds, and returns
// them.
func createRendered(ctx context.Context, rendered []*unstructured.Unstructured, kinds ...string) []client.Object {
	GinkgoHelper()
	var created []client.Object
	for _, kind := range kinds {
		for _, o := range rendered {
			if o.GetKind() != kind {
				continue
			}
			obj := o.DeepCopy()
			Expect(k8sClient.Create(ctx, obj)).To(Succeed(), "creating %s %s", kind, obj.GetName())
			created = append(created, obj)
		}
	}
	return created
}

// withOwner adds an ownerReference to cj's name and UID with the given apiVersion and kind.
func withOwner(job *batchv1.Job, apiVersion, kind string, cj *cronjobv1.CronJob, controller bool) *batchv1.Job {
	job.OwnerReferences = append(job.OwnerReferences, metav1.OwnerReference{
		APIVersion: apiVersion, Kind: kind, Name: cj.Name, UID: cj.UID, Controller: ptr.To(controller),
	})
	return job
}
