//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The kind soak (make soak, test/soak/README.md) kills the leader of two manager replicas
// $SOAK_KIND_KILLS times (default 30), $SOAK_KIND_HARD_KILLS of them (default 10, spread evenly) hard:
// the manager container is killed through the node's container runtime (crictl stop --timeout 0, a
// SIGKILL), so the Lease is not released; the others are pod deletes with the default grace period, in
// which the manager releases the Lease. A minutely CronJob runs throughout; the oracle checks exactly one
// Job per scheduled minute. It writes its figures to $SOAK_RESULTS_DIR/kind.{json,md} (default bin/soak).
var _ = Describe("Soak", Label("soak"), Serial, func() {
	It("should lose and double no run while the leader pod is killed again and again, gracefully or hard", func(ctx SpecContext) {
		kills, err := framework.EnvCount("SOAK_KIND_KILLS", 30)
		Expect(err).NotTo(HaveOccurred())
		hardKills, err := framework.EnvCount("SOAK_KIND_HARD_KILLS", 10)
		Expect(err).NotTo(HaveOccurred())
		Expect(hardKills).To(BeNumerically("<=", kills), "SOAK_KIND_HARD_KILLS must not exceed SOAK_KIND_KILLS")

		scaleManager(ctx, 2)
		DeferCleanup(scaleManager, int32(1))
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		cj := minutely("soak", ns, 0, 0).HistoryLimits(2, 1).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		created := time.Now()
		result := &framework.SoakResult{Layer: "kind", Started: created, Definitions: map[string]string{
			"kill": "graceful: delete of the leader Pod with its grace period (SIGTERM, the Lease released); " +
				"hard: crictl stop --timeout 0 of the leader's manager container in the node (SIGKILL, " +
				"the Lease held until it expires; the kubelet restarts the container)",
			"takeover": "from the kill being issued to the acquireTime the successor wrote in the Lease " +
				"(one host clock; config/e2e: lease 6 s, renew 4 s, retry 1 s)",
		}}
		var until time.Time
		DeferCleanup(func() {
			result.Finished = time.Now()
			if !until.IsZero() {
				result.Runs = framework.CountRuns(oracle.ScheduledTimes(cj.UID), minutesIn(created, until))
			}
			result.Passed = !CurrentSpecReport().Failed()
			Expect(result.Write("")).To(Succeed())
			AddReportEntry("soak summary", result.Markdown())
		})

		for k := 1; k <= kills; k++ {
			kind := framework.GracefulKill
			if k*hardKills/kills > (k-1)*hardKills/kills {
				kind = framework.HardKill
			}
			victim := leaderWithFollower(ctx)
			pod, _, _ := strings.Cut(victim, "_")
			By(fmt.Sprintf("kill %d/%d (%s) of the leader %s", k, kills, kind, pod))
			killed := time.Now()
			if kind == framework.HardKill {
				killManagerContainer(ctx, pod)
			} else {
				Expect(clientset.CoreV1().Pods(operatorNamespace).Delete(ctx, pod, metav1.DeleteOptions{})).To(Succeed())
			}
			var lease *coordinationv1.Lease
			Eventually(func(g Gomega) string {
				lease = managerLease(ctx, g)
				return ptr.Deref(lease.Spec.HolderIdentity, "")
			}).WithTimeout(leaseDuration+30*time.Second).WithPolling(100*time.Millisecond).
				Should(And(Not(BeEmpty()), Not(Equal(victim))), "a follower should take the Lease over")
			Expect(lease.Spec.AcquireTime).NotTo(BeNil())
			kill := framework.SoakKill{Kind: kind, Victim: victim, Successor: *lease.Spec.HolderIdentity,
				Takeover: lease.Spec.AcquireTime.Sub(killed)}
			result.Kills = append(result.Kills, kill)
			AddReportEntry(fmt.Sprintf("takeover %d (%s)", k, kind), kill.Takeover.Round(time.Millisecond))
			if kind == framework.HardKill {
				Expect(kill.Takeover).To(BeNumerically(">=", leaseDuration/2),
					"the successor must wait for a Lease that was not released to expire")
			}
		}
		stopped := time.Now()

		By("letting the manager recover, and checking every scheduled minute has exactly one Job")
		waitForManager(ctx)
		until = stopped.Add(time.Minute)
		Eventually(func(g Gomega) { checkRuns(g, oracle, cj, created, until) }).
			WithTimeout(time.Until(until) + runWait/2).Should(Succeed())
		counts := framework.CountRuns(oracle.ScheduledTimes(cj.UID), minutesIn(created, until))
		Expect(counts.Lost).To(BeZero())
		Expect(counts.Duplicated).To(BeZero())
		checkStatusMatchesJobs(ctx, cj)
	})
})

// leaderWithFollower waits until two manager pods run, ready and not terminating, and one of them holds
// the Lease, and returns the holder's identity ("<pod>_<uuid>").
func leaderWithFollower(ctx context.Context) string {
	GinkgoHelper()
	var holder string
	// A container killed several times waits out the kubelet's restart back-off (10 s, doubling).
	Eventually(func(g Gomega) {
		ready := map[string]bool{}
		for _, p := range managerPods(ctx, g) {
			if p.DeletionTimestamp == nil && podReady(&p) {
				ready[p.Name] = true
			}
		}
		g.Expect(ready).To(HaveLen(2), "two ready manager pods")
		holder = ptr.Deref(managerLease(ctx, g).Spec.HolderIdentity, "")
		pod, _, _ := strings.Cut(holder, "_")
		g.Expect(ready).To(HaveKey(pod), "the Lease held by a ready manager pod")
	}).WithTimeout(6 * time.Minute).Should(Succeed())
	return holder
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// managerLease reads the manager's leader election Lease.
func managerLease(ctx context.Context, g Gomega) *coordinationv1.Lease {
	var lease coordinationv1.Lease
	g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: leaseName}, &lease)).To(Succeed())
	return &lease
}

// killManagerContainer kills the manager container of the pod through the node's container runtime, with
// no grace period (SIGKILL), as a crash or an OOM kill would: nothing of the manager's shutdown runs.
func killManagerContainer(ctx context.Context, pod string) {
	GinkgoHelper()
	node := settings.cluster + "-control-plane"
	id := strings.TrimSpace(dockerExec(ctx, node, "crictl", "ps", "-q", "--name", "^manager$",
		"--label", "io.kubernetes.pod.name="+pod, "--label", "io.kubernetes.pod.namespace="+operatorNamespace))
	Expect(id).NotTo(BeEmpty(), "no running manager container in pod %s", pod)
	Expect(strings.Fields(id)).To(HaveLen(1), "one running manager container in pod %s", pod)
	dockerExec(ctx, node, "crictl", "stop", "--timeout", "0", id)
}

// minutesIn returns the minutes after from up to to, as checkRuns counts them.
func minutesIn(from, to time.Time) []time.Time {
	var at []time.Time
	for m := from.Truncate(time.Minute).Add(time.Minute); !m.After(to); m = m.Add(time.Minute) {
		at = append(at, m)
	}
	return at
}
