package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	certutil "k8s.io/client-go/util/cert"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// serverWait bounds the wait for a server started by a test to accept TLS connections.
const serverWait = 10 * time.Second

// TestServersNegotiateHTTP2OnlyWhenEnabled starts the real metrics and webhook servers from the options
// main's flags give and checks, with a client that prefers h2, which protocol ALPN picks.
func TestServersNegotiateHTTP2OnlyWhenEnabled(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"default: HTTP/1.1 only":      {want: "http/1.1"},
		"--enable-http2: h2 accepted": {args: []string{"--enable-http2"}, want: "h2"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			dir := writeCert(t, "webhook.example", "cert.pem", "key.pem")
			opts := parseServerFlags(t, append(tc.args,
				"--webhook-cert-path="+dir, "--webhook-cert-name=cert.pem", "--webhook-cert-key=key.pem")...)

			metricsAddr := startMetricsServer(t, opts)
			webhookAddr := startWebhookServer(t, opts)

			for server, addr := range map[string]string{"metrics": metricsAddr, "webhook": webhookAddr} {
				g.Eventually(func() (string, error) {
					state, err := handshake(addr)
					return state.NegotiatedProtocol, err
				}).WithTimeout(serverWait).Should(Equal(tc.want), "%s server", server)
			}
		})
	}
}

// TestMetricsServerServesTheGivenCertificate checks --metrics-cert-path/-name/-key: the metrics server
// presents the certificate in those files, not the self-signed one it makes without them.
func TestMetricsServerServesTheGivenCertificate(t *testing.T) {
	cases := map[string]struct {
		withCert bool
		wantHost string
	}{
		"no --metrics-cert-path: self-signed for localhost": {wantHost: "localhost"},
		"--metrics-cert-path with custom names":             {withCert: true, wantHost: "metrics.example"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			var args []string
			if tc.withCert {
				dir := writeCert(t, "metrics.example", "m.crt", "m.key")
				args = []string{"--metrics-cert-path=" + dir, "--metrics-cert-name=m.crt", "--metrics-cert-key=m.key"}
			}
			opts := parseServerFlags(t, args...)
			addr := startMetricsServer(t, opts)
			g.Eventually(func() ([]string, error) {
				state, err := handshake(addr)
				if err != nil {
					return nil, err
				}
				return state.PeerCertificates[0].DNSNames, nil
			}).WithTimeout(serverWait).Should(ContainElement(tc.wantHost))
		})
	}
}

// parseServerFlags returns the server options that main's flags give for args.
func parseServerFlags(t *testing.T, args ...string) serverOptions {
	t.Helper()
	var o serverOptions
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	o.bindFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parsing %v: %v", args, err)
	}
	return o
}

// startMetricsServer starts the metrics server of opts on a free local port until the test ends and returns
// its address. The authentication filter is left out: it needs an API server, and TLS is set up before it.
func startMetricsServer(t *testing.T, opts serverOptions) string {
	t.Helper()
	addr := freeAddr(t)
	opts.metricsAddr = addr
	mo := opts.metrics()
	if mo.FilterProvider == nil {
		t.Fatal("secure metrics have no authentication and authorization filter")
	}
	mo.FilterProvider = nil
	srv, err := metricsserver.NewServer(mo, nil, nil)
	if err != nil {
		t.Fatalf("creating the metrics server: %v", err)
	}
	start(t, srv.Start)
	return addr
}

// startWebhookServer starts the webhook server of opts on a free local port until the test ends and
// returns its address.
func startWebhookServer(t *testing.T, opts serverOptions) string {
	t.Helper()
	addr := freeAddr(t)
	host, port, _ := net.SplitHostPort(addr)
	wo := opts.webhook()
	wo.Host = host
	wo.Port, _ = strconv.Atoi(port)
	start(t, webhook.NewServer(wo).Start)
	return addr
}

// start runs a server's Start in the background and stops it when the test ends.
func start(t *testing.T, run func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server stopped with an error: %v", err)
		}
	})
}

// handshake makes a TLS connection to addr that offers h2 before http/1.1, as Go's HTTP client does, and
// returns its state.
func handshake(addr string) (tls.ConnectionState, error) {
	conn, err := tls.Dial("tcp", addr, &tls.Config{
		NextProtos:         []string{"h2", "http/1.1"},
		InsecureSkipVerify: true, //nolint:gosec // The test reads the certificate; it does not trust it.
	})
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer conn.Close()
	return conn.ConnectionState(), nil
}

// freeAddr returns a local address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// writeCert writes a self-signed certificate for host and its key, PEM, as certName and keyName in a new
// directory, and returns the directory.
func writeCert(t *testing.T, host, certName, keyName string) string {
	t.Helper()
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(host, nil, nil)
	if err != nil {
		t.Fatalf("generating a certificate: %v", err)
	}
	if block, _ := pem.Decode(certPEM); block == nil {
		t.Fatal("no PEM certificate")
	} else if _, err := x509.ParseCertificate(block.Bytes); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range map[string][]byte{certName: certPEM, keyName: keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
