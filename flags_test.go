package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func TestOptionsParse(t *testing.T) {
	cases := map[string]struct {
		args []string
		// The webhook certificate files the rotator writes: those the webhook server reads.
		wantCertFiles certFiles
		// The cap on Pending CronJobRuns per CronJob.
		wantMaxWaitingRuns int
	}{
		"no flags: the webhook server's default files, 100 waiting runs per CronJob": {
			wantCertFiles:      certFiles{dir: "/tmp/k8s-webhook-server/serving-certs", name: "tls.crt", key: "tls.key"},
			wantMaxWaitingRuns: 100,
		},
		"--max-waiting-runs-per-cronjob": {
			args:               []string{"--max-waiting-runs-per-cronjob=5"},
			wantCertFiles:      certFiles{dir: "/tmp/k8s-webhook-server/serving-certs", name: "tls.crt", key: "tls.key"},
			wantMaxWaitingRuns: 5,
		},
		"--webhook-cert-path, -name and -key reach the rotator": {
			args:               []string{"--webhook-cert-path=/certs", "--webhook-cert-name=cert.pem", "--webhook-cert-key=key.pem"},
			wantCertFiles:      certFiles{dir: "/certs", name: "cert.pem", key: "key.pem"},
			wantMaxWaitingRuns: 100,
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
			if o.maxWaitingRuns != tc.wantMaxWaitingRuns {
				t.Errorf("maxWaitingRuns = %d, want %d", o.maxWaitingRuns, tc.wantMaxWaitingRuns)
			}
			if diff := cmp.Diff(o.servers.webhookCert, o.certs.files, cmp.AllowUnexported(certFiles{})); diff != "" {
				t.Errorf("certs.files differ from servers.webhookCert (-server,+rotator):\n%s", diff)
			}
		})
	}
}

// The manager logs JSON by default, as in a cluster; make run puts --zap-encoder=console before RUN_ARGS, where
// a --zap-encoder of the user's comes later and wins.
func TestLogEncoding(t *testing.T) {
	cases := map[string]struct {
		args     []string
		wantJSON bool
	}{
		"no flags: JSON":                         {wantJSON: true},
		"make run: console":                      {args: []string{"--zap-encoder=console"}},
		"make run with --zap-log-level: console": {args: []string{"--zap-encoder=console", "--zap-log-level=debug"}},
		"make run with --zap-encoder=json: JSON": {args: []string{"--zap-encoder=console", "--zap-encoder=json"}, wantJSON: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var o options
			fs := flag.NewFlagSet("manager", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			if err := o.parse(fs, tc.args); err != nil {
				t.Fatalf("parse(%q): %v", tc.args, err)
			}
			var out bytes.Buffer
			zap.New(zap.UseFlagOptions(&o.zap), zap.WriteTo(&out)).WithName("setup").Info("Starting manager", "leaderElect", false)
			line := bytes.TrimSpace(out.Bytes())
			if got := json.Valid(line); got != tc.wantJSON {
				t.Errorf("parse(%q): the log line %q is JSON: %t, want %t", tc.args, line, got, tc.wantJSON)
			}
			if !bytes.Contains(line, []byte("Starting manager")) {
				t.Errorf("parse(%q): the log line %q does not hold the message", tc.args, line)
			}
		})
	}
}
