package framework

import (
	"context"
	"errors"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/cronjob-operator/cronjob-operator/controllers"
)

// ManagerOptions configures a manager started by StartManager.
type ManagerOptions struct {
	// Namespace restricts the manager's cache, and so the controller, to one namespace. Empty means all
	// namespaces. Specs set their own namespace, so that a manager never acts on the objects earlier specs
	// left behind (envtest cannot delete namespaces).
	Namespace string
	// Clock is the controller's clock. Nil means the real clock. A *Clock (or any clock.WithTicker that is
	// not the real clock) also drives the controller's workqueue, so RequeueAfter delays elapse only when
	// the spec moves the clock.
	Clock clock.PassiveClock
	// MaxConcurrentReconciles is passed to the reconciler; 0 means 1.
	MaxConcurrentReconciles int
}

// StartManager starts a manager that runs the CronJob controller, wired as main.go wires it, and waits
// until its cache has started. It returns a function that stops the manager and waits until it has
// stopped; register it with DeferCleanup. The manager does not take a context: a Ginkgo node's
// SpecContext ends with the node, which would stop a manager started in a BeforeEach.
//
// Health probes, metrics and leader election are off, and controller name validation is skipped, so
// managers can be started one after another in the same test process. It serves no webhooks: the suite's
// one webhook server, started by Init, does (a manager only starts a webhook server once something asks
// for it with GetWebhookServer, and the controller does not).
func (f *Framework) StartManager(opts ManagerOptions) (stop func()) {
	mgrOpts := ctrl.Options{
		Scheme:                 Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if opts.Namespace != "" {
		mgrOpts.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{opts.Namespace: {}}}
	}
	mgr, err := ctrl.NewManager(f.cfg, mgrOpts)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "creating the manager")

	r := &controllers.CronJobReconciler{
		Client:                  mgr.GetClient(),
		APIReader:               mgr.GetAPIReader(),
		Scheme:                  mgr.GetScheme(),
		Recorder:                mgr.GetEventRecorder(controllers.ControllerName),
		Clock:                   opts.Clock,
		MaxConcurrentReconciles: opts.MaxConcurrentReconciles,
	}
	gomega.ExpectWithOffset(1, r.SetupWithManager(mgr)).To(gomega.Succeed(), "setting up the CronJob controller")

	mgrCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		defer ginkgo.GinkgoRecover()
		done <- mgr.Start(mgrCtx)
	}()
	syncCtx, cancelSync := context.WithTimeout(mgrCtx, Timeout)
	defer cancelSync()
	synced := mgr.GetCache().WaitForCacheSync(syncCtx)
	if !synced {
		cancel()
	}
	gomega.ExpectWithOffset(1, synced).To(gomega.BeTrue(), "waiting for the manager's cache to start")

	return func() {
		cancel()
		var err error
		gomega.EventuallyWithOffset(1, done, Timeout).Should(gomega.Receive(&err), "waiting for the manager to stop")
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "the manager stopped with an error")
	}
}
