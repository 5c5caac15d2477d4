// Command manager runs the cronjob-operator controller manager: the CronJob controller, health probes,
// metrics and, optionally, leader election and the admission webhooks with their own serving certificate.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	_ "time/tzdata" // spec.timeZone must resolve in a FROM scratch image with no zoneinfo.

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
	"github.com/cronjob-operator/cronjob-operator/controllers"
	"github.com/cronjob-operator/cronjob-operator/controllers/selftest"
	"github.com/cronjob-operator/cronjob-operator/controllers/version"
	"github.com/cronjob-operator/cronjob-operator/controllers/webhooks"
)

// main parses the flags, sets up the logger, the Go memory limit, the manager, the webhook certificate, the
// CronJob controller and the probes, in that order, and runs the manager until SIGTERM or SIGINT. Any error
// is logged and ends the process with exit code 1.
func main() {
	var o options
	_ = o.parse(flag.CommandLine, os.Args[1:]) // flag.CommandLine exits on a bad flag, as flag.Parse does.
	if o.showVersion {
		fmt.Println(version.Get())
		return
	}
	if o.selfTest {
		if err := selfTest(ctrl.GetConfig, o.selfTestNamespace, o.enableWebhooks); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&o.zap)))
	log := ctrl.Log.WithName("setup")

	if err := setMemoryLimit(os.Getenv); err != nil {
		log.Error(err, "Unable to set the Go memory limit")
		os.Exit(1)
	}
	cfg := ctrl.GetConfigOrDie()
	if err := checkKubernetesVersion(cfg); err != nil {
		log.Error(err, "Unsupported Kubernetes")
		os.Exit(1)
	}
	// Cancelled at SIGTERM: the manager stops, and the webhook server starts draining (newManager).
	ctx := ctrl.SetupSignalHandler()
	mgr, err := newManager(cfg, &o, ctx.Done())
	if err != nil {
		log.Error(err, "Unable to create manager")
		os.Exit(1)
	}
	setup := controllers.Options{MaxConcurrentReconciles: o.maxConcurrent, MaxWaitingRunsPerCronJob: o.maxWaitingRuns}
	if o.enableWebhooks {
		if setup.Webhooks, err = webhookOptions(mgr, o.certs); err != nil {
			log.Error(err, "Unable to set up the webhook serving certificate")
			os.Exit(1)
		}
	}
	cronJobs, err := controllers.Setup(mgr, setup)
	if err != nil {
		log.Error(err, "Unable to set up the CronJob controller")
		os.Exit(1)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		log.Error(err, "Unable to set up health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", readiness(mgr, o.enableWebhooks, cronJobs.WebhooksRegistered())); err != nil {
		log.Error(err, "Unable to set up ready check")
		os.Exit(1)
	}
	log.Info("Starting manager", "version", version.Get().String(), "watchNamespaces", o.watchNamespaces, "leaderElect", o.leaderElect, "webhooks", o.enableWebhooks,
		"maxConcurrentReconciles", o.maxConcurrent, "maxWaitingRunsPerCronJob", o.maxWaitingRuns, "qps", o.qps, "burst", o.burst,
		"http2", o.servers.enableHTTP2, "goMemoryLimit", debug.SetMemoryLimit(-1))
	if err := cronJobs.Start(ctx); err != nil {
		log.Error(err, "Manager exited with an error")
		os.Exit(1)
	}
}

// newManager returns a manager for the API server of cfg, with the built-in types and the CronJob API in its
// scheme and the client rate limit, cache, servers, probes and leader election of o. It sets o's rate limit
// and the project's User-Agent (version.Info.UserAgent) on cfg, and writes every object as the field manager
// version.Name, so metadata.managedFields and the API server's audit log name cronjob-operator, not the
// binary ("manager"). Its webhook server drains (webhooks.DrainingServer) from when stopping is closed. It
// returns controller-runtime's error when the manager cannot be made.
func newManager(cfg *rest.Config, o *options, stopping <-chan struct{}) (ctrl.Manager, error) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cronjobv1.AddToScheme(scheme))
	utilruntime.Must(cronjobv2.AddToScheme(scheme))

	cfg.QPS = float32(o.qps)
	cfg.Burst = o.burst
	cfg.UserAgent = version.Get().UserAgent()
	return ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Client:                 client.Options{FieldOwner: version.Name},
		Cache:                  controllers.CacheOptions(splitNamespaces(o.watchNamespaces)...),
		Metrics:                o.servers.metrics(),
		WebhookServer:          webhooks.NewDrainingServer(webhook.NewServer(o.servers.webhook()), stopping, webhooks.DefaultDrain, clock.RealClock{}),
		HealthProbeBindAddress: o.probeAddr,
		PprofBindAddress:       o.pprofAddr,
		LeaderElection:         o.leaderElect,
		LeaderElectionID:       leaderElectionID,
		// The manager stops acting before it gives up the lease, so a new leader can start at once.
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &o.leaseDuration,
		RenewDeadline:                 &o.renewDeadline,
		RetryPeriod:                   &o.retryPeriod,
	})
}

// selfTest runs the installation's checks (controllers/selftest) against the API server of getConfig's
// config (in a Pod: its ServiceAccount's), in namespace ns (POD_NAMESPACE when empty), within a minute,
// printing a line per check. It returns an error when a check fails, there is no namespace or no config.
func selfTest(getConfig func() (*rest.Config, error), ns string, withWebhooks bool) error {
	if ns == "" {
		ns = os.Getenv("POD_NAMESPACE")
	}
	if ns == "" {
		return errors.New("--self-test needs --self-test-namespace or POD_NAMESPACE: the namespace to dry-run its CronJobs in")
	}
	cfg, err := getConfig()
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(cronjobv1.AddToScheme(scheme))
	utilruntime.Must(cronjobv2.AddToScheme(scheme))
	cfg.UserAgent = version.Get().UserAgent()
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fmt.Println(version.Get())
	return selftest.Run(ctx, c, selftest.Options{Namespace: ns, Webhooks: withWebhooks}, os.Stdout)
}

// webhookOptions adds the webhook certificate rotator to mgr (addWebhookCertRotator) and returns the
// controller's webhook options: the webhooks are served once the certificate is there. Until then the
// manager is not ready (readiness), so its Service sends the API server's admission calls to no replica
// that would fail them. It returns the rotator's error.
func webhookOptions(mgr ctrl.Manager, certs webhookCertOptions) (*controllers.WebhookOptions, error) {
	certsReady, err := addWebhookCertRotator(mgr, certs)
	if err != nil {
		return nil, err
	}
	return &controllers.WebhookOptions{CertsReady: certsReady}, nil
}

// readiness is the manager's readiness check. Without webhooks it is a ping. With them, the manager is ready
// once they are registered (registered is closed, after the certificate) and their server has started: the
// first registration adds the webhook server to the manager, which starts it.
func readiness(mgr ctrl.Manager, withWebhooks bool, registered <-chan struct{}) healthz.Checker {
	if !withWebhooks {
		return healthz.Ping
	}
	return readyAfter(registered, func(req *http.Request) error { return mgr.GetWebhookServer().StartedChecker()(req) })
}
