package main

import (
	"crypto/tls"
	"flag"

	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// certFiles names a serving certificate on disk: dir/name and dir/key, PEM. controller-runtime's servers
// watch both files (certwatcher) and serve a renewed certificate without a restart.
type certFiles struct {
	// dir is the directory of the certificate and key; empty for the server's default.
	dir string
	// name and key are the file names of the certificate and of its private key (default tls.crt, tls.key).
	name, key string
}

// serverOptions configures the two TLS servers of the manager: metrics and admission webhooks.
type serverOptions struct {
	// metricsAddr is the metrics endpoint's address (e.g. :8443); "0" disables it.
	metricsAddr string
	// metricsSecure serves metrics over HTTPS to clients the API server authenticates and authorizes.
	metricsSecure bool
	// metricsCert is the metrics serving certificate; with an empty dir (the default) the metrics server
	// generates a self-signed one in memory.
	metricsCert certFiles
	// webhookCert is the webhook serving certificate, written by the rotator (webhookcerts.go) or mounted
	// from a Secret that cert-manager fills.
	webhookCert certFiles
	// enableHTTP2 lets both servers negotiate HTTP/2; off by default (see tlsOptions).
	enableHTTP2 bool
}

// bindFlags registers the flags of o on fs, with their defaults: metrics off ("0"), HTTPS when on, HTTP/2
// off, the webhook certificate in /tmp/k8s-webhook-server/serving-certs, files tls.crt and tls.key.
func (o *serverOptions) bindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", "0", "Address the metrics endpoint binds to, e.g. :8443 (HTTPS) or :8080 (HTTP); 0 disables it.")
	fs.BoolVar(&o.metricsSecure, "metrics-secure", true, "Serve metrics over HTTPS, for authenticated and authorized clients only (TokenReview and SubjectAccessReview).")
	fs.StringVar(&o.metricsCert.dir, "metrics-cert-path", "", "Directory of the metrics serving certificate (e.g. the mount of a cert-manager Secret); empty: a self-signed certificate generated at start.")
	fs.StringVar(&o.metricsCert.name, "metrics-cert-name", "tls.crt", "File name of the metrics serving certificate in --metrics-cert-path.")
	fs.StringVar(&o.metricsCert.key, "metrics-cert-key", "tls.key", "File name of the metrics serving certificate's private key in --metrics-cert-path.")
	fs.BoolVar(&o.enableHTTP2, "enable-http2", false, "Let the metrics and webhook servers negotiate HTTP/2. Off by default: HTTP/1.1 only, against HTTP/2 Rapid Reset (CVE-2023-44487, CVE-2023-39325).")
	fs.StringVar(&o.webhookCert.dir, "webhook-cert-path", "/tmp/k8s-webhook-server/serving-certs", "Directory of the webhook serving certificate: the mount of its Secret, which the rotator or cert-manager fills.")
	fs.StringVar(&o.webhookCert.name, "webhook-cert-name", "tls.crt", "File name of the webhook serving certificate in --webhook-cert-path (and its key in the Secret).")
	fs.StringVar(&o.webhookCert.key, "webhook-cert-key", "tls.key", "File name of the webhook serving certificate's private key in --webhook-cert-path (and its key in the Secret).")
}

// tlsOptions returns the TLS settings both servers apply. Unless enableHTTP2 is set, they offer only
// HTTP/1.1 in ALPN: HTTP/2's stream cancellation lets a client that resets streams as fast as it opens them
// ("Rapid Reset", CVE-2023-44487 and Go's CVE-2023-39325) keep the server busy at no cost to itself, and
// neither the API server's admission calls nor a Prometheus scrape need HTTP/2. This is the kubebuilder v4
// scaffold's default.
func tlsOptions(enableHTTP2 bool) []func(*tls.Config) {
	if enableHTTP2 {
		return nil
	}
	return []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
}

// metrics returns the metrics server's options. When secure, metrics are served over HTTPS, only to
// clients that the API server authenticates (TokenReview) and authorizes (SubjectAccessReview on the
// nonResourceURL asked for, /metrics or /metrics/state): the kubebuilder v4 default.
func (o serverOptions) metrics() metricsserver.Options {
	opts := metricsserver.Options{
		BindAddress:   o.metricsAddr,
		SecureServing: o.metricsSecure,
		TLSOpts:       tlsOptions(o.enableHTTP2),
		CertDir:       o.metricsCert.dir,
		CertName:      o.metricsCert.name,
		KeyName:       o.metricsCert.key,
	}
	if o.metricsSecure {
		opts.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	return opts
}

// webhook returns the admission webhook server's options: port 9443, the certificate of o.webhookCert.
func (o serverOptions) webhook() webhook.Options {
	return webhook.Options{
		TLSOpts:  tlsOptions(o.enableHTTP2),
		CertDir:  o.webhookCert.dir,
		CertName: o.webhookCert.name,
		KeyName:  o.webhookCert.key,
	}
}
