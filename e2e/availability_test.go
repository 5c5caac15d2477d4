//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// admissionInterval is the cadence of the admission client of the availability spec (a create and a
// patch each time): not a wait for an outcome.
const admissionInterval = 250 * time.Millisecond

// The webhooks' failurePolicy is Fail: while no replica answers, every CronJob create and update fails. The
// manager runs two replicas, a PodDisruptionBudget and a preStop delay so that a rollout never gets there.
var _ = Describe("Availability", Label("availability"), func() {
	It("should answer every admission request while the manager rolls", Serial, func(ctx SpecContext) {
		scaleManager(ctx, 2)
		DeferCleanup(scaleManager, int32(1))
		ns := newNamespace(ctx)
		before := podNames(managerPods(ctx, Default))

		By("creating and updating CronJobs without pause")
		load := startAdmissionLoad(ctx, ns)

		By("rolling the manager, as kubectl rollout restart does")
		rolled := time.Now()
		patchManager(ctx, func(d *appsv1.Deployment) {
			if d.Spec.Template.Annotations == nil {
				d.Spec.Template.Annotations = map[string]string{}
			}
			d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] = rolled.Format(time.RFC3339)
		})
		AddReportEntry("rollout of two replicas took", time.Since(rolled).Round(time.Second))
		Expect(podNames(managerPods(ctx, Default))).NotTo(ContainElements(before), "every replica was replaced")

		requests, failures := load.stop()
		AddReportEntry("admission requests during the rollout", requests)
		Expect(failures).To(BeEmpty(), "admission requests that failed during the rollout (%d sent)", requests)
		// A create and a patch every admissionInterval, eight a second: a client that stalled during the
		// rollout would have sent fewer than one a second.
		Expect(requests).To(BeNumerically(">=", int(time.Since(rolled).Seconds())))
	})
})

// load is a client that runs one step every admissionInterval and records each request the step makes,
// keeping the errors: the clients of the availability and upgrade specs.
type load struct {
	cancel   context.CancelFunc
	done     chan struct{}
	mu       sync.Mutex
	requests int
	failures []string
}

// startLoad runs step(ctx, i, record) every admissionInterval until stop; step reports each request it
// made to record.
func startLoad(ctx context.Context, step func(ctx context.Context, i int, record func(what string, err error))) *load {
	ctx, cancel := context.WithCancel(ctx)
	l := &load{cancel: cancel, done: make(chan struct{})}
	record := func(what string, err error) { l.record(ctx, what, err) }
	go func() {
		defer GinkgoRecover()
		defer close(l.done)
		tick := time.NewTicker(admissionInterval)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			step(ctx, i, record)
		}
	}()
	return l
}

// startAdmissionLoad creates a CronJob and patches the schedule of the previous one every
// admissionInterval in namespace ns, each request through both admission webhooks. Its CronJobs are
// suspended: the spec is about admission, not runs.
func startAdmissionLoad(ctx context.Context, ns string) *load {
	var previous *cronjobv1.CronJob
	return startLoad(ctx, func(ctx context.Context, i int, record func(string, error)) {
		cj := builders.MakeCronJob(fmt.Sprintf("load-%d", i), ns).Schedule("*/5 * * * *").Suspend().Obj()
		record("create "+cj.Name, k8sClient.Create(ctx, cj))
		if previous != nil {
			// A merge patch carries no resourceVersion, so the controller's status writes cannot
			// make it conflict: an error here is admission's or the API server's.
			patch := client.RawPatch(client.Merge.Type(), []byte(`{"spec":{"schedule":"*/7 * * * *"}}`))
			record("patch "+previous.Name, k8sClient.Patch(ctx, previous, patch))
		}
		previous = cj
	})
}

// record counts a request and keeps its error, unless the load was being stopped when it failed.
func (l *load) record(ctx context.Context, what string, err error) {
	if ctx.Err() != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests++
	if err != nil {
		l.failures = append(l.failures, fmt.Sprintf("%s %s: %v", time.Now().Format(time.RFC3339Nano), what, err))
	}
}

// stop stops the load, waits for its last request and returns how many requests it made and the failures.
func (l *load) stop() (int, []string) {
	l.cancel()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.requests, l.failures
}

func podNames(pods []corev1.Pod) []string {
	names := make([]string, 0, len(pods))
	for _, p := range pods {
		names = append(names, p.GetName())
	}
	return names
}
