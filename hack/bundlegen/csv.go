package main

import (
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/operator-framework/api/pkg/lib/version"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// bundle is a bundle in memory: what write puts into dist/bundle.
type bundle struct {
	csv *v1alpha1.ClusterServiceVersion
	// crds are the CustomResourceDefinitions as the build has them.
	crds []*unstructured.Unstructured
	// others are the other objects OLM installs from the bundle, without a namespace (OLM installs them in
	// the operator's).
	others []*unstructured.Unstructured
	// channels and defaultChannel go into metadata/annotations.yaml.
	channels       []string
	defaultChannel string
	// notes say what of the build OLM cannot carry over (such as a webhook's matchConditions).
	notes []string
}

// managedByLabel is the label kustomize's build carries; in a bundle OLM manages the objects.
const managedByLabel = "app.kubernetes.io/managed-by"

// makeBundle makes the bundle of the build data (kustomize build config/manifests) for o. It returns an
// error if the build lacks a part of the bundle or has one that OLM cannot install, if the manager cannot
// stand aside for OLM's certificate (standAside), or if the CSV base does not describe exactly the served
// versions of the CRDs, or describes a field the CRD schema does not have.
func makeBundle(data []byte, o options) (*bundle, error) {
	p, err := splitBuild(data)
	if err != nil {
		return nil, err
	}
	csv := p.base.DeepCopy()
	csv.Name = fmt.Sprintf("%s.v%s", packageName, o.version)
	csv.Namespace = ""
	csv.Spec.Version = version.OperatorVersion{Version: o.version}
	if len(o.icon) > 0 {
		csv.Spec.Icon = []v1alpha1.Icon{{MediaType: "image/svg+xml", Data: base64.StdEncoding.EncodeToString(o.icon)}}
	}
	csv.Spec.RelatedImages = []v1alpha1.RelatedImage{{Name: managerContainer, Image: o.image}}

	dep := p.deployment.DeepCopy()
	certSecrets, err := standAside(&dep.Spec.Template.Spec)
	if err != nil {
		return nil, err
	}
	for i := range dep.Spec.Template.Spec.Containers {
		if dep.Spec.Template.Spec.Containers[i].Name == managerContainer {
			dep.Spec.Template.Spec.Containers[i].Image = o.image
		}
	}
	delete(dep.Labels, managedByLabel)
	sa := dep.Spec.Template.Spec.ServiceAccountName
	if sa == "" {
		return nil, fmt.Errorf("the Deployment %s names no serviceAccountName: the CSV's permissions are granted to it", dep.Name)
	}
	strategy := v1alpha1.StrategyDetailsDeployment{
		DeploymentSpecs: []v1alpha1.StrategyDeploymentSpec{{Name: dep.Name, Label: dep.Labels, Spec: dep.Spec}},
	}
	var bound boundRBAC
	strategy.Permissions, strategy.ClusterPermissions, bound = p.permissions(sa)
	csv.Spec.InstallStrategy = v1alpha1.NamedInstallStrategy{StrategyName: v1alpha1.InstallStrategyNameDeployment, StrategySpec: strategy}

	webhooks, webhookServices, notes, err := p.webhookDefinitions(dep)
	if err != nil {
		return nil, err
	}
	csv.Spec.WebhookDefinitions = webhooks
	if csv.Spec.CustomResourceDefinitions.Owned, err = ownedCRDs(p.base.Spec.CustomResourceDefinitions.Owned, p.crds); err != nil {
		return nil, err
	}
	if csv.Annotations == nil {
		csv.Annotations = map[string]string{}
	}
	if csv.Annotations["alm-examples"], err = almExamples(p.examples); err != nil {
		return nil, err
	}
	csv.Annotations["containerImage"] = o.image

	others, err := p.shipped(sa, bound, webhookServices, certSecrets)
	if err != nil {
		return nil, err
	}
	return &bundle{csv: csv, crds: p.crdObjects, others: others, channels: o.channels, defaultChannel: o.defaultChannel, notes: notes}, nil
}

// shipped returns the objects that ship in the bundle as they are, without namespace and kustomize's
// managed-by label: all but those the CSV or OLM stand for (the Namespace, the ServiceAccount sa, the
// RBAC bound to it, the webhook Services, the certificate Secrets). It returns an error for an object of a
// kind a registry+v1 bundle cannot hold.
func (p *parts) shipped(sa string, bound boundRBAC, webhookServices, certSecrets []string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	add := func(o *unstructured.Unstructured) {
		o = o.DeepCopy()
		o.SetNamespace("")
		if l := o.GetLabels(); l != nil {
			delete(l, managedByLabel)
			o.SetLabels(l)
		}
		out = append(out, o)
	}
	for _, o := range p.serviceAccounts {
		if o.GetName() != sa {
			add(o)
		}
	}
	for _, o := range p.secrets {
		if !slices.Contains(certSecrets, o.GetName()) {
			add(o)
		}
	}
	for _, typed := range p.typedShipped(bound, webhookServices) {
		o, err := toUnstructured(typed)
		if err != nil {
			return nil, err
		}
		add(o)
	}
	for _, o := range p.others {
		if o.GetKind() == "Namespace" {
			continue // OLM installs into the OperatorGroup's namespace
		}
		if !slices.Contains(supportedKinds, o.GetKind()) {
			return nil, fmt.Errorf("%s %s: a registry+v1 bundle cannot hold a %s", o.GetKind(), o.GetName(), o.GetKind())
		}
		add(o)
	}
	return out, nil
}

// typedShipped returns the typed objects of p that ship as they are: the RBAC not bound to the manager's
// ServiceAccount (bound says which is) and the Services the webhooks do not call.
func (p *parts) typedShipped(bound boundRBAC, webhookServices []string) []any {
	var out []any
	for i := range p.roles {
		if !bound.roles[p.roles[i].Name] {
			out = append(out, &p.roles[i])
		}
	}
	for i := range p.clusterRoles {
		if !bound.clusterRoles[p.clusterRoles[i].Name] {
			out = append(out, &p.clusterRoles[i])
		}
	}
	for i := range p.roleBindings {
		if !bound.roleBindings[p.roleBindings[i].Name] {
			out = append(out, &p.roleBindings[i])
		}
	}
	for i := range p.clusterRoleBindings {
		if !bound.clusterRoleBindings[p.clusterRoleBindings[i].Name] {
			out = append(out, &p.clusterRoleBindings[i])
		}
	}
	for i := range p.services {
		if !slices.Contains(webhookServices, p.services[i].Name) {
			out = append(out, &p.services[i])
		}
	}
	return out
}

// supportedKinds are the kinds a registry+v1 bundle may hold besides the CSV and CRDs (operator-registry's
// supported resources).
var supportedKinds = []string{
	"Secret", kindClusterRole, "ClusterRoleBinding", "ConfigMap", "ServiceAccount", "Service", "Role", "RoleBinding",
	"PrometheusRule", "ServiceMonitor", "PodDisruptionBudget", "PriorityClass", "VerticalPodAutoscaler",
	"ConsoleYAMLSample", "ConsoleQuickStart", "ConsoleCLIDownload", "ConsoleLink", "NetworkPolicy",
}
