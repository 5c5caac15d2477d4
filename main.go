// Command manager runs the cronjob-operator controller manager: the CronJob controller, health probes,
// metrics and, optionally, leader election and the admission webhooks with their own serving certificate.
package main

import (
	"flag"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	_ "time/tzdata" // spec.timeZone must resolve in a FROM scratch image with no zoneinfo.

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers"
)

func main() {
	var (
		probeAddr       string
		pprofAddr       string
		leaderElect     bool
		enableWebhooks  bool
		maxConcurrent   int
		qps             float64
		burst           int
		leaseDuration   time.Duration
		renewDeadline   time.Duration
		retryPeriod     time.Duration
		certs           webhookCertOptions
		servers         serverOptions
		watchNamespaces string
	)
	servers.bindFlags(flag.CommandLine)
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Address the /healthz and /readyz probes bind to.")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "", "Address Go's pprof endpoints (/debug/pprof/) bind to, e.g. 127.0.0.1:6060; empty disables them. For profiling only: they are unauthenticated.")
	flag.BoolVar(&leaderElect, "leader-elect", false, "Enable leader election, so that only one manager replica acts at a time.")
	flag.DurationVar(&leaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a follower waits, after the last renewal it saw, before it takes over a Lease that was not released.")
	flag.DurationVar(&renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader keeps trying to renew its Lease before it stops acting (and exits).")
	flag.DurationVar(&retryPeriod, "leader-elect-retry-period", 2*time.Second, "How often candidates try to take the Lease, and the leader renews it.")
	flag.BoolVar(&enableWebhooks, "enable-webhooks", false, "Serve the CronJob defaulting and validating admission webhooks on :9443 (config/webhook).")
	flag.BoolVar(&certs.rotate, "webhook-cert-rotation", true, "With --enable-webhooks: provision and rotate the webhook serving certificate in the Secret --webhook-cert-secret and inject its CA into the webhook configurations. Turn off when cert-manager provides the certificate (config/certmanager).")
	flag.StringVar(&certs.secret, "webhook-cert-secret", "cronjob-operator-webhook-server-cert", "Secret, in the manager's namespace, that holds the webhook serving certificate.")
	flag.StringVar(&certs.service, "webhook-service", "cronjob-operator-webhook-service", "Service in front of the webhook server; the certificate is issued for <service>.<namespace>.svc.")
	flag.StringVar(&certs.mutating, "mutating-webhook-configuration", "cronjob-operator-mutating-webhook-configuration", "MutatingWebhookConfiguration whose caBundle the rotator keeps.")
	flag.StringVar(&certs.validating, "validating-webhook-configuration", "cronjob-operator-validating-webhook-configuration", "ValidatingWebhookConfiguration whose caBundle the rotator keeps.")
	flag.StringVar(&watchNamespaces, "watch-namespaces", "", "Comma-separated namespaces whose CronJobs the manager runs (and whose Jobs it caches); empty means all. With a list the manager needs rights in those namespaces only (config/namespaced).")
	flag.IntVar(&maxConcurrent, "max-concurrent-reconciles", 4, "How many CronJobs are reconciled in parallel.")
	flag.Float64Var(&qps, "kube-api-qps", 50, "Queries per second to the Kubernetes API server (client-side rate limit).")
	flag.IntVar(&burst, "kube-api-burst", 100, "Burst of queries to the Kubernetes API server (client-side rate limit).")
	opts := zap.Options{Development: false}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")
	certs.files = servers.webhookCert

	memLimit, err := memoryLimit(os.Getenv)
	if err != nil {
		log.Error(err, "Unable to set the Go memory limit")
		os.Exit(1)
	}
	if memLimit > 0 {
		debug.SetMemoryLimit(memLimit)
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cronjobv1.AddToScheme(scheme))

	cfg := ctrl.GetConfigOrDie()
	cfg.QPS = float32(qps)
	cfg.Burst = burst
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  controllers.CacheOptions(splitNamespaces(watchNamespaces)...),
		Metrics:                servers.metrics(),
		WebhookServer:          webhook.NewServer(servers.webhook()),
		HealthProbeBindAddress: probeAddr,
		PprofBindAddress:       pprofAddr,
		LeaderElection:         leaderElect,
		LeaderElectionID:       leaderElectionID,
		// The manager stops acting before it gives up the lease, so a new leader can start at once.
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &leaseDuration,
		RenewDeadline:                 &renewDeadline,
		RetryPeriod:                   &retryPeriod,
	})
	if err != nil {
		log.Error(err, "Unable to create manager")
		os.Exit(1)
	}
	setup := controllers.Options{MaxConcurrentReconciles: maxConcurrent}
	ready := healthz.Ping
	if enableWebhooks {
		certsReady, err := addWebhookCertRotator(mgr, certs)
		if err != nil {
			log.Error(err, "Unable to set up the webhook serving certificate")
			os.Exit(1)
		}
		// The webhooks are served once the certificate is there; until then the manager is not ready, so
		// its Service sends the API server's admission calls to no replica that would fail them.
		setup.Webhooks = &controllers.WebhookOptions{CertsReady: certsReady}
	}
	cronJobs, err := controllers.Setup(mgr, setup)
	if err != nil {
		log.Error(err, "Unable to set up the CronJob controller")
		os.Exit(1)
	}
	if enableWebhooks {
		// Ready once the webhooks are registered (after the certificate) and their server has started. The
		// first registration adds the webhook server to the manager, which starts it.
		ready = readyAfter(cronJobs.WebhooksRegistered(), func(req *http.Request) error { return mgr.GetWebhookServer().StartedChecker()(req) })
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		log.Error(err, "Unable to set up health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", ready); err != nil {
		log.Error(err, "Unable to set up ready check")
		os.Exit(1)
	}
	log.Info("Starting manager", "watchNamespaces", watchNamespaces, "leaderElect", leaderElect, "webhooks", enableWebhooks, "maxConcurrentReconciles", maxConcurrent, "qps", qps, "burst", burst,
		"http2", servers.enableHTTP2, "goMemoryLimit", debug.SetMemoryLimit(-1))
	if err := cronJobs.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "Manager exited with an error")
		os.Exit(1)
	}
}
