//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/faults"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// leaseName is the manager's leader election Lease (main.go).
const leaseName = "cronjob-operator.batch.cronjob-operator.dev"

// leaseDuration is the manager's --leader-elect-lease-duration in config/e2e.
const leaseDuration = 6 * time.Second

// chaosDuration is how long the manager is killed again and again ($E2E_CHAOS_DURATION, default 2m: a
// kill every killInterval across two minute boundaries, and short, as the Serial specs run one after the
// other; e2e/README.md says what that makes of the suites' length).
func chaosDuration() time.Duration {
	d, err := time.ParseDuration(env("E2E_CHAOS_DURATION", "2m"))
	Expect(err).NotTo(HaveOccurred(), "E2E_CHAOS_DURATION")
	return d
}

// The chaos specs kill what an operator must survive, through the API (grace period 0) or the node's
// container runtime, and check with an oracle (a Job watcher of the test) that every scheduled minute has
// exactly one Job. Those that disturb the manager are Serial: they run alone, after the others.
var _ = Describe("Chaos", Label("chaos"), func() {
	It("should lose and double no run while the manager is killed every 20 seconds", Serial, func(ctx SpecContext) {
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		var cjs []*cronjobv1.CronJob
		for _, name := range []string{"alpha", "beta", "gamma"} {
			cj := minutely(name, ns, 5*time.Second, 0).HistoryLimits(2, 2).Obj()
			Expect(k8sClient.Create(ctx, cj)).To(Succeed())
			cjs = append(cjs, cj)
		}
		created := time.Now()

		kills := 0
		for end := time.Now().Add(chaosDuration()); time.Now().Before(end); {
			killed := killManagerPods(ctx)
			kills += killed
			By(fmt.Sprintf("killed %d manager pod(s); %d so far", killed, kills))
			// Wait killInterval, real time, between kills: the cadence of the chaos, not a wait for an outcome.
			select {
			case <-ctx.Done():
				return
			case <-time.After(killInterval):
			}
		}
		stopped := time.Now()
		AddReportEntry("manager pod kills survived", kills)

		By("letting the manager recover, and checking every scheduled minute has exactly one Job")
		waitForManager(ctx)
		Eventually(func(g Gomega) {
			for _, cj := range cjs {
				checkRuns(g, oracle, cj, created, stopped)
				status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
				g.Expect(status.LastScheduleTime).NotTo(BeNil())
				g.Expect(status.LastScheduleTime.Time).To(BeTemporally(">=", stopped.Truncate(time.Minute)))
			}
		}).WithTimeout(runWait).Should(Succeed())
		checkStatusMatchesJobs(ctx, cjs...)
	})

	It("should let the follower take over within the lease when the leader is killed right after a run", Serial, func(ctx SpecContext) {
		scaleManager(ctx, 2)
		DeferCleanup(scaleManager, int32(1))
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		cj := minutely("relay", ns, 0, 0).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		created := time.Now()

		By("waiting for a run, then killing the leader at once")
		Eventually(func() []framework.ObservedJob { return oracle.JobsOf(cj.UID) }).WithTimeout(runWait).ShouldNot(BeEmpty())
		leader := leaseHolder(ctx, Default)
		killed := time.Now()
		Expect(clientset.CoreV1().Pods(operatorNamespace).Delete(ctx, leader,
			metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})).To(Succeed())
		Eventually(func(g Gomega) string { return leaseHolder(ctx, g) }).WithTimeout(takeoverWait).
			WithPolling(takeoverPolling).ShouldNot(Equal(leader))
		AddReportEntry("takeover after killing the leader", time.Since(killed).Round(100*time.Millisecond))

		By("checking the runs until the next minute but one")
		until := time.Now().Add(checkWindow)
		Eventually(func(g Gomega) { checkRuns(g, oracle, cj, created, until) }).
			WithTimeout(time.Until(until) + runWait/2).Should(Succeed())
		checkStatusMatchesJobs(ctx, cj)
	})

	It("should adopt the Job of a manager that crashed between creating it and writing status", Serial, func(ctx SpecContext) {
		setManagerEnv(ctx, faults.Env, faults.AfterJobCreate)
		DeferCleanup(setManagerEnv, faults.Env, "")
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		cj := minutely("crash", ns, 10*time.Minute, 0).Forbid().Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())

		By("waiting for the manager to exit at the fault point after the first create")
		Eventually(func(g Gomega) {
			pods := managerPods(ctx, g)
			g.Expect(pods).To(HaveLen(1))
			st := pods[0].Status.ContainerStatuses
			g.Expect(st).NotTo(BeEmpty())
			g.Expect(st[0].LastTerminationState.Terminated).NotTo(BeNil())
			g.Expect(st[0].LastTerminationState.Terminated.ExitCode).To(BeEquivalentTo(faults.ExitCode))
		}).WithTimeout(runWait).Should(Succeed())

		By("checking that the restarted manager adopts that Job: one Job, recorded in status")
		var first framework.ObservedJob
		Eventually(func(g Gomega) {
			jobs := oracle.JobsOf(cj.UID)
			g.Expect(jobs).To(HaveLen(1))
			first = jobs[0]
			status := framework.GetCronJob(ctx, g, k8sClient, cj).Status
			g.Expect(status.LastScheduleTime).To(BeComparableTo(ptr.To(metav1.NewTime(first.ScheduledAt))))
			g.Expect(status.Active).To(ConsistOf(HaveField("UID", first.UID)))
		}).WithTimeout(runWait).Should(Succeed())
		Consistently(func() []framework.ObservedJob { return oracle.JobsOf(cj.UID) }).WithTimeout(noRunWindow).
			Should(HaveLen(1), "Forbid: the adopted Job runs, so no other may start")
	})

	It("should keep the CronJob's status and history right when the Pods of its Jobs are killed", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		// Each Job runs 20 s; its first Pod is killed, which counts against backoffLimit: 2 leaves room.
		cj := minutely("resilient", ns, 20*time.Second, 0).BackoffLimit(2).HistoryLimits(2, 1).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		created := time.Now()

		killed := map[string]bool{}
		By("killing the first Pod of each of three Jobs")
		Eventually(func(g Gomega) {
			for _, j := range jobsOf(ctx, g, cj) {
				if killed[j.Name] {
					continue
				}
				for _, p := range podsOf(ctx, g, ns, j.UID) {
					if p.Status.Phase == corev1.PodRunning {
						g.Expect(client.IgnoreNotFound(clientset.CoreV1().Pods(ns).Delete(ctx, p.Name,
							metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}))).To(Succeed())
						killed[j.Name] = true
					}
				}
			}
			g.Expect(killed).To(HaveLen(3))
		}).WithTimeout(4 * runWait).WithPolling(podPolling).Should(Succeed())
		AddReportEntry("Job pod kills survived", len(killed))
		stopped := time.Now()

		By("checking that the Jobs still succeed, and status and history agree")
		Eventually(func(g Gomega) {
			checkRuns(g, oracle, cj, created, stopped)
			var succeeded int
			for _, j := range jobsOf(ctx, g, cj) {
				if done, how := framework.JobFinished(&j); done {
					g.Expect(how).To(Equal(batchv1.JobComplete), "Job %s: a killed Pod is retried", j.Name)
					succeeded++
				}
			}
			g.Expect(succeeded).To(Equal(2), "successfulJobsHistoryLimit")
			g.Expect(framework.GetCronJob(ctx, g, k8sClient, cj).Status.LastSuccessfulTime).NotTo(BeNil())
		}).WithTimeout(runWait).Should(Succeed())
		checkStatusMatchesJobs(ctx, cj)
	})

	It("should lose and double no run when the kube-apiserver restarts", Serial, func(ctx SpecContext) {
		ns := newNamespace(ctx)
		oracle := framework.StartSpecJobOracle(ctx, cfg, ns)
		cj := minutely("steadfast", ns, 0, 0).Obj()
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		created := time.Now()
		Eventually(func() []framework.ObservedJob { return oracle.JobsOf(cj.UID) }).WithTimeout(runWait).ShouldNot(BeEmpty())

		By("stopping the kube-apiserver container in the node; the kubelet restarts it")
		node := settings.cluster + "-control-plane"
		id := strings.TrimSpace(dockerExec(ctx, node, "crictl", "ps", "--name", "kube-apiserver", "-q"))
		Expect(id).NotTo(BeEmpty())
		dockerExec(ctx, node, "crictl", "stop", id)
		restarted := time.Now()
		Eventually(func(g Gomega) {
			_, err := clientset.Discovery().ServerVersion()
			g.Expect(err).NotTo(HaveOccurred())
		}).WithTimeout(apiServerRestartWait).Should(Succeed())
		AddReportEntry("kube-apiserver back after", time.Since(restarted).Round(time.Second))

		By("checking the runs until the next minute but one")
		until := time.Now().Add(checkWindow)
		Eventually(func(g Gomega) { checkRuns(g, oracle, cj, created, until) }).
			WithTimeout(time.Until(until) + runWait/2).Should(Succeed())
		checkStatusMatchesJobs(ctx, cj)
	})
})

