package framework

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/cronjob-operator/cronjob-operator/controllers/cronjob"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/connrotation"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/cronjob-operator/cronjob-operator/controllers"
)

// ManagerOptions configures a manager started by StartManager.
type ManagerOptions struct {
	// Name identifies the manager: it is the user agent of its API requests, and so the field manager
	// recorded in the managedFields of the objects it creates, and its identity in leader election (the
	// Lease's holderIdentity). Empty means "cronjob-operator". Give each manager of a spec its own name.
	Name string
	// Namespace restricts the manager's cache, and so the controller, to one namespace. Empty means all
	// namespaces. Specs set their own namespace, so that a manager never acts on the objects earlier specs
	// left behind (envtest cannot delete namespaces).
	Namespace string
	// WatchNamespaces, when set, restricts the manager's cache to these namespaces instead of Namespace, as
	// main.go's --watch-namespaces does.
	WatchNamespaces []string
	// User, when set, is the user the manager's requests are made as (impersonated by the control plane's
	// admin), for example a ServiceAccount's "system:serviceaccount:<namespace>:<name>", so the manager has
	// that user's rights only. Empty means the admin.
	User string
	// Clock is the controller's clock. Nil means the real clock. A *Clock (or any clock.WithTicker that is
	// not the real clock) also drives the controller's workqueue, so RequeueAfter delays elapse only when
	// the spec moves the clock. Managers on one time line take Shares of one Clock.
	Clock clock.PassiveClock
	// MaxConcurrentReconciles is passed to the reconciler; 0 means 1.
	MaxConcurrentReconciles int
	// MaxWaitingRunsPerCronJob is controllers.Options.MaxWaitingRunsPerCronJob; 0 means its default (100).
	MaxWaitingRunsPerCronJob int
	// LeaderElection, if set, makes the manager run the controller only while it holds the Lease.
	LeaderElection *LeaderElection
	// OnReconcile, if set, is called with the outcome of every reconcile (controllers.Options.OnReconcile);
	// see Outcomes for a recorder.
	OnReconcile func(types.NamespacedName, cronjob.Outcome)
	// MetricsBindAddress, if set (host:port), serves controller-runtime's metrics registry there over plain
	// HTTP, as main.go does with --metrics-secure=false. Empty serves none. The registry is the process's:
	// counters add up over every manager of the process.
	MetricsBindAddress string
}

// LeaderElection configures the leader election of a manager, as main.go's --leader-elect does. Leader
// election runs on the real clock (client-go's elector has no clock to inject): lease times are real.
type LeaderElection struct {
	// Namespace and ID name the Lease; managers that compete for one use the same.
	Namespace, ID string
	// LeaseDuration, RenewDeadline and RetryPeriod are client-go's; zero means controller-runtime's default
	// (15 s, 10 s, 2 s). A follower takes over a Lease that was not released once LeaseDuration has passed
	// since it last saw it renewed; it tries every RetryPeriod.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// ReleaseOnCancel makes a stopped leader give the Lease up (after its controller has stopped), so a
	// follower takes over within a RetryPeriod. main.go sets it. Manager.Kill stops a manager without a
	// release even so.
	ReleaseOnCancel bool
}

// ShortLeases is a LeaderElection for specs that hand over many times: a lost leader is replaced once its
// LeaseDuration has passed, and a released Lease within a RetryPeriod.
func ShortLeases(ns, id string) *LeaderElection {
	return &LeaderElection{
		Namespace: ns, ID: id,
		LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 200 * time.Millisecond,
		ReleaseOnCancel: true,
	}
}

// Manager is a running manager started by StartManager.
type Manager struct {
	name    string
	elected <-chan struct{}
	cancel  context.CancelFunc
	done    chan error
	stopped bool
	network *network
	cache   client.Reader
}

// Cache reads from the manager's cache, as its controllers do: a spec that must show what the cache holds
// (not the API server's state) reads through it.
func (m *Manager) Cache() client.Reader { return m.cache }

// Name is the manager's name (ManagerOptions.Name).
func (m *Manager) Name() string { return m.name }

// Elected is closed once the manager leads (at once without leader election), that is once its controller
// starts.
func (m *Manager) Elected() <-chan struct{} { return m.elected }

// Stop stops the manager and waits until it has stopped: its controller has finished its reconciles and,
// with ReleaseOnCancel, the Lease is released. Stopping a stopped manager does nothing. It fails the spec
// if the manager does not stop in Timeout or stops with an error.
func (m *Manager) Stop() {
	if m.stopped {
		return
	}
	m.stopped = true
	m.cancel()
	var err error
	gomega.EventuallyWithOffset(1, m.done, Timeout).Should(gomega.Receive(&err), "waiting for manager %s to stop", m.name)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "manager %s stopped with an error", m.name)
}

// Disconnect cuts the manager's connections to the API server, as a network partition or a frozen
// process does: from then on none of its requests gets through, so it creates nothing and cannot renew a
// Lease, but it keeps running until Stop or Kill. It may be called from an OnReconcile function, to cut a
// manager off right after a reconcile did something. Disconnecting twice does nothing more.
func (m *Manager) Disconnect() { m.network.cut() }

