package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// The scenario of issue 23: tenant A floods the operator three ways at once (Jobs of a megabyte that no
// CronJob owns, thousands of manual runs waiting behind a Forbid Job, a thousand CronJobs catching up after
// an outage), tenant B runs minutely CronJobs and one manual run meanwhile. Everything of tenant A is
// created while the manager is down; tenant B's CronJobs once it is up. The suite measures tenant B's
// skew and wait, the manager's memory and requests, and counts both tenants' Jobs with Job oracles.
var _ = Describe("Hostile tenants", Label("hostile"), func() {
	When("tenant A floods the operator with large Jobs, waiting runs and a catch-up", func() {
		It("should keep the manager under its memory limit and tenant B's runs on time, none lost or doubled", func(ctx SpecContext) {
			scale, err := ScaleFromEnv()
			Expect(err).NotTo(HaveOccurred())
			maxSkew, err := MaxSkew()
			Expect(err).NotTo(HaveOccurred())
			dir := resultsDir()
			Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
			s := &scenario{scale: scale, report: &Result{
				Scale: scale, Commit: commit(), Started: time.Now(), Setup: map[string]Seconds{},
				MemoryLimitBytes: MemoryLimit, ManualRunWait: -1,
			}}
			DeferCleanup(func() {
				s.measure()
				s.report.Finished = time.Now()
				Expect(s.report.Write(dir)).To(Succeed())
				AddReportEntry("hostile tenants", s.report.Markdown()+
					fmt.Sprintf("\nReport: %s/report.{md,json}; manager log: %s/manager.log\n", dir, dir))
			})

			c := setupClient()
			nsLarge := framework.CreateNamespace(ctx, k8sClient, "tenant-a-large").Name
			s.nsA = framework.CreateNamespace(ctx, k8sClient, "tenant-a").Name
			s.nsB = framework.CreateNamespace(ctx, k8sClient, "tenant-b").Name
			s.oracleA = framework.StartSpecJobOracle(ctx, cfg, s.nsA)
			s.oracleB = framework.StartSpecJobOracle(ctx, cfg, s.nsB)

			By(fmt.Sprintf("tenant A, with the manager down: %d Jobs of %d KiB", scale.LargeJobs, scale.LargeJobBytes>>10))
			s.step("large Jobs", func() error {
				return createAll(ctx, c, scale.LargeJobs, func(i int) *batchv1.Job { return largeJob(nsLarge, i, scale.LargeJobBytes) })
			})
			By(fmt.Sprintf("tenant A: %d CronJobRuns behind a Forbid CronJob's Job that never ends", scale.WaitingRuns))
			s.step("waiting runs", func() error {
				var err error
				if s.forbid, err = blockedCronJob(ctx, c, s.nsA, time.Now().Truncate(time.Minute)); err != nil {
					return err
				}
				return createAll(ctx, c, scale.WaitingRuns, func(int) *cronjobv1.CronJobRun { return waitingRun(s.nsA, s.forbid.Name) })
			})
			By(fmt.Sprintf("tenant A: %d minutely CronJobs, missedRunPolicy All, last run %d minutes ago", scale.CatchUpCronJobs, scale.CatchUpRuns))
			s.anchor = time.Now().Truncate(time.Minute).Add(-time.Duration(scale.CatchUpRuns) * time.Minute)
			s.catchUp = make([]*cronjobv1.CronJob, scale.CatchUpCronJobs)
			s.step("catch-up CronJobs", func() error {
				return createAll(ctx, c, scale.CatchUpCronJobs, func(i int) *cronjobv1.CronJob {
					s.catchUp[i] = catchUpCronJob(s.nsA, i, scale.CatchUpRuns, s.anchor)
					return s.catchUp[i]
				})
			})

			By("starting bin/manager with the shipped memory limit")
			s.started = time.Now()
			s.manager, err = startManager(ctx, managerBinary(), kubeconfig(dir), filepath.Join(dir, "manager.log"))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(s.manager.Stop)
			s.ready = time.Now()

			By(fmt.Sprintf("tenant B: %d minutely CronJobs and a manual run", scale.MinutelyCronJobs))
			s.minutely = make([]*cronjobv1.CronJob, scale.MinutelyCronJobs)
			Expect(createAll(ctx, c, scale.MinutelyCronJobs, func(i int) *cronjobv1.CronJob {
				s.minutely[i] = builders.MakeCronJob(fmt.Sprintf("minutely-%02d", i), s.nsB).Schedule("* * * * *").Obj()
				return s.minutely[i]
			})).To(Succeed())
			manual := builders.MakeCronJob("manual", s.nsB).Schedule(neverSchedule).Obj()
			Expect(framework.CreateCronJob(ctx, c, manual)).To(Succeed())
			s.manual = manual.UID
			s.first = nextMinute(time.Now())
			s.last = s.first.Add(time.Duration(scale.Minutes-1) * time.Minute)
			s.runCreated = time.Now()
			Expect(c.Create(ctx, builders.MakeCronJobRun("now", s.nsB, manual.Name).Obj())).To(Succeed())

			By(fmt.Sprintf("waiting for tenant B's runs of %s to %s, at most until %s after the last",
				s.first.Format("15:04"), s.last.Format("15:04"), maxSkew))
			s.waitForTenantB(ctx, s.last.Add(maxSkew))
			s.measure()
			s.measured = true

			r := s.report
			if r.ManagerEnded != "" {
				r.Failures = append(r.Failures, "the manager did not run to the end: "+r.ManagerEnded)
			}
			if r.PeakRSSBytes > MemoryLimit {
				r.Failures = append(r.Failures, fmt.Sprintf("peak RSS %s is above the limit %s", mib(r.PeakRSSBytes), mib(MemoryLimit)))
			}
			if b := r.TenantB; b.Lost+b.Duplicated+b.Unexpected > 0 {
				r.Failures = append(r.Failures, fmt.Sprintf("tenant B: %d runs lost, %d duplicated, %d unexpected of %d due", b.Lost, b.Duplicated, b.Unexpected, b.Due))
			}
			if time.Duration(r.Skew.Max) > maxSkew {
				r.Failures = append(r.Failures, fmt.Sprintf("tenant B: skew max %s above %s", r.Skew.Max, maxSkew))
			}
			if r.ManualRunWait < 0 || time.Duration(r.ManualRunWait) > maxSkew {
				r.Failures = append(r.Failures, fmt.Sprintf("tenant B: the manual run waited %s, more than %s", r.ManualRunWait, maxSkew))
			}
			if r.CatchUpDuplicates+r.CatchUpOutOfRange+r.ForbidBroken > 0 {
				r.Failures = append(r.Failures, fmt.Sprintf("tenant A: %d catch-up Jobs duplicated, %d not owed, %d runs past Forbid",
					r.CatchUpDuplicates, r.CatchUpOutOfRange, r.ForbidBroken))
			}
			Expect(r.Failures).To(BeEmpty())
		})
	})
})

// setupClient is a live client without a client-side rate limit, for creating the scenario quickly.
func setupClient() client.Client {
	GinkgoHelper()
	fast := rest.CopyConfig(cfg)
	fast.QPS, fast.Burst = -1, 0
	c, err := client.New(fast, client.Options{Scheme: framework.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// kubeconfig writes a kubeconfig of an admin user of the control plane to dir, for bin/manager.
func kubeconfig(dir string) string {
	GinkgoHelper()
	user, err := fwk.Environment().AddUser(envtest.User{Name: "hostile-manager", Groups: []string{"system:masters"}}, nil)
	Expect(err).NotTo(HaveOccurred())
	kc, err := user.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(dir, "manager.kubeconfig")
	Expect(os.WriteFile(path, kc, 0o600)).To(Succeed())
	return path
}

// nextMinute returns the first whole minute after t.
func nextMinute(t time.Time) time.Time { return t.Truncate(time.Minute).Add(time.Minute) }
