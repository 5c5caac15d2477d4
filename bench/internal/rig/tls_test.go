package rig

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// certAnchor is the fixed instant the certificate is made at, and the clients verify it at.
var certAnchor = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

func TestServingCertIsTrustedByItsClientOnly(t *testing.T) {
	sc, err := newServingCert(t.TempDir(), certAnchor)
	if err != nil {
		t.Fatal(err)
	}
	at := func() time.Time { return certAnchor.Add(time.Minute) }
	sc.client.Transport.(*http.Transport).TLSClientConfig.Time = at
	pair, err := tls.LoadX509KeyPair(sc.certFile, sc.keyFile)
	if err != nil {
		t.Fatalf("the files do not load as a key pair (as kube-controller-manager loads them): %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	defer srv.Close()

	resp, err := sc.client.Get(srv.URL)
	if err != nil {
		t.Fatalf("GET %s with the certificate's client: %v", srv.URL, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET with the certificate's client: %s, want 200 OK", resp.Status)
	}
	untrusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{Time: at, MinVersion: tls.VersionTLS12}}}
	if resp, err := untrusting.Get(srv.URL); err == nil {
		_ = resp.Body.Close()
		t.Error("GET with the default client trusted the bench's self-signed certificate")
	}
}
