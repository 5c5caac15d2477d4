package cronjob

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

func TestControllerQueueDefersRecordsBehindEveryReconcile(t *testing.T) {
	req := func(n string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: Namespace, Name: n}}
	}
	var c controllerQueue
	// Before the controller has started there is no queue: nothing is queued, and nothing panics.
	c.Add(req("early"))
	c.AddLast(req("early"))
	if n := c.Len(); n != 0 {
		t.Fatalf("Len before the controller started = %d, want 0", n)
	}

	// The priority queue of a manager on the real clock: a deferred record (AddLast) comes out after the
	// CronJobs queued after it, also after those of the initial list (handler.LowPriority).
	pq := workqueue.TypedRateLimitingInterface[reconcile.Request](priorityqueue.New[reconcile.Request]("test"))
	t.Cleanup(pq.ShutDown)
	c.q.Store(&pq)
	c.AddLast(req("record"))
	c.Add(req("event"))
	pq.(priorityqueue.PriorityQueue[reconcile.Request]).AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(handler.LowPriority)}, req("initial-list"))
	if n := c.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3", n)
	}
	var order []string
	for range 3 {
		r, _ := pq.Get()
		order = append(order, r.Name)
		pq.Done(r)
	}
	if diff := cmp.Diff([]string{"event", "initial-list", "record"}, order); diff != "" {
		t.Errorf("order out of the priority queue (-want,+got):\n%s", diff)
	}

	// A FIFO queue (a fake clock): AddLast appends.
	fifo := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	t.Cleanup(fifo.ShutDown)
	c.q.Store(&fifo)
	c.AddLast(req("record"))
	c.Add(req("event"))
	order = nil
	for range 2 {
		r, _ := fifo.Get()
		order = append(order, r.Name)
		fifo.Done(r)
	}
	if diff := cmp.Diff([]string{"record", "event"}, order); diff != "" {
		t.Errorf("order out of the FIFO queue (-want,+got):\n%s", diff)
	}
}

// TestSetupWithManagerReportsABuilderError: a manager whose scheme lacks the CronJob API cannot build the
// controller, and SetupWithManager says so instead of starting without it.
func TestSetupWithManagerReportsABuilderError(t *testing.T) {
	mgr, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
		Scheme: runtime.NewScheme(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	err = (&Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader()}).SetupWithManager(mgr, 1)
	if err == nil || !strings.Contains(err.Error(), "setting up the controller") {
		t.Errorf("SetupWithManager = %v, want the builder's error, wrapped", err)
	}
}
