package rig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// servingCert is a certificate the peer serves its metrics with, and a client that trusts it.
type servingCert struct {
	certFile, keyFile string
	client            *http.Client
}

// newServingCert writes a self-signed certificate for 127.0.0.1 (ECDSA P-256, valid from an hour before now
// for a week) and its key to dir as peer-serving.crt and peer-serving.key, and returns them with an HTTP
// client that trusts that certificate alone. Made by the bench, so that the peer does not generate one
// in its start (which the start's CPU would count) and the bench need not skip verification.
func newServingCert(dir string, now time.Time) (*servingCert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kube-controller-manager (bench)"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	sc := &servingCert{certFile: filepath.Join(dir, "peer-serving.crt"), keyFile: filepath.Join(dir, "peer-serving.key")}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(sc.certFile, certPEM, 0o600); err != nil {
		return nil, fmt.Errorf("writing the peer's serving certificate: %w", err)
	}
	if err := os.WriteFile(sc.keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return nil, fmt.Errorf("writing the peer's serving key: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	sc.client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	return sc, nil
}
