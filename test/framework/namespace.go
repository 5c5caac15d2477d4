package framework

import (
	"context"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CreateNamespace creates a namespace named prefix plus a random suffix and returns it. Each spec uses its
// own: envtest runs no namespace controller, so namespaces cannot be deleted and are left behind.
func CreateNamespace(ctx context.Context, c client.Client, prefix string) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	gomega.ExpectWithOffset(1, c.Create(ctx, ns)).To(gomega.Succeed(), "creating a namespace")
	return ns
}

// CreateNamespaceWithoutWebhooks is CreateNamespace for a namespace that the admission webhooks skip
// (labelled AdmissionWebhookLabel=off), so that a spec can create an object the webhooks would reject, as a
// cluster holds one admitted before the webhooks were deployed. The CRD schema and CEL rules still apply.
func CreateNamespaceWithoutWebhooks(ctx context.Context, c client.Client, prefix string) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: prefix + "-",
		Labels:       map[string]string{AdmissionWebhookLabel: "off"},
	}}
	gomega.ExpectWithOffset(1, c.Create(ctx, ns)).To(gomega.Succeed(), "creating a namespace")
	return ns
}
