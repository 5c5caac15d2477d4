package integration

import (
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The names config/default deploys the manager with, and the objects of its own it is allowed by name.
const (
	operatorNamespace = "cronjob-operator-system"
	managerUser       = "system:serviceaccount:" + operatorNamespace + ":cronjob-operator-controller-manager"
	webhookCertSecret = "cronjob-operator-webhook-server-cert"
	// mutatingConfig is the name of the mutating webhook configuration of earlier releases.
	mutatingConfig   = "cronjob-operator-mutating-webhook-configuration"
	validatingConfig = "cronjob-operator-validating-webhook-configuration"
	leaderElectionID = "cronjob-operator.batch.cronjob-operator.dev"
	// anyNamespace stands for a namespace of the users' CronJobs: a SubjectAccessReview needs none to exist.
	anyNamespace = "team-x"
)

// request is one API request a SubjectAccessReview asks about: verb on group/resource[/subresource], in
// namespace ("" for a cluster-scoped resource or all namespaces), on the object name ("" for any, or for a
// list or watch without a metadata.name field selector).
type request struct {
	verb, group, resource, subresource, namespace, name string
}

func (r request) String() string {
	s := fmt.Sprintf("%s %s", r.verb, r.resource)
	if r.group != "" {
		s = fmt.Sprintf("%s %s.%s", r.verb, r.resource, r.group)
	}
	if r.subresource != "" {
		s += "/" + r.subresource
	}
	if r.name != "" {
		s += " " + r.name
	}
	if r.namespace != "" {
		s += " in " + r.namespace
	}
	return s
}

// allowed asks the API server's authorizer whether user may make each request, and returns the answers by
// request.
func allowed(ctx SpecContext, user string, groups []string, reqs []request) map[string]bool {
	got := map[string]bool{}
	for _, r := range reqs {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   user,
			Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: r.verb, Group: r.group, Resource: r.resource, Subresource: r.subresource,
				Namespace: r.namespace, Name: r.name,
			},
		}}
		Expect(k8sClient.Create(ctx, sar)).To(Succeed(), "reviewing %s", r)
		got[r.String()] = sar.Status.Allowed
	}
	return got
}

// expectAnswers waits until the authorizer answers each of reqs as want says (by request, as allowed keys
// them), and fails with the difference. The authorizer reads RBAC objects from informers, so a binding
// created a moment ago may not be seen yet: a denial asked then would pass for the wrong reason. The first of
// reqs must therefore be one that want allows: an attempt passes only when it was allowed, that is when
// the binding had reached the authorizer before the requests after it were asked.
func expectAnswers(ctx SpecContext, user string, groups []string, reqs []request, want map[string]bool) {
	GinkgoHelper()
	Expect(want[reqs[0].String()]).To(BeTrue(), "the first request proves the binding is seen: it must be allowed")
	Eventually(func() string { return cmp.Diff(want, allowed(ctx, user, groups, reqs)) }).
		WithContext(ctx).Should(BeEmpty(), "allowed to %s (-want,+got)", user)
}

// all returns want for every request, keyed as allowed keys its answers.
func all(want bool, reqs []request) map[string]bool {
	m := map[string]bool{}
	for _, r := range reqs {
		m[r.String()] = want
	}
	return m
}

// serviceAccountGroups are the groups the API server puts a ServiceAccount of operatorNamespace in.
var serviceAccountGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + operatorNamespace, "system:authenticated"}

