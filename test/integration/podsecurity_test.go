package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// The kube-apiserver's PodSecurity admission checks the manager's Pod, as config/manager ships it, against
// the labels of config/manager's own Namespace: the Pod a cluster runs must pass the restricted standard.
var _ = Describe("Pod Security of the manager", func() {
	When("its Pod is created in a Namespace labelled as config/manager labels the manager's", func() {
		var (
			ns       string
			c        client.Client
			warnings *warningRecorder
			pod      *corev1.Pod
		)
		BeforeEach(func(ctx SpecContext) {
			namespace, deployment := managerManifests()
			Expect(namespace.Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "restricted"))
			created := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "pod-security-", Labels: namespace.Labels}}
			Expect(k8sClient.Create(ctx, created)).To(Succeed())
			ns = created.Name

			c, warnings = warningClient()

			pod = &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "manager", Namespace: ns, Labels: deployment.Spec.Template.Labels},
				Spec:       deployment.Spec.Template.Spec,
			}
		})

		It("should admit it, with no Pod Security warning", func(ctx SpecContext) {
			Expect(c.Create(ctx, pod, client.DryRunAll)).To(Succeed())
			Expect(warnings.get()).To(BeEmpty())
		})

		It("should reject it when its container may escalate privileges", func(ctx SpecContext) {
			pod.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
			err := c.Create(ctx, pod, client.DryRunAll)
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "want Forbidden by PodSecurity, got %v", err)
			Expect(err.Error()).To(ContainSubstring(`violates PodSecurity "restricted:latest"`))
		})
	})
})

// managerManifests returns the Namespace and the Deployment of config/manager/manager.yaml.
func managerManifests() (*corev1.Namespace, *appsv1.Deployment) {
	GinkgoHelper()
	_, file, _, ok := runtime.Caller(0)
	Expect(ok).To(BeTrue())
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "config", "manager", "manager.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var (
		namespace  *corev1.Namespace
		deployment *appsv1.Deployment
	)
	for doc := range bytes.SplitSeq(raw, []byte("\n---\n")) {
		var meta metav1.TypeMeta
		Expect(yaml.Unmarshal(doc, &meta)).To(Succeed())
		switch meta.Kind {
		case "Namespace":
			namespace = &corev1.Namespace{}
			Expect(yaml.UnmarshalStrict(doc, namespace)).To(Succeed())
		case "Deployment":
			deployment = &appsv1.Deployment{}
			Expect(yaml.UnmarshalStrict(doc, deployment)).To(Succeed())
		}
	}
	Expect(namespace).NotTo(BeNil(), "config/manager/manager.yaml has no Namespace")
	Expect(deployment).NotTo(BeNil(), "config/manager/manager.yaml has no Deployment")
	return namespace, deployment
}
