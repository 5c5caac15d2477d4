package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

var (
	fwk = &framework.Framework{}
	// cfg is the rest config of the control plane, for specs that need a client of their own.
	cfg *rest.Config
	// k8sClient is the live client of the control plane: specs assert through it, never through a
	// manager's cache.
	k8sClient client.Client
)

func TestIntegration(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(framework.Timeout)
	SetDefaultEventuallyPollingInterval(framework.Interval)
	SetDefaultConsistentlyDuration(framework.ConsistentDuration)
	SetDefaultConsistentlyPollingInterval(framework.Interval)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if suiteConfig.LabelFilter == "" {
		// Specs labelled slow (such as a simulated day) run only when asked for: make test-slow; those
		// labelled soak (the failure specs at volume) with make soak.
		suiteConfig.LabelFilter = "!slow && !soak"
	}
	RunSpecs(t, "CronJob integration suite", suiteConfig, reporterConfig)
}

var _ = BeforeSuite(func() {
	cfg, k8sClient = fwk.Init()
})

var _ = AfterSuite(func() {
	fwk.Teardown()
})

// newNamespace creates the spec's namespace and, should the spec fail, dumps its CronJobs, Jobs and events
// to the spec's report.
func newNamespace(ctx context.Context) string {
	return dumpOnFailure(framework.CreateNamespace(ctx, k8sClient, "cronjob"))
}

// newNamespaceWithoutWebhooks is newNamespace for a namespace the admission webhooks skip, for specs that
// need an object admitted before the webhooks existed.
func newNamespaceWithoutWebhooks(ctx context.Context) string {
	return dumpOnFailure(framework.CreateNamespaceWithoutWebhooks(ctx, k8sClient, "legacy"))
}

// dumpOnFailure registers a dump of the namespace's CronJobs, Jobs and events, should the spec fail, and
// returns the namespace's name.
func dumpOnFailure(ns *corev1.Namespace) string {
	DeferCleanup(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			framework.DumpNamespace(ctx, k8sClient, ns.Name, GinkgoWriter)
		}
	})
	return ns.Name
}

// startController starts a manager that runs the CronJob controller on a fake clock set to now, watching
// only namespace ns, and stops it when the spec ends.
func startController(ns string, now time.Time) *framework.Clock {
	clk := framework.NewClock(now)
	DeferCleanup(fwk.StartManager(framework.ManagerOptions{Namespace: ns, Clock: clk}).Stop)
	return clk
}

// at returns the instant hh:mm:ss UTC on 2026-03-01, the fixed day all specs' clocks are set on. The API
// server's own clock (creationTimestamp) is real: specs set status.lastScheduleTime so the controller
// counts runs from a fixed anchor instead.
func at(hhmmss string) time.Time {
	t, err := time.Parse(time.RFC3339, "2026-03-01T"+hhmmss+"Z")
	if err != nil {
		panic(err)
	}
	return t
}

// jobNameFor is the name the controller must give the Job of the run scheduled at t: the CronJob's name
// and the scheduled time in Unix minutes, as batch/v1 does.
func jobNameFor(cj *cronjobv1.CronJob, t time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, t.Unix()/60)
}

// listJobs lists the Jobs of a namespace from the API server.
func listJobs(ctx context.Context, g Gomega, ns string) []batchv1.Job {
	var jobs batchv1.JobList
	g.Expect(k8sClient.List(ctx, &jobs, client.InNamespace(ns))).To(Succeed())
	return jobs.Items
}

// onlyJob waits until the namespace holds exactly one Job and returns it.
func onlyJob(ctx context.Context, ns string) batchv1.Job {
	GinkgoHelper()
	var job batchv1.Job
	Eventually(func(g Gomega) {
		jobs := listJobs(ctx, g, ns)
		g.Expect(jobs).To(HaveLen(1))
		job = jobs[0]
	}).Should(Succeed())
	return job
}
