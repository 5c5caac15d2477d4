package framework

import (
	"os"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
)

// Framework runs one envtest control plane (kube-apiserver and etcd, no controllers: no garbage collector,
// no Job controller, no namespace deletion) with the CRDs and the admission webhooks of this repository
// installed, and one webhook server that serves those webhooks for the whole suite.
//
// Init starts it and Teardown stops it; call them from BeforeSuite and AfterSuite. The zero value is ready
// to use.
type Framework struct {
	// CRDPaths are the directories or files of the CRDs to install. Empty means DefaultCRDPaths().
	CRDPaths []string
	// WebhookPaths are the files of the webhook configurations to install. Empty means
	// DefaultWebhookPaths(). Each webhook gets a namespace selector that skips the namespaces labelled
	// AdmissionWebhookLabel=off.
	WebhookPaths []string

	env         *envtest.Environment
	cfg         *rest.Config
	stopWebhook func()
	// certDir holds the kube-apiserver's serving certificates. The framework owns it, so that the API
	// server keeps its certificates, port and client CA across StopAPIServer and StartAPIServer (envtest
	// makes new ones when it picked the directory), and the rest config stays valid.
	certDir    string
	apiStopped bool
}

// Scheme returns a scheme with the built-in types and the CronJob API, the same as the manager's in main.go.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(cronjobv1.AddToScheme(s))
	utilruntime.Must(cronjobv2.AddToScheme(s))
	return s
}

// Init starts the control plane, installs the CRDs and the webhook configurations, starts the webhook
// server and waits until it accepts connections, and returns the control plane's rest config and a live
// (uncached) client for assertions. Controller logs go to the GinkgoWriter, so they are shown for failed
// specs only. It fails the suite if the control plane or the webhook server does not start.
func (f *Framework) Init() (*rest.Config, client.Client) {
	ctrl.SetLogger(zap.New(zap.WriteTo(ginkgo.GinkgoWriter), zap.UseDevMode(true)))

	assets, err := binaryAssetsDir()
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	crdPaths := f.CRDPaths
	if len(crdPaths) == 0 {
		crdPaths = DefaultCRDPaths()
	}
	webhookPaths := f.WebhookPaths
	if len(webhookPaths) == 0 {
		webhookPaths = DefaultWebhookPaths()
	}
	webhooks, err := webhookInstallOptions(webhookPaths)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	f.certDir, err = os.MkdirTemp("", "envtest-kube-apiserver-")
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	f.env = &envtest.Environment{
		CRDDirectoryPaths:     crdPaths,
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: webhooks,
		BinaryAssetsDirectory: assets,
		// The CRDs are installed with the conversion webhook of every kind with several versions in the
		// scheme (CronJob: v1 and v2) pointed at the test's webhook server, which serves /convert.
		Scheme: Scheme(),
	}
	f.env.ControlPlane.APIServer = &envtest.APIServer{CertDir: f.certDir}
	// On SIGTERM the API server waits for open requests to end; watches do not end by themselves, so
	// without a grace period for them StopAPIServer would wait for envtest's stop timeout (20 s).
	f.env.ControlPlane.APIServer.Configure().Set("shutdown-watch-termination-grace-period", "2s")
	ginkgo.By("starting the envtest control plane")
	f.cfg, err = f.env.Start()
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "starting envtest")
	gomega.ExpectWithOffset(1, f.cfg).NotTo(gomega.BeNil())
	f.stopWebhook = f.startWebhookServer()

	c, err := client.New(f.cfg, client.Options{Scheme: Scheme()})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "creating the live client")
	return f.cfg, c
}

// Environment is the envtest environment Init started, for what runs beside it (test/cluster); nil before
// Init.
func (f *Framework) Environment() *envtest.Environment { return f.env }

// Teardown stops the webhook server and the control plane. Managers must be stopped first.
func (f *Framework) Teardown() {
	if f.stopWebhook != nil {
		ginkgo.By("stopping the webhook server")
		f.stopWebhook()
		f.stopWebhook = nil
	}
	if f.env == nil {
		return
	}
	ginkgo.By("stopping the envtest control plane")
	gomega.ExpectWithOffset(1, f.env.Stop()).To(gomega.Succeed())
	gomega.ExpectWithOffset(1, os.RemoveAll(f.certDir)).To(gomega.Succeed())
}

// StopAPIServer stops the kube-apiserver (etcd keeps running): an outage of the control plane as its
// clients see it. Every request fails until StartAPIServer. Register StartAPIServer with DeferCleanup
// first, so a spec that fails during the outage does not leave the suite without an API server.
func (f *Framework) StopAPIServer() {
	ginkgo.By("stopping the kube-apiserver")
	gomega.ExpectWithOffset(1, f.env.ControlPlane.GetAPIServer().Stop()).To(gomega.Succeed(), "stopping the kube-apiserver")
	f.apiStopped = true
}

// StartAPIServer starts the kube-apiserver that StopAPIServer stopped, on the same address with the same
// certificates, and waits until it is healthy. It does nothing if the API server runs.
func (f *Framework) StartAPIServer() {
	if !f.apiStopped {
		return
	}
	ginkgo.By("starting the kube-apiserver again")
	gomega.ExpectWithOffset(1, f.env.ControlPlane.GetAPIServer().Start()).To(gomega.Succeed(), "starting the kube-apiserver")
	f.apiStopped = false
}
