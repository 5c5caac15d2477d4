package main

import (
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// boundRBAC names the roles and bindings that the CSV's permissions stand for, by name: they do not ship.
type boundRBAC struct {
	roles, clusterRoles, roleBindings, clusterRoleBindings map[string]bool
}

// permissions returns the CSV's permissions (the rules of the Roles, and of ClusterRoles, that RoleBindings
// grant the ServiceAccount sa: OLM grants them in the operator's namespace) and clusterPermissions (the
// rules of the ClusterRoles that ClusterRoleBindings grant sa), each without the certificate rotator's
// rules (withoutRotatorRules), and which roles and bindings they stand for. An empty set of rules gives no
// entry. A role also bound to someone else than sa still ships, so that binding keeps its role.
func (p *parts) permissions(sa string) (perms, clusterPerms []v1alpha1.StrategyDeploymentPermissions, bound boundRBAC) {
	bound = boundRBAC{roles: map[string]bool{}, clusterRoles: map[string]bool{}, roleBindings: map[string]bool{}, clusterRoleBindings: map[string]bool{}}
	roles := map[string][]rbacv1.PolicyRule{}
	for _, r := range p.roles {
		roles[r.Name] = r.Rules
	}
	clusterRoles := map[string][]rbacv1.PolicyRule{}
	for _, r := range p.clusterRoles {
		clusterRoles[r.Name] = r.Rules
	}
	// Roles and ClusterRoles some other subject is bound to.
	shared := map[string]bool{}

	var nsRules []rbacv1.PolicyRule
	for _, b := range p.roleBindings {
		if !onlyServiceAccount(b.Subjects, sa) {
			shared[b.RoleRef.Kind+"/"+b.RoleRef.Name] = true
			continue
		}
		rules, ok := roles[b.RoleRef.Name]
		if b.RoleRef.Kind == kindClusterRole {
			rules, ok = clusterRoles[b.RoleRef.Name]
		}
		if !ok {
			continue // a binding to a role the build lacks: it ships, and means nothing to the CSV
		}
		nsRules = append(nsRules, rules...)
		bound.roleBindings[b.Name] = true
		if b.RoleRef.Kind == kindClusterRole {
			bound.clusterRoles[b.RoleRef.Name] = true
		} else {
			bound.roles[b.RoleRef.Name] = true
		}
	}
	var clusterRules []rbacv1.PolicyRule
	for _, b := range p.clusterRoleBindings {
		if !onlyServiceAccount(b.Subjects, sa) {
			shared[kindClusterRole+"/"+b.RoleRef.Name] = true
			continue
		}
		rules, ok := clusterRoles[b.RoleRef.Name]
		if !ok {
			continue
		}
		clusterRules = append(clusterRules, rules...)
		bound.clusterRoleBindings[b.Name] = true
		bound.clusterRoles[b.RoleRef.Name] = true
	}
	for name := range bound.roles {
		if shared["Role/"+name] {
			delete(bound.roles, name)
		}
	}
	for name := range bound.clusterRoles {
		if shared[kindClusterRole+"/"+name] {
			delete(bound.clusterRoles, name)
		}
	}
	if rules := withoutRotatorRules(nsRules); len(rules) > 0 {
		perms = []v1alpha1.StrategyDeploymentPermissions{{ServiceAccountName: sa, Rules: rules}}
	}
	if rules := withoutRotatorRules(clusterRules); len(rules) > 0 {
		clusterPerms = []v1alpha1.StrategyDeploymentPermissions{{ServiceAccountName: sa, Rules: rules}}
	}
	return perms, clusterPerms, bound
}

// onlyServiceAccount reports whether subjects is the ServiceAccount sa and nothing else.
func onlyServiceAccount(subjects []rbacv1.Subject, sa string) bool {
	return len(subjects) == 1 && subjects[0].Kind == rbacv1.ServiceAccountKind && subjects[0].Name == sa
}

// toUnstructured converts a typed object to an unstructured one.
func toUnstructured(obj any) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}
