package framework

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/cronjob-operator/cronjob-operator/controllers/webhooks"
)

// startWebhookServer starts a manager that runs no controllers and serves the CronJob and CronJobRun admission
// webhooks on the host, port and certificates envtest chose for the webhook configurations it installed, and waits
// until the server accepts TLS connections. It returns a function that stops the manager and waits until
// it has stopped.
//
// One such server serves the whole suite: the webhook configurations are cluster-wide, so every spec's
// create and update goes through it whether or not the spec started a controller.
func (f *Framework) startWebhookServer() (stop func()) {
	opts := &f.env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(f.cfg, ctrl.Options{
		Scheme:                 Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer: webhook.NewServer(webhook.Options{
			Host:    opts.LocalServingHost,
			Port:    opts.LocalServingPort,
			CertDir: opts.LocalServingCertDir,
		}),
	})
	gomega.ExpectWithOffset(2, err).NotTo(gomega.HaveOccurred(), "creating the webhook manager")
	gomega.ExpectWithOffset(2, webhooks.SetupCronJobWebhookWithManager(mgr)).
		To(gomega.Succeed(), "registering the CronJob admission webhooks")
	gomega.ExpectWithOffset(2, webhooks.SetupCronJobRunWebhookWithManager(mgr)).
		To(gomega.Succeed(), "registering the CronJobRun admission webhook")
	gomega.ExpectWithOffset(2, webhooks.SetupCronCalendarWebhookWithManager(mgr)).
		To(gomega.Succeed(), "registering the CronCalendar admission webhook")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		defer ginkgo.GinkgoRecover()
		done <- mgr.Start(ctx)
	}()

	ginkgo.By("waiting for the webhook server to accept TLS connections")
	addr := net.JoinHostPort(opts.LocalServingHost, strconv.Itoa(opts.LocalServingPort))
	gomega.EventuallyWithOffset(2, func() error { return dialTLS(addr) }, Timeout, Interval).
		Should(gomega.Succeed(), "waiting for the webhook server at %s", addr)

	return func() {
		cancel()
		var err error
		gomega.EventuallyWithOffset(1, done, Timeout).Should(gomega.Receive(&err), "waiting for the webhook manager to stop")
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "the webhook manager stopped with an error")
	}
}

// dialTLS opens and closes a TLS connection to addr. It does not verify the certificate: it only tells
// whether the server is up; the API server verifies it with the CA envtest put in the configurations.
func dialTLS(addr string) error {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr,
		&tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a readiness probe, see above
	if err != nil {
		return fmt.Errorf("dialing the webhook server: %w", err)
	}
	return conn.Close()
}