// killManagerPods deletes every manager pod with grace period 0 and returns how
// many it deleted.
func killManagerPods(ctx context.Context) int {
	GinkgoHelper()
	n := 0
	for _, p := range managerPods(ctx, Default) {
		if p.DeletionTimestamp != nil {
			continue
		}
		Expect(client.IgnoreNotFound(clientset.CoreV1().Pods(operatorNamespace).Delete(ctx, p.Name,
			metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}))).To(Succeed())
		n++
	}
	return n
}

func managerPods(ctx context.Context, g Gomega) []corev1.Pod {
	var pods corev1.PodList
	g.Expect(k8sClient.List(ctx, &pods, client.InNamespace(operatorNamespace),
		client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
	return pods.Items
}

// leaseHolder returns the pod name of the manager that holds the Lease (identity "<pod>_<uuid>").
func leaseHolder(ctx context.Context, g Gomega) string {
	var lease coordinationv1.Lease
	g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: leaseName}, &lease)).To(Succeed())
	holder, _, _ := strings.Cut(ptr.Deref(lease.Spec.HolderIdentity, ""), "_")
	return holder
}

// scaleManager sets the manager's replicas and waits until they are available.
func scaleManager(ctx context.Context, replicas int32) {
	patchManager(ctx, func(d *appsv1.Deployment) { d.Spec.Replicas = &replicas })
}

