package main

import (
	"flag"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOptionsParse(t *testing.T) {
	cases := map[string]struct {
		args []string
		// The webhook certificate files the rotator writes: those the webhook server reads.
		wantCertFiles certFiles
	}{
		"no flags: the webhook server's default files": {
			wantCertFiles: certFiles{dir: "/tmp/k8s-webhook-server/serving-certs", name: "tls.crt", key: "tls.key"},
		},
		"--webhook-cert-path, -name and -key reach the rotator": {
			args:          []string{"--webhook-cert-path=/certs", "--webhook-cert-name=cert.pem", "--webhook-cert-key=key.pem"},
			wantCertFiles: certFiles{dir: "/certs", name: "cert.pem", key: "key.pem"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var o options
			fs := flag.NewFlagSet("manager", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			if err := o.parse(fs, tc.args); err != nil {
				t.Fatalf("parse(%q): %v", tc.args, err)
			}
			if diff := cmp.Diff(tc.wantCertFiles, o.certs.files, cmp.AllowUnexported(certFiles{})); diff != "" {
				t.Errorf("certs.files (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(o.servers.webhookCert, o.certs.files, cmp.AllowUnexported(certFiles{})); diff != "" {
				t.Errorf("certs.files differ from servers.webhookCert (-server,+rotator):\n%s", diff)
			}
		})
	}
}
