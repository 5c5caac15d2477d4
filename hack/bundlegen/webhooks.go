package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// webhookDefinitions returns the CSV's webhook definitions: one per webhook of the validating webhook
// configurations, and one conversion webhook per CRD whose conversion strategy is Webhook. OLM makes the
// Service (<deployment>-service, the port and target port of the build's Service) and the configurations
// from them. It also returns the names of the build's Services the webhooks call (OLM's replace them) and
// notes on what a webhook of the build has that a definition cannot carry. It returns an error if a
// webhook calls a URL, or a Service the build lacks or that does not select the Deployment's Pods.
func (p *parts) webhookDefinitions(dep *appsv1.Deployment) (defs []v1alpha1.WebhookDescription, services, notes []string, err error) {
	for _, cfg := range p.webhooks {
		for _, w := range cfg.Webhooks {
			port, err := p.webhookPort(dep, w.ClientConfig.Service, "webhook "+w.Name)
			if err != nil {
				return nil, nil, nil, err
			}
			if len(w.MatchConditions) > 0 {
				notes = append(notes, fmt.Sprintf("webhook %s: its matchConditions are not carried over (a CSV webhook definition has none): OLM's configuration sends it every request its rules match", w.Name))
			}
			if w.NamespaceSelector != nil {
				notes = append(notes, fmt.Sprintf("webhook %s: its namespaceSelector is not carried over: OLM selects the OperatorGroup's namespaces", w.Name))
			}
			defs = append(defs, v1alpha1.WebhookDescription{
				GenerateName:            w.Name,
				Type:                    v1alpha1.ValidatingAdmissionWebhook,
				DeploymentName:          dep.Name,
				ContainerPort:           port.Port,
				TargetPort:              ptr.To(port.TargetPort),
				Rules:                   w.Rules,
				FailurePolicy:           w.FailurePolicy,
				MatchPolicy:             w.MatchPolicy,
				ObjectSelector:          w.ObjectSelector,
				SideEffects:             w.SideEffects,
				TimeoutSeconds:          w.TimeoutSeconds,
				AdmissionReviewVersions: w.AdmissionReviewVersions,
				WebhookPath:             w.ClientConfig.Service.Path,
			})
			services = appendUnique(services, w.ClientConfig.Service.Name)
		}
	}
	for _, crd := range p.crds {
		c := crd.Spec.Conversion
		if c == nil || c.Strategy != apiextensionsv1.WebhookConverter {
			continue
		}
		if c.Webhook == nil || c.Webhook.ClientConfig == nil || c.Webhook.ClientConfig.Service == nil {
			return nil, nil, nil, fmt.Errorf("CRD %s converts by webhook but names no Service", crd.Name)
		}
		svc := c.Webhook.ClientConfig.Service
		port, err := p.webhookPort(dep, &admissionregistrationv1.ServiceReference{Name: svc.Name, Namespace: svc.Namespace, Path: svc.Path, Port: svc.Port}, "the conversion webhook of CRD "+crd.Name)
		if err != nil {
			return nil, nil, nil, err
		}
		defs = append(defs, v1alpha1.WebhookDescription{
			GenerateName:            "c" + crd.Name,
			Type:                    v1alpha1.ConversionWebhook,
			DeploymentName:          dep.Name,
			ContainerPort:           port.Port,
			TargetPort:              ptr.To(port.TargetPort),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: c.Webhook.ConversionReviewVersions,
			WebhookPath:             svc.Path,
			ConversionCRDs:          []string{crd.Name},
		})
		services = appendUnique(services, svc.Name)
	}
	slices.SortStableFunc(defs, func(a, b v1alpha1.WebhookDescription) int { return strings.Compare(a.GenerateName, b.GenerateName) })
	return defs, services, notes, nil
}

// webhookPort returns the port of the build's Service that ref calls (443 when ref names none). It returns
// an error, naming what, if ref is nil (a URL), names no Service of the build, or a Service that does not
// select the Pods of dep or has no such port.
func (p *parts) webhookPort(dep *appsv1.Deployment, ref *admissionregistrationv1.ServiceReference, what string) (corev1.ServicePort, error) {
	if ref == nil {
		return corev1.ServicePort{}, fmt.Errorf("%s calls a URL: OLM serves webhooks through a Service in front of the Deployment only", what)
	}
	i := slices.IndexFunc(p.services, func(s corev1.Service) bool { return s.Name == ref.Name })
	if i < 0 {
		return corev1.ServicePort{}, fmt.Errorf("%s calls Service %s, which the build lacks", what, ref.Name)
	}
	svc := p.services[i]
	if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(dep.Spec.Template.Labels)) {
		return corev1.ServicePort{}, fmt.Errorf("%s calls Service %s, which does not select the Pods of Deployment %s", what, svc.Name, dep.Name)
	}
	want := ptr.Deref(ref.Port, 443)
	for _, port := range svc.Spec.Ports {
		if port.Port == want {
			if port.TargetPort == (intstr.IntOrString{}) {
				port.TargetPort = intstr.FromInt32(port.Port)
			}
			return port, nil
		}
	}
	return corev1.ServicePort{}, fmt.Errorf("%s calls port %d of Service %s, which has no such port", what, want, svc.Name)
}

// appendUnique appends s to list unless it is there.
func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
