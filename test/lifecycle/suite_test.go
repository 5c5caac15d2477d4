//go:build lifecycle

// Package lifecycle holds the specs that need what envtest lacks: the Job controller, the garbage
// collector and the TTL-after-finished controller of kube-controller-manager, kube-scheduler and a node
// whose Pods run and end (KWOK), all from test/cluster, the control plane of `make run`. Ours runs on the
// fake clock, where only ours decides (when a run is due); the Job controller, the garbage collector and the
// simulated node run on the real clock, so a Pod runs for real seconds (cluster.RunForAnnotation).
//
// Run with `make test-lifecycle` (build tag lifecycle; the binaries from `make lifecycle-assets`).
package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cronjob-operator/cronjob-operator/test/cluster"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

var (
	fwk       = &framework.Framework{}
	cfg       *rest.Config
	k8sClient client.Client
	nodes     *cluster.Cluster
	logDir    string
)

func TestLifecycle(t *testing.T) {
	RegisterFailHandler(Fail)
	// Real Pods take real seconds: a run is created, scheduled, run for its RunFor, counted by the Job
	// controller and then seen by ours.
	SetDefaultEventuallyTimeout(60 * time.Second)
	SetDefaultEventuallyPollingInterval(framework.Interval)
	SetDefaultConsistentlyDuration(framework.ConsistentDuration)
	SetDefaultConsistentlyPollingInterval(framework.Interval)
	RunSpecs(t, "CronJob lifecycle suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	cfg, k8sClient = fwk.Init()
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		var err error
		assets, err = framework.BinaryAssetsDir()
		Expect(err).NotTo(HaveOccurred())
	}
	var err error
	logDir, err = os.MkdirTemp("", "lifecycle-components-")
	Expect(err).NotTo(HaveOccurred())
	By("starting kube-controller-manager, kube-scheduler and kwok")
	nodes, err = cluster.Start(ctx, fwk.Environment(), cluster.Options{Assets: assets, Dir: logDir, Log: func(format string, args ...any) {
		GinkgoWriter.Printf(format+"\n", args...)
	}})
	Expect(err).NotTo(HaveOccurred())
}, NodeTimeout(3*time.Minute))

var _ = AfterSuite(func() {
	if nodes != nil {
		nodes.Stop()
	}
	fwk.Teardown()
	if logDir == "" {
		return
	}
	// The components' logs are kept when a spec failed (their tails are in that spec's report too).
	if suiteFailed {
		GinkgoWriter.Printf("component logs kept in %s\n", logDir)
		return
	}
	Expect(os.RemoveAll(logDir)).To(Succeed())
})

// suiteFailed is set by ReportAfterEach when any spec failed.
var suiteFailed bool

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		suiteFailed = true
		for _, name := range cluster.Binaries {
			if b, err := os.ReadFile(filepath.Join(logDir, name+".log")); err == nil {
				AddReportEntry(name+" log (last 4 KiB)", tail(string(b), 4096))
			}
		}
	}
})

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// newNamespace makes a namespace for one spec; its objects are dumped if the spec fails.
func newNamespace(ctx context.Context) string {
	ns := framework.CreateNamespace(ctx, k8sClient, "lifecycle")
	DeferCleanup(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			framework.DumpNamespace(ctx, k8sClient, ns.Name, GinkgoWriter)
		}
	})
	return ns.Name
}