// managerNeeds is every request the manager makes: the controllers' (cache of CronJobs, CronJobRuns and
// Jobs, Job create and delete, status updates, a run's owner reference to its Job and its pruning, owner references that block deletion, Events), the leader election's,
// the webhook certificate rotator's (its informers list and watch by metadata.name), and the metrics
// endpoint's authentication and authorization of its clients.
var managerNeeds = []request{
	{verb: "list", group: "batch.cronjob-operator.dev", resource: "cronjobs"},
	{verb: "watch", group: "batch.cronjob-operator.dev", resource: "cronjobs"},
	{verb: "get", group: "batch.cronjob-operator.dev", resource: "cronjobs", namespace: anyNamespace},
	// pauseAfterFailures: one merge patch of spec.suspend and the paused-at annotation (pause.go).
	{verb: "patch", group: "batch.cronjob-operator.dev", resource: "cronjobs", namespace: anyNamespace},
	{verb: "update", group: "batch.cronjob-operator.dev", resource: "cronjobs", subresource: "status", namespace: anyNamespace},
	{verb: "update", group: "batch.cronjob-operator.dev", resource: "cronjobs", subresource: "finalizers", namespace: anyNamespace},
	{verb: "list", group: "batch.cronjob-operator.dev", resource: "cronjobruns"},
	{verb: "watch", group: "batch.cronjob-operator.dev", resource: "cronjobruns"},
	{verb: "get", group: "batch.cronjob-operator.dev", resource: "cronjobruns", namespace: anyNamespace},
	{verb: "update", group: "batch.cronjob-operator.dev", resource: "cronjobruns", namespace: anyNamespace},
	{verb: "delete", group: "batch.cronjob-operator.dev", resource: "cronjobruns", namespace: anyNamespace},
	{verb: "update", group: "batch.cronjob-operator.dev", resource: "cronjobruns", subresource: "status", namespace: anyNamespace},
	{verb: "list", group: "batch", resource: "jobs"},
	{verb: "watch", group: "batch", resource: "jobs"},
	{verb: "get", group: "batch", resource: "jobs", namespace: anyNamespace},
	{verb: "create", group: "batch", resource: "jobs", namespace: anyNamespace},
	{verb: "delete", group: "batch", resource: "jobs", namespace: anyNamespace},
	{verb: "create", group: "events.k8s.io", resource: "events", namespace: anyNamespace},
	{verb: "patch", group: "events.k8s.io", resource: "events", namespace: anyNamespace},
	{verb: "create", resource: "events", namespace: operatorNamespace},
	{verb: "patch", resource: "events", namespace: operatorNamespace},
	{verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: operatorNamespace},
	{verb: "get", group: "coordination.k8s.io", resource: "leases", namespace: operatorNamespace, name: leaderElectionID},
	{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: operatorNamespace, name: leaderElectionID},
	{verb: "list", resource: "secrets", namespace: operatorNamespace, name: webhookCertSecret},
	{verb: "watch", resource: "secrets", namespace: operatorNamespace, name: webhookCertSecret},
	{verb: "update", resource: "secrets", namespace: operatorNamespace, name: webhookCertSecret},
	{verb: "list", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", name: validatingConfig},
	{verb: "watch", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", name: validatingConfig},
	{verb: "update", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", name: validatingConfig},
	// The CronJob CRD, by name, for the caBundle of its conversion webhook (v1 and v2).
	{verb: "list", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", name: "cronjobs.batch.cronjob-operator.dev"},
	{verb: "watch", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", name: "cronjobs.batch.cronjob-operator.dev"},
	{verb: "update", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", name: "cronjobs.batch.cronjob-operator.dev"},
	{verb: "create", group: "authentication.k8s.io", resource: "tokenreviews"},
	{verb: "create", group: "authorization.k8s.io", resource: "subjectaccessreviews"},
}

// managerMustNot is what the manager must not be able to do, above all what a compromised manager could
// turn against the cluster: change the users' CronJobs or the CRD, take over other admission webhooks,
// read Secrets, run Pods, widen its own rights.
var managerMustNot = []request{
	// The users' CronJobs are theirs: the controller writes their status, and patches only to pause one
	// after failures (spec.suspend and the paused-at annotation; managerNeeds).
	{verb: "create", group: "batch.cronjob-operator.dev", resource: "cronjobs", namespace: anyNamespace},
	{verb: "update", group: "batch.cronjob-operator.dev", resource: "cronjobs", namespace: anyNamespace},
	{verb: "delete", group: "batch.cronjob-operator.dev", resource: "cronjobs", namespace: anyNamespace},
	{verb: "patch", group: "batch.cronjob-operator.dev", resource: "cronjobs", subresource: "status", namespace: anyNamespace},
	// Runs are the users' requests: the controller follows, updates (its owner reference) and prunes them.
	{verb: "create", group: "batch.cronjob-operator.dev", resource: "cronjobruns", namespace: anyNamespace},
	// The CRDs: no delete, no patch, no status update (storedVersions), no other CRD; the CronJob CRD is
	// updated only for its conversion webhook's caBundle (managerNeeds).
	{verb: "delete", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", name: "cronjobs.batch.cronjob-operator.dev"},
	{verb: "patch", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", name: "cronjobs.batch.cronjob-operator.dev"},
	{verb: "update", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", subresource: "status", name: "cronjobs.batch.cronjob-operator.dev"},
	{verb: "update", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", name: "cronjobruns.batch.cronjob-operator.dev"},
	{verb: "list", group: "apiextensions.k8s.io", resource: "customresourcedefinitions"},
	{verb: "create", group: "apiextensions.k8s.io", resource: "customresourcedefinitions"},
	// Jobs are created and deleted, never changed; their Pods are the Job controller's.
	{verb: "update", group: "batch", resource: "jobs", namespace: anyNamespace},
	{verb: "patch", group: "batch", resource: "jobs", namespace: anyNamespace},
	{verb: "deletecollection", group: "batch", resource: "jobs", namespace: anyNamespace},
	{verb: "create", resource: "pods", namespace: anyNamespace},
	{verb: "create", resource: "pods", namespace: operatorNamespace},
	{verb: "create", resource: "pods", subresource: "exec", namespace: anyNamespace},
	{verb: "create", group: "batch", resource: "cronjobs", namespace: anyNamespace},
	// Webhook configurations: its own validating one, by name, to set its caBundle; no other, and no create
	// or delete. There is no mutating one (the old one's name included: a cluster may still hold it).
	{verb: "update", group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations", name: mutatingConfig},
	{verb: "list", group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations", name: mutatingConfig},
	{verb: "update", group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations", name: "someone-elses-webhook"},
	{verb: "update", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", name: "someone-elses-webhook"},
	{verb: "list", group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations"},
	{verb: "watch", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations"},
	{verb: "get", group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations", name: "someone-elses-webhook"},
	{verb: "create", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations"},
	{verb: "delete", group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations", name: mutatingConfig},
	{verb: "patch", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", name: validatingConfig},
	// Secrets: its certificate's, to list, watch and update; nothing else, nowhere else.
	{verb: "get", resource: "secrets", namespace: operatorNamespace, name: "another-secret"},
	{verb: "list", resource: "secrets", namespace: operatorNamespace},
	{verb: "watch", resource: "secrets", namespace: operatorNamespace},
	{verb: "list", resource: "secrets", namespace: operatorNamespace, name: "another-secret"},
	{verb: "get", resource: "secrets", namespace: anyNamespace, name: webhookCertSecret},
	{verb: "list", resource: "secrets", namespace: anyNamespace},
	{verb: "list", resource: "secrets"},
	{verb: "create", resource: "secrets", namespace: operatorNamespace},
	{verb: "delete", resource: "secrets", namespace: operatorNamespace, name: webhookCertSecret},
	{verb: "patch", resource: "secrets", namespace: operatorNamespace, name: webhookCertSecret},
	// Leases: its own, in its namespace; never another's, never a delete.
	{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: operatorNamespace, name: "someone-elses-lease"},
	{verb: "delete", group: "coordination.k8s.io", resource: "leases", namespace: operatorNamespace, name: leaderElectionID},
	{verb: "list", group: "coordination.k8s.io", resource: "leases", namespace: operatorNamespace},
	{verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: "kube-system"},
	{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: "kube-system", name: "kube-controller-manager"},
	// Core Events only for the leader election, in its own namespace.
	{verb: "create", resource: "events", namespace: anyNamespace},
	// No rights over rights, identities or the rest of the cluster.
	{verb: "escalate", group: "rbac.authorization.k8s.io", resource: "clusterroles"},
	{verb: "bind", group: "rbac.authorization.k8s.io", resource: "clusterroles"},
	{verb: "create", group: "rbac.authorization.k8s.io", resource: "clusterrolebindings"},
	{verb: "create", group: "rbac.authorization.k8s.io", resource: "rolebindings", namespace: anyNamespace},
	{verb: "impersonate", resource: "serviceaccounts"},
	{verb: "create", resource: "serviceaccounts", subresource: "token", namespace: operatorNamespace, name: "cronjob-operator-controller-manager"},
	{verb: "list", resource: "namespaces"},
	{verb: "list", resource: "configmaps", namespace: anyNamespace},
	{verb: "patch", resource: "nodes"},
}

var _ = Describe("RBAC", Ordered, ContinueOnFailure, func() {
	var rendered []*unstructured.Unstructured
	BeforeAll(func(ctx SpecContext) {
		By("rendering config/default and applying its RBAC")
		var err error
		rendered, err = framework.Kustomize(ctx, "config/default")
		Expect(err).NotTo(HaveOccurred())
		Expect(framework.ApplyRBAC(ctx, k8sClient, rendered)).To(Succeed())
		By("waiting until the authorizer has seen the manager's bindings")
		expectAnswers(ctx, managerUser, serviceAccountGroups, managerNeeds, all(true, managerNeeds))
	})

	When("config/default is applied", func() {
		It("should allow the manager's ServiceAccount every request the manager makes", func(ctx SpecContext) {
			got := allowed(ctx, managerUser, serviceAccountGroups, managerNeeds)
			Expect(cmp.Diff(all(true, managerNeeds), got)).To(BeEmpty(), "allowed (-want,+got)")
		})

		It("should deny the manager's ServiceAccount every request it has no use for", func(ctx SpecContext) {
			got := allowed(ctx, managerUser, serviceAccountGroups, managerMustNot)
			Expect(cmp.Diff(all(false, managerMustNot), got)).To(BeEmpty(), "allowed (-want,+got)")
		})

		It("should give the viewer, editor and admin roles what they promise, in their namespace only", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			for _, role := range []string{"viewer", "editor", "admin"} {
				Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: role},
					RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cronjob-operator-cronjob-" + role + "-role"},
					Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: role}},
				})).To(Succeed())
			}
			cronJobs := func(verb, subresource, namespace string) request {
				return request{verb: verb, group: "batch.cronjob-operator.dev", resource: "cronjobs", subresource: subresource, namespace: namespace}
			}
			reqs := []request{
				cronJobs("get", "", ns), cronJobs("list", "", ns), cronJobs("watch", "", ns),
				cronJobs("create", "", ns), cronJobs("update", "", ns), cronJobs("patch", "", ns), cronJobs("delete", "", ns),
				cronJobs("deletecollection", "", ns),
				cronJobs("get", "status", ns), cronJobs("update", "status", ns),
				cronJobs("get", "", anyNamespace), cronJobs("create", "", anyNamespace),
				{verb: "get", resource: "secrets", namespace: ns},
			}
			//                        get   list  watch create update patch delete delcol  status:get update  elsewhere:get create  secrets
			want := map[string][]bool{
				"viewer": {true, true, true, false, false, false, false, false, true, false, false, false, false},
				"editor": {true, true, true, true, true, true, true, false, true, false, false, false, false},
				"admin":  {true, true, true, true, true, true, true, true, true, false, false, false, false},
			}
			for user, answers := range want {
				wantByRequest := map[string]bool{}
				for i, r := range reqs {
					wantByRequest[r.String()] = answers[i]
				}
				expectAnswers(ctx, user, []string{"system:authenticated"}, reqs, wantByRequest)
			}
		})

		It("should let the cronjobrun editor trigger runs without any right on Jobs, and the viewer only read them", func(ctx SpecContext) {
			ns := newNamespace(ctx)
			for _, role := range []string{"viewer", "editor"} {
				Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "run-" + role},
					RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cronjob-operator-cronjobrun-" + role + "-role"},
					Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "run-" + role}},
				})).To(Succeed())
			}
			runs := func(verb, subresource, namespace string) request {
				return request{verb: verb, group: "batch.cronjob-operator.dev", resource: "cronjobruns", subresource: subresource, namespace: namespace}
			}
			reqs := []request{
				runs("get", "", ns), runs("list", "", ns), runs("watch", "", ns), runs("create", "", ns), runs("delete", "", ns),
				runs("update", "status", ns), runs("create", "", anyNamespace),
				{verb: "create", group: "batch", resource: "jobs", namespace: ns},
				{verb: "update", group: "batch.cronjob-operator.dev", resource: "cronjobs", namespace: ns},
			}
			//                            get   list  watch create delete status elsewhere jobs  cronjobs
			want := map[string][]bool{
				"run-viewer": {true, true, true, false, false, false, false, false, false},
				"run-editor": {true, true, true, true, true, false, false, false, false},
			}
			for user, answers := range want {
				wantByRequest := map[string]bool{}
				for i, r := range reqs {
					wantByRequest[r.String()] = answers[i]
				}
				expectAnswers(ctx, user, []string{"system:authenticated"}, reqs, wantByRequest)
			}
		})

		It("should label the user roles for aggregation into the built-in view, edit and admin ClusterRoles", func() {
			// envtest runs no kube-controller-manager, whose clusterrole-aggregation controller would fill
			// view, edit and admin from these labels: the spec checks the labels.
			got := map[string]map[string]string{}
			for _, o := range rendered {
				if o.GetKind() == "ClusterRole" && o.GetLabels()["app.kubernetes.io/name"] == "cronjob-operator" {
					for k, v := range o.GetLabels() {
						if strings.HasPrefix(k, rbacAggregatePrefix) {
							if got[o.GetName()] == nil {
								got[o.GetName()] = map[string]string{}
							}
							got[o.GetName()][k] = v
						}
					}
				}
			}
			want := map[string]map[string]string{
				"cronjob-operator-cronjob-viewer-role":      {rbacAggregatePrefix + "view": "true"},
				"cronjob-operator-cronjob-editor-role":      {rbacAggregatePrefix + "edit": "true"},
				"cronjob-operator-cronjob-admin-role":       {rbacAggregatePrefix + "admin": "true"},
				"cronjob-operator-cronjobrun-viewer-role":   {rbacAggregatePrefix + "view": "true"},
				"cronjob-operator-cronjobrun-editor-role":   {rbacAggregatePrefix + "edit": "true"},
				"cronjob-operator-croncalendar-viewer-role": {rbacAggregatePrefix + "view": "true"},
				"cronjob-operator-croncalendar-editor-role": {rbacAggregatePrefix + "edit": "true"},
			}
			Expect(cmp.Diff(want, got)).To(BeEmpty(), "aggregation labels (-want,+got)")
		})
	})
})

// rbacAggregatePrefix starts the labels the built-in ClusterRoles aggregate by.
const rbacAggregatePrefix = "rbac.authorization.k8s.io/aggregate-to-"