// Kill stops the manager the way a crash or a killed pod does, as far as the API server can tell: it
// cuts the manager's connections to the API server first, so no request of its shutdown (the release of
// the Lease above all) gets through, then stops it and waits until it has stopped. A Lease it held stays
// held until it expires. Errors of the shutdown are expected and ignored.
func (m *Manager) Kill() {
	if m.stopped {
		return
	}
	m.stopped = true
	m.network.cut()
	m.cancel()
	gomega.EventuallyWithOffset(1, m.done, Timeout).Should(gomega.Receive(), "waiting for manager %s to stop", m.name)
}

// StartManager starts a manager that runs the CronJob controller, wired by controllers.Setup as main.go
// wires it, and waits
// until its cache has started (not until it leads: see Manager.Elected). Register its Stop with
// DeferCleanup. The manager does not take a context: a Ginkgo node's SpecContext ends with the node, which
// would stop a manager started in a BeforeEach.
//
// Health probes and metrics serving are off (unless MetricsBindAddress is set), so managers can run one after another, or side by side, in
// the same test process. It serves no webhooks: the suite's one webhook server, started by Init, does (a
// manager only starts a webhook server once something asks for it with GetWebhookServer, and the
// controller does not).
func (f *Framework) StartManager(opts ManagerOptions) *Manager {
	name := opts.Name
	if name == "" {
		name = controllers.ControllerName
	}
	cfg := rest.CopyConfig(f.cfg)
	cfg.UserAgent = name
	nw := newNetwork()
	cfg.Dial = nw.dialer.DialContext
	mgrOpts := ctrl.Options{
		Scheme:                 Scheme(),
		Cache:                  controllers.CacheOptions(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}
	if opts.MetricsBindAddress != "" {
		mgrOpts.Metrics.BindAddress = opts.MetricsBindAddress
	}
	switch {
	case len(opts.WatchNamespaces) > 0:
		mgrOpts.Cache = controllers.CacheOptions(opts.WatchNamespaces...)
	case opts.Namespace != "":
		mgrOpts.Cache = controllers.CacheOptions(opts.Namespace)
	}
	if opts.User != "" {
		cfg.Impersonate = rest.ImpersonationConfig{UserName: opts.User}
	}
	if le := opts.LeaderElection; le != nil {
		lock, err := leaseLock(cfg, le, name)
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "creating the Lease lock of manager %s", name)
		mgrOpts.LeaderElection = true
		mgrOpts.LeaderElectionResourceLockInterface = lock
		mgrOpts.LeaderElectionReleaseOnCancel = le.ReleaseOnCancel
		mgrOpts.LeaseDuration = nonZero(le.LeaseDuration)
		mgrOpts.RenewDeadline = nonZero(le.RenewDeadline)
		mgrOpts.RetryPeriod = nonZero(le.RetryPeriod)
	}
	mgr, err := ctrl.NewManager(cfg, mgrOpts)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "creating manager %s", name)

	cronJobs, err := controllers.Setup(mgr, controllers.Options{
		Clock:                    opts.Clock,
		MaxConcurrentReconciles:  opts.MaxConcurrentReconciles,
		MaxWaitingRunsPerCronJob: opts.MaxWaitingRunsPerCronJob,
		OnReconcile:              opts.OnReconcile,
	})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "setting up the CronJob controller of manager %s", name)
	m := startManager(cronJobs, mgr, name, nw)
	m.cache = mgr.GetCache()
	syncCtx, cancelSync := context.WithTimeout(context.Background(), Timeout)
	defer cancelSync()
	synced := mgr.GetCache().WaitForCacheSync(syncCtx)
	if !synced {
		m.Stop()
	}
	gomega.ExpectWithOffset(1, synced).To(gomega.BeTrue(), "waiting for the cache of manager %s to start", name)
	return m
}

func startManager(cronJobs *controllers.Controller, mgr manager.Manager, name string, nw *network) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{name: name, elected: mgr.Elected(), cancel: cancel, done: make(chan error, 1), network: nw}
	go func() {
		defer ginkgo.GinkgoRecover()
		m.done <- cronJobs.Start(ctx)
	}()
	return m
}

// leaseLock is the Lease lock controller-runtime would make for le, but with the manager's name as its
// identity (controller-runtime's is the host name and a random UID), so a spec can tell from the Lease
// which manager leads.
func leaseLock(cfg *rest.Config, le *LeaderElection, name string) (resourcelock.Interface, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = name + "/leader-election"
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	coordination, err := coordinationv1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return resourcelock.New(resourcelock.LeasesResourceLock, le.Namespace, le.ID, core, coordination,
		resourcelock.ResourceLockConfig{Identity: name})
}

func nonZero(d time.Duration) *time.Duration {
	if d == 0 {
		return nil
	}
	return &d
}

// network is a manager's link to the API server, which a spec can cut: every connection the manager's
// clients open goes through its dialer.
type network struct {
	dialer *connrotation.Dialer
	down   atomic.Bool
}

// errNetworkCut is the error of a dial after the network was cut.
var errNetworkCut = errors.New("the spec cut this manager's network")

func newNetwork() *network {
	n := &network{}
	var d net.Dialer
	n.dialer = connrotation.NewDialer(func(ctx context.Context, network, address string) (net.Conn, error) {
		if n.down.Load() {
			return nil, errNetworkCut
		}
		return d.DialContext(ctx, network, address)
	})
	return n
}

// cut refuses new connections and closes the open ones.
func (n *network) cut() {
	n.down.Store(true)
	n.dialer.CloseAll()
}
