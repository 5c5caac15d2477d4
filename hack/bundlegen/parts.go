package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Kinds the generator sorts the build by.
const (
	kindCRD         = "CustomResourceDefinition"
	kindClusterRole = "ClusterRole"
)

// parts are the objects of the build of config/manifests, sorted by what the bundle makes of them.
type parts struct {
	// base is the CSV's hand-written base.
	base *v1alpha1.ClusterServiceVersion
	// crds are the CustomResourceDefinitions, in the order of the build; crdObjects the same as the build
	// has them, which the bundle ships.
	crds       []*apiextensionsv1.CustomResourceDefinition
	crdObjects []*unstructured.Unstructured
	// deployment is the manager's Deployment: the CSV's install strategy.
	deployment *appsv1.Deployment
	// roles, clusterRoles and the bindings are the RBAC of the build: what is bound to the Deployment's
	// ServiceAccount becomes the CSV's permissions, the rest ships as it is.
	roles               []rbacv1.Role
	clusterRoles        []rbacv1.ClusterRole
	roleBindings        []rbacv1.RoleBinding
	clusterRoleBindings []rbacv1.ClusterRoleBinding
	// webhooks are the validating webhook configurations: the CSV's webhook definitions.
	webhooks []admissionregistrationv1.ValidatingWebhookConfiguration
	// services are the Services; the ones the webhooks call are OLM's to make, the rest ship.
	services []corev1.Service
	// serviceAccounts and secrets are the ServiceAccounts and Secrets, by name: OLM makes the
	// Deployment's ServiceAccount and the serving certificate's Secret, the rest ship.
	serviceAccounts []*unstructured.Unstructured
	secrets         []*unstructured.Unstructured
	// examples are the objects of a CRD's group and kind: the alm-examples.
	examples []*unstructured.Unstructured
	// others are the remaining objects, in the order of the build.
	others []*unstructured.Unstructured
}

// splitBuild decodes a multi-document YAML build and sorts its objects into parts. It returns an error if
// an object does not decode, or if the build has no CSV, no Deployment, or more than one of either.
func splitBuild(data []byte) (*parts, error) {
	objs, err := decodeObjects(data)
	if err != nil {
		return nil, err
	}
	p := &parts{}
	// The CRDs first: an example is an object of one of their kinds.
	var rest []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kindCRD {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := fromUnstructured(o, crd); err != nil {
				return nil, err
			}
			p.crds = append(p.crds, crd)
			p.crdObjects = append(p.crdObjects, o)
			continue
		}
		rest = append(rest, o)
	}
	for _, o := range rest {
		if err := p.add(o); err != nil {
			return nil, err
		}
	}
	if p.base == nil {
		return nil, errors.New("the build has no ClusterServiceVersion (config/manifests/bases)")
	}
	if p.deployment == nil {
		return nil, errors.New("the build has no Deployment (config/manager)")
	}
	return p, nil
}

// add files o under its part.
func (p *parts) add(o *unstructured.Unstructured) error {
	var err error
	switch o.GetKind() {
	case "ClusterServiceVersion":
		if p.base != nil {
			return errors.New("the build has more than one ClusterServiceVersion")
		}
		p.base = &v1alpha1.ClusterServiceVersion{}
		err = fromUnstructured(o, p.base)
	case "Deployment":
		if p.deployment != nil {
			return fmt.Errorf("the build has more than one Deployment (%s and %s): the CSV installs the manager's only", p.deployment.Name, o.GetName())
		}
		p.deployment = &appsv1.Deployment{}
		err = fromUnstructured(o, p.deployment)
	case "Role":
		err = appendTyped(o, &p.roles)
	case kindClusterRole:
		err = appendTyped(o, &p.clusterRoles)
	case "RoleBinding":
		err = appendTyped(o, &p.roleBindings)
	case "ClusterRoleBinding":
		err = appendTyped(o, &p.clusterRoleBindings)
	case "ValidatingWebhookConfiguration":
		err = appendTyped(o, &p.webhooks)
	case "MutatingWebhookConfiguration":
		err = fmt.Errorf("MutatingWebhookConfiguration %s: the generator makes validating and conversion webhook definitions only", o.GetName())
	case "Service":
		err = appendTyped(o, &p.services)
	case "ServiceAccount":
		p.serviceAccounts = append(p.serviceAccounts, o)
	case "Secret":
		p.secrets = append(p.secrets, o)
	default:
		if p.isExample(o) {
			p.examples = append(p.examples, o)
		} else {
			p.others = append(p.others, o)
		}
	}
	return err
}

// isExample reports whether o is an object of one of the build's CRDs.
func (p *parts) isExample(o *unstructured.Unstructured) bool {
	gvk := o.GroupVersionKind()
	return slices.ContainsFunc(p.crds, func(crd *apiextensionsv1.CustomResourceDefinition) bool {
		return crd.Spec.Group == gvk.Group && crd.Spec.Names.Kind == gvk.Kind
	})
}

// decodeObjects decodes a multi-document YAML stream; empty documents are skipped.
func decodeObjects(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decoding the build: %w", err)
		}
		if len(m) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: m})
		}
	}
}

// fromUnstructured converts o into the typed object into; it returns an error naming o if a field does not fit.
func fromUnstructured(o *unstructured.Unstructured, into any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
		return fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
	}
	return nil
}

// appendTyped converts o into a T and appends it to list.
func appendTyped[T any](o *unstructured.Unstructured, list *[]T) error {
	var t T
	if err := fromUnstructured(o, &t); err != nil {
		return err
	}
	*list = append(*list, t)
	return nil
}
