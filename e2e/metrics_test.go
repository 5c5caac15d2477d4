//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
)

// metricsReaderRole is the ClusterRole that config/rbac grants to whoever may scrape /metrics.
const metricsReaderRole = "cronjob-operator-metrics-reader"

var _ = Describe("Metrics", Label("conformance"), func() {
	It("should serve /metrics and /metrics/state only to a ServiceAccount bound to the metrics-reader role, with the skew and the state of a run", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		// successDeadlineSeconds: the dead-man's switch, whose Healthy condition the state metrics carry.
		cj := minutely("measured", ns, 0, 0).SuccessDeadlineSeconds(3600).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		Eventually(func(g Gomega) { g.Expect(jobsOf(ctx, g, cj)).NotTo(BeEmpty()) }).WithTimeout(runWait).Should(Succeed())

		By("making two ServiceAccounts, one bound to " + metricsReaderRole)
		allowed, denied := serviceAccountToken(ctx, ns, "scraper"), serviceAccountToken(ctx, ns, "stranger")
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-metrics-" + ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsReaderRole},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "scraper"}},
		}
		Expect(k8sClient.Create(ctx, binding)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, binding))).To(Succeed()) })

		By("forwarding a local port to the leader's metrics port (8443)")
		var leader string
		Eventually(func(g Gomega) { leader = leaseHolder(ctx, g); g.Expect(leader).NotTo(BeEmpty()) }).Should(Succeed())
		addr := portForward(ctx, operatorNamespace, leader, 8443)
		scrapePath := func(g Gomega, path, token string) (int, string) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+path, nil)
			g.Expect(err).NotTo(HaveOccurred())
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			// The manager's metrics certificate is self-signed (controller-runtime's default without
			// --metrics-cert-path): this spec checks authorization, not the certificate.
			c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
			resp, err := c.Do(req)
			g.Expect(err).NotTo(HaveOccurred())
			defer func() { _ = resp.Body.Close() }()
			body, err := io.ReadAll(resp.Body)
			g.Expect(err).NotTo(HaveOccurred())
			return resp.StatusCode, string(body)
		}
		for _, path := range []string{"/metrics", metrics.StatePath} {
			Eventually(func(g Gomega) int { code, _ := scrapePath(g, path, ""); return code }).Should(Equal(http.StatusUnauthorized), "%s with no token", path)
			Eventually(func(g Gomega) int { code, _ := scrapePath(g, path, denied); return code }).Should(Equal(http.StatusForbidden), "%s with a token without the role", path)
		}
		Eventually(func(g Gomega) {
			code, body := scrapePath(g, "/metrics", allowed)
			g.Expect(code).To(Equal(http.StatusOK), "a token bound to %s", metricsReaderRole)
			g.Expect(body).To(ContainSubstring(metrics.MetricJobCreationSkew + "_count"))
			g.Expect(body).To(MatchRegexp(`(?m)^%s_count [1-9]`, metrics.MetricJobCreationSkew), "the run's skew was observed")
		}).WithTimeout(2 * time.Minute).Should(Succeed())
		Eventually(func(g Gomega) {
			code, body := scrapePath(g, metrics.StatePath, allowed)
			g.Expect(code).To(Equal(http.StatusOK), "a token bound to %s", metricsReaderRole)
			g.Expect(body).To(MatchRegexp(`(?m)^%s\{cronjob="measured",namespace="%s"\} [1-9]`, metrics.MetricLastScheduleTime, ns), "the run's scheduled time")
			g.Expect(body).To(MatchRegexp(`(?m)^%s\{condition="Healthy",cronjob="measured",namespace="%s",reason="SucceededRecently",status="true"\} 1$`,
				metrics.MetricCondition, ns), "the dead-man's switch: Healthy, which the alert CronJobNoRecentSuccess reads")
			g.Expect(body).To(MatchRegexp(`(?m)^%s\{cronjob="measured",namespace="%s"\} 3600$`, metrics.MetricSuccessDeadline, ns))
		}).WithTimeout(2 * time.Minute).Should(Succeed())
	})
})

// serviceAccountToken creates the ServiceAccount and returns a token of it (TokenRequest, 10 minutes).
func serviceAccountToken(ctx context.Context, ns, name string) string {
	GinkgoHelper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	Expect(k8sClient.Create(ctx, sa)).To(Succeed())
	var tr *authenticationv1.TokenRequest
	Eventually(func(g Gomega) {
		var err error
		tr, err = clientset.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)},
		}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
	}).Should(Succeed())
	return tr.Status.Token
}

// portForward forwards a free local port to the pod's port until the spec ends and returns the local
// host:port.
func portForward(ctx context.Context, ns, pod string, port int) string {
	GinkgoHelper()
	transport, upgrader, err := spdy.RoundTripperFor(cfg)
	Expect(err).NotTo(HaveOccurred())
	u, err := url.Parse(strings.TrimSuffix(cfg.Host, "/") + fmt.Sprintf("/api/v1/namespaces/%s/pods/%s/portforward", ns, pod))
	Expect(err).NotTo(HaveOccurred())
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, u)
	stop, ready := make(chan struct{}), make(chan struct{})
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stop, ready, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	errs := make(chan error, 1)
	go func() { errs <- fw.ForwardPorts() }()
	DeferCleanup(func() { close(stop) })
	select {
	case <-ready:
	case err := <-errs:
		Fail(fmt.Sprintf("port-forward to %s/%s:%d: %v", ns, pod, port, err))
	case <-ctx.Done():
		Fail("port-forward: " + ctx.Err().Error())
	}
	ports, err := fw.GetPorts()
	Expect(err).NotTo(HaveOccurred())
	return fmt.Sprintf("127.0.0.1:%d", ports[0].Local)
}
