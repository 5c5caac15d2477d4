package main

import (
	"flag"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// options are the manager's command-line flags.
type options struct {
	// probeAddr and pprofAddr are the addresses of the health probes and of Go's pprof endpoints ("": off).
	probeAddr, pprofAddr string
	// leaderElect turns leader election on; the three durations are its Lease's timing.
	leaderElect                               bool
	leaseDuration, renewDeadline, retryPeriod time.Duration
	// enableWebhooks serves the admission webhooks, with the serving certificate of certs.
	enableWebhooks bool
	certs          webhookCertOptions
	// servers configures the metrics and webhook servers.
	servers serverOptions
	// watchNamespaces is the comma-separated list of namespaces the manager runs CronJobs in; "" for all.
	watchNamespaces string
	// maxConcurrent is the number of CronJobs reconciled in parallel.
	maxConcurrent int
	// maxWaitingRuns is how many Pending CronJobRuns one CronJob may have (controllers.Options).
	maxWaitingRuns int
	// qps and burst are the client-side rate limit of the requests to the API server.
	qps   float64
	burst int
	// zap configures the logger (--zap-*).
	zap zap.Options
	// showVersion prints the build (version.Info) and exits.
	showVersion bool
	// selfTest runs the installation's checks (controllers/selftest) instead of the manager, in
	// selfTestNamespace ("": POD_NAMESPACE).
	selfTest          bool
	selfTestNamespace string
}

// parse registers the manager's flags on fs (bindFlags) and parses args with it. main passes
// flag.CommandLine, where controller-runtime registers --kubeconfig; as with flag.Parse, a bad flag then
// ends the process with the usage, and -h prints it.
func (o *options) parse(fs *flag.FlagSet, args []string) error {
	o.bindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	// The rotator writes the certificate where the webhook server reads it (--webhook-cert-path and -name/-key).
	o.certs.files = o.servers.webhookCert
	return nil
}

// bindFlags registers every flag of the manager on fs, with its default: those of serverOptions, ours, and
// zap's (--zap-*), which default to production logging: JSON, level info.
func (o *options) bindFlags(fs *flag.FlagSet) {
	o.servers.bindFlags(fs)
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "Address the /healthz and /readyz probes bind to.")
	fs.StringVar(&o.pprofAddr, "pprof-bind-address", "", "Address Go's pprof endpoints (/debug/pprof/) bind to, e.g. 127.0.0.1:6060; empty disables them. For profiling only: they are unauthenticated.")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "Enable leader election, so that only one manager replica acts at a time.")
	fs.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a follower waits, after the last renewal it saw, before it takes over a Lease that was not released.")
	fs.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader keeps trying to renew its Lease before it stops acting (and exits).")
	fs.DurationVar(&o.retryPeriod, "leader-elect-retry-period", 2*time.Second, "How often candidates try to take the Lease, and the leader renews it.")
	fs.BoolVar(&o.enableWebhooks, "enable-webhooks", false, "Serve the CronJob validating admission webhook on :9443 (config/webhook).")
	fs.BoolVar(&o.certs.rotate, "webhook-cert-rotation", true, "With --enable-webhooks: provision and rotate the webhook serving certificate in the Secret --webhook-cert-secret and inject its CA into the webhook configurations. Turn off when cert-manager provides the certificate (config/certmanager).")
	fs.StringVar(&o.certs.secret, "webhook-cert-secret", "cronjob-operator-webhook-server-cert", "Secret, in the manager's namespace, that holds the webhook serving certificate.")
	fs.StringVar(&o.certs.service, "webhook-service", "cronjob-operator-webhook-service", "Service in front of the webhook server; the certificate is issued for <service>.<namespace>.svc.")
	fs.StringVar(&o.certs.validating, "validating-webhook-configuration", "cronjob-operator-validating-webhook-configuration", "ValidatingWebhookConfiguration whose caBundle the rotator keeps.")
	fs.StringVar(&o.certs.conversion, "conversion-crd", "cronjobs.batch.cronjob-operator.dev", "CustomResourceDefinition whose conversion webhook caBundle the rotator keeps (the CronJob CRD, served as v1 and v2); it must have spec.conversion.webhook.clientConfig (config/default sets it), or the certificate never becomes ready. Empty: none (cert-manager or OLM fills the caBundle).")
	fs.StringVar(&o.watchNamespaces, "watch-namespaces", "", "Comma-separated namespaces whose CronJobs the manager runs (and whose Jobs it caches); empty means all. With a list the manager needs rights in those namespaces only (config/namespaced).")
	fs.IntVar(&o.maxConcurrent, "max-concurrent-reconciles", 4, "How many CronJobs are reconciled in parallel, by the CronJob controller and, for their CronJobRuns, by the CronJobRun controller.")
	fs.IntVar(&o.maxWaitingRuns, "max-waiting-runs-per-cronjob", 100, "How many Pending CronJobRuns (waiting for the CronJob's concurrency policy) one CronJob may have; a new one beyond it is Rejected (TooManyWaitingRuns). Negative: no limit.")
	fs.Float64Var(&o.qps, "kube-api-qps", 50, "Queries per second to the Kubernetes API server (client-side rate limit).")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "Burst of queries to the Kubernetes API server (client-side rate limit).")
	fs.BoolVar(&o.selfTest, "self-test", false, "Check the installation instead of running the manager, as the chart's helm test does: a valid CronJob is admitted, with --enable-webhooks an unparsable schedule is refused, and where v2 is served a v2 CronJob converts; each a dry run in --self-test-namespace. Exits 0 when every check passes.")
	fs.StringVar(&o.selfTestNamespace, "self-test-namespace", "", "With --self-test: the namespace to dry-run the CronJobs in (one the manager watches). Empty: POD_NAMESPACE.")
	fs.BoolVar(&o.showVersion, "version", false, "Print the version, git revision, platform and Go version of this build, and exit.")
	o.zap = zap.Options{Development: false}
	o.zap.BindFlags(fs)
}
