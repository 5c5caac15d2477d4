package main

import (
	"crypto/tls"

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
// clients that the API server authenticates (TokenReview) and authorizes (SubjectAccessReview on
// nonResourceURL /metrics): the kubebuilder v4 default.
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
