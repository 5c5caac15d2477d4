// Command manager runs the cronjob-operator controller manager: the CronJob controller, health probes,
// metrics and (optionally) leader election.
package main

import (
	"flag"
	"os"

	_ "time/tzdata" // spec.timeZone must resolve in a FROM scratch image with no zoneinfo.

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers"
)

func main() {
	var (
		metricsAddr, probeAddr string
		leaderElect, secure    bool
		enableWebhooks         bool
		maxConcurrent          int
		qps                    float64
		burst                  int
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "Address the metrics endpoint binds to, e.g. :8443 (HTTPS) or :8080 (HTTP); 0 disables it.")
	flag.BoolVar(&secure, "metrics-secure", true, "Serve metrics over HTTPS, for authenticated and authorized clients only (TokenReview and SubjectAccessReview).")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Address the /healthz and /readyz probes bind to.")
	flag.BoolVar(&leaderElect, "leader-elect", false, "Enable leader election, so that only one manager replica acts at a time.")
	flag.BoolVar(&enableWebhooks, "enable-webhooks", false, "Serve the CronJob defaulting and validating admission webhooks on :9443. Needs a serving certificate in /tmp/k8s-webhook-server/serving-certs and the webhook configurations of config/webhook.")
	flag.IntVar(&maxConcurrent, "max-concurrent-reconciles", 4, "How many CronJobs are reconciled in parallel.")
	flag.Float64Var(&qps, "kube-api-qps", 50, "Queries per second to the Kubernetes API server (client-side rate limit).")
	flag.IntVar(&burst, "kube-api-burst", 100, "Burst of queries to the Kubernetes API server (client-side rate limit).")
	opts := zap.Options{Development: false}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cronjobv1.AddToScheme(scheme))

	cfg := ctrl.GetConfigOrDie()
	cfg.QPS = float32(qps)
	cfg.Burst = burst
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsOptions(metricsAddr, secure),
		HealthProbeBindAddress: probeAddr,
		LeaderElection:         leaderElect,
		LeaderElectionID:       "cronjob-operator.batch.cronjob-operator.dev",
		// The manager stops acting before it gives up the lease, so a new leader can start at once.
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		log.Error(err, "Unable to create manager")
		os.Exit(1)
	}
	r := &controllers.CronJobReconciler{
		Client:                  mgr.GetClient(),
		APIReader:               mgr.GetAPIReader(),
		Scheme:                  mgr.GetScheme(),
		Recorder:                mgr.GetEventRecorder(controllers.ControllerName),
		MaxConcurrentReconciles: maxConcurrent,
	}
	if err := r.SetupWithManager(mgr); err != nil {
		log.Error(err, "Unable to set up controller")
		os.Exit(1)
	}
	if enableWebhooks {
		if err := (&controllers.CronJobAdmission{}).SetupWebhookWithManager(mgr); err != nil {
			log.Error(err, "Unable to set up webhooks")
			os.Exit(1)
		}
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		log.Error(err, "Unable to set up health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		log.Error(err, "Unable to set up ready check")
		os.Exit(1)
	}
	log.Info("Starting manager", "leaderElect", leaderElect, "webhooks", enableWebhooks, "maxConcurrentReconciles", maxConcurrent, "qps", qps, "burst", burst)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "Manager exited with an error")
		os.Exit(1)
	}
}

// metricsOptions serves metrics on addr; when secure, over HTTPS with a self-signed certificate and only to
// clients that the API server authenticates and authorizes (the kubebuilder v4 default).
func metricsOptions(addr string, secure bool) metricsserver.Options {
	opts := metricsserver.Options{BindAddress: addr, SecureServing: secure}
	if secure {
		opts.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	return opts
}