// setManagerEnv sets (or, with value "", removes) an environment variable of the manager container and
// waits for the rollout.
func setManagerEnv(ctx context.Context, name, value string) {
	patchManager(ctx, func(d *appsv1.Deployment) {
		c := &d.Spec.Template.Spec.Containers[0]
		var kept []corev1.EnvVar
		for _, e := range c.Env {
			if e.Name != name {
				kept = append(kept, e)
			}
		}
		if value != "" {
			kept = append(kept, corev1.EnvVar{Name: name, Value: value})
		}
		c.Env = kept
	})
}

func patchManager(ctx context.Context, mutate func(*appsv1.Deployment)) {
	GinkgoHelper()
	var d appsv1.Deployment
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: managerDeployment}, &d)).To(Succeed())
	patch := client.MergeFrom(d.DeepCopy())
	mutate(&d)
	Expect(k8sClient.Patch(ctx, &d, patch)).To(Succeed())
	waitForRollout(ctx)
}

// waitForRollout waits until the manager Deployment is available with only the Pods of its current
// template (a rollout leaves the old ones terminating for a moment, and the webhook Service may still send
// them requests), and the admission webhooks answer through the Service.
func waitForRollout(ctx context.Context) {
	GinkgoHelper()
	waitForManager(ctx)
	var d appsv1.Deployment
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: managerDeployment}, &d)).To(Succeed())
	Eventually(func(g Gomega) {
		var n int32
		for _, p := range managerPods(ctx, g) {
			g.Expect(p.DeletionTimestamp).To(BeNil())
			n++
		}
		g.Expect(n).To(Equal(ptr.Deref(d.Spec.Replicas, 1)))
	}).WithTimeout(settleWait).Should(Succeed())
	// The webhooks are served through a Service: until kube-proxy follows the new Pods, admission fails.
	waitForWebhooks(ctx)
}

// checkStatusMatchesJobs checks that each CronJob's status.active is exactly its running Jobs, once the
// controller has caught up.
func checkStatusMatchesJobs(ctx context.Context, cjs ...*cronjobv1.CronJob) {
	GinkgoHelper()
	for _, cj := range cjs {
		Eventually(func(g Gomega) {
			var running []string
			for _, j := range jobsOf(ctx, g, cj) {
				if done, _ := framework.JobFinished(&j); !done && j.DeletionTimestamp == nil {
					running = append(running, j.Name)
				}
			}
			var active []string
			for _, ref := range framework.GetCronJob(ctx, g, k8sClient, cj).Status.Active {
				active = append(active, ref.Name)
			}
			g.Expect(active).To(ConsistOf(running), "status.active of %s", cj.Name)
		}).WithTimeout(settleWait).Should(Succeed())
	}
}

// dockerExec runs a command in a kind node container and returns its output.
func dockerExec(ctx context.Context, node string, args ...string) string {
	GinkgoHelper()
	cmd := exec.CommandContext(ctx, env("DOCKER", "docker"), append([]string{"exec", node}, args...)...)
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "docker exec %s %v: %s", node, args, out)
	return string(out)
}
