package controllers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cronjob-operator/cronjob-operator/controllers/cronjob"

	"github.com/go-logr/logr"
	"github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllertest"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/index"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	cronjobwebhooks "github.com/cronjob-operator/cronjob-operator/controllers/webhooks"
)

// The wiring of Setup without an API server: the manager gets fake informers that the test feeds, a fake
// client for reads and writes and a webhook server that records what is registered. The envtest layer runs
// the same wiring against a real kube-apiserver; these tests make its rules observable in the unit layer.

// setupRig is a manager wired by Setup whose cache is fed by hand.
type setupRig struct {
	client    client.Client
	informers *informertest.FakeInformers
	webhooks  *recordingWebhookServer
	clock     *clocktesting.FakeClock
	outcomes  chan cronjob.Outcome
	ctrl      *Controller
}

func newSetupRig(t *testing.T, g gomega.Gomega, now time.Time, hooks *WebhookOptions, objs ...client.Object) *setupRig {
	return newSetupRigWith(t, g, now, hooks, func(*manager.Options) {}, objs...)
}

// newSetupRigWith is newSetupRig with manager options changed by mutate.
func newSetupRigWith(t *testing.T, g gomega.Gomega, now time.Time, hooks *WebhookOptions, mutate func(*manager.Options), objs ...client.Object) *setupRig {
	t.Helper()
	rig := &setupRig{
		client: fake.NewClientBuilder().WithScheme(Scheme()).WithRESTMapper(RESTMapper()).
			WithObjectTracker(clienttesting.NewObjectTracker(Scheme(), Codecs().UniversalDecoder())).
			WithObjects(objs...).WithStatusSubresource(&cronjobv1.CronJob{}).
			WithIndex(&batchv1.Job{}, index.JobOwnerKey, index.JobOwner).Build(),
		informers: &informertest.FakeInformers{Scheme: Scheme(), InformersByGVK: map[schema.GroupVersionKind]toolscache.SharedIndexInformer{
			cronjobv1.GroupVersion.WithKind("CronJob"): newHandledInformer(),
			batchv1.SchemeGroupVersion.WithKind("Job"): newHandledInformer(),
			// The CronJobRun controller's (cronjobrun.Reconciler.SetupWithManager).
			cronjobv1.GroupVersion.WithKind("CronJobRun"): newHandledInformer(),
		}},
		webhooks: &recordingWebhookServer{},
		clock:    clocktesting.NewFakeClock(now),
		outcomes: make(chan cronjob.Outcome, 100),
	}
	// Nothing listens there: the event recorder's writes fail, which Events allow (best effort).
	cfg := &rest.Config{Host: "http://127.0.0.1:1"}
	opts := manager.Options{
		Scheme:                 Scheme(),
		Logger:                 logr.Discard(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          rig.webhooks,
		MapperProvider:         func(*rest.Config, *http.Client) (meta.RESTMapper, error) { return RESTMapper(), nil },
		NewCache:               func(*rest.Config, cache.Options) (cache.Cache, error) { return rig.informers, nil },
		NewClient:              func(*rest.Config, client.Options) (client.Client, error) { return rig.client, nil },
	}
	mutate(&opts)
	mgr, err := manager.New(cfg, opts)
	g.Expect(err).NotTo(gomega.HaveOccurred())
	rig.ctrl, err = Setup(mgr, Options{
		Clock:               rig.clock,
		Webhooks:            hooks,
		StatusThroughClient: true, // the fake client is the API server here
		OnReconcile: func(key types.NamespacedName, o cronjob.Outcome) {
			if key.Name == "hourly" {
				rig.outcomes <- o
			}
		},
	})
	g.Expect(err).NotTo(gomega.HaveOccurred())
	g.Expect(rig.ctrl).NotTo(gomega.BeNil())
	return rig
}

// start runs the controller until the test ends, and checks that Start returns nil once it is cancelled.
func (rig *setupRig) start(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rig.ctrl.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start after cancel: got %v, want nil (a cancelled context is not an error)", err)
		}
	})
}

// add hands obj to the informer of its kind, as a watch event would, once the controller watches it.
func (rig *setupRig) add(g gomega.Gomega, obj client.Object) {
	gvk, err := apiutil.GVKForObject(obj, Scheme())
	g.Expect(err).NotTo(gomega.HaveOccurred())
	inf := rig.informers.InformersByGVK[gvk].(*handledInformer)
	g.Eventually(inf.watched).WithTimeout(30*time.Second).Should(gomega.BeClosed(), "the controller watches %s", gvk.Kind)
	inf.add(obj)
}

// await calls poke, again and again, until a reconcile of "hourly" ends with an cronjob.Outcome that matches,
// and returns that cronjob.Outcome; the others are dropped.
func (rig *setupRig) await(g gomega.Gomega, poke func(), match func(cronjob.Outcome) bool) cronjob.Outcome {
	var got cronjob.Outcome
	g.Eventually(func() bool {
		poke()
		for {
			select {
			case o := <-rig.outcomes:
				if match(o) {
					got = o
					return true
				}
			default:
				return false
			}
		}
	}).WithTimeout(30 * time.Second).Should(gomega.BeTrue())
	return got
}

func (rig *setupRig) next(g gomega.Gomega) cronjob.Outcome {
	var o cronjob.Outcome
	g.Eventually(rig.outcomes).WithTimeout(30 * time.Second).Should(gomega.Receive(&o))
	return o
}

func TestSetupReconcilesWatchedCronJobsAndRequeuesOnTheInjectedClock(t *testing.T) {
	g := gomega.NewWithT(t)
	cj := Hourly().Obj()
	rig := newSetupRig(t, g, TopOfTheHour.Add(-10*time.Minute), nil, cj)
	rig.start(t)

	rig.add(g, cj)
	first := rig.next(g)
	g.Expect(first.Run).To(gomega.Equal(cronjob.RunNone), "nothing is due at 09:50")
	g.Expect(first.RequeueAfter).To(gomega.Equal(10*time.Minute+schedule.RequeuePadding), "requeued for the run at 10:00")

	// The workqueue waits on the injected clock: the requeue fires when the fake clock reaches 10:00, not
	// ten real minutes later. SetTime again and again, as the requeue may not be queued yet; the time stays
	// just past 10:00, so the run due is the one of 10:00 whenever the requeue is.
	due := rig.await(g, func() { rig.clock.SetTime(TopOfTheHour.Add(schedule.RequeuePadding)) }, func(o cronjob.Outcome) bool { return o.Run != cronjob.RunNone })
	g.Expect(due.Run).To(gomega.Equal(cronjob.RunCreated))
	g.Expect(due.Scheduled).To(gomega.BeTemporally("==", TopOfTheHour))
	var job batchv1.Job
	g.Expect(rig.client.Get(context.Background(), types.NamespacedName{Namespace: Namespace, Name: JobName(TopOfTheHour)}, &job)).To(gomega.Succeed())
	g.Expect(metav1.IsControlledBy(&job, cj)).To(gomega.BeTrue(), "the Job is controlled by its CronJob")

	// An event of a Job the CronJob controls reconciles the CronJob (Owns): it sees its Job running.
	rig.add(g, &job)
	owned := rig.next(g)
	g.Expect(owned.Run).To(gomega.Equal(cronjob.RunNone))
	g.Expect(rig.cronJob(g).Status.Active).To(gomega.HaveLen(1))
}

func TestSetupRegistersTheWebhooksOnlyOnceTheCertificatesAreReady(t *testing.T) {
	g := gomega.NewWithT(t)
	certs := make(chan struct{})
	rig := newSetupRig(t, g, TopOfTheHour, &WebhookOptions{CertsReady: certs})
	g.Expect(rig.webhooks.paths()).To(gomega.BeEmpty(), "registered before the manager started")
	rig.start(t)
	// Reconciles run while the certificates are missing, without the webhooks.
	rig.add(g, Hourly().Obj())
	rig.next(g)
	g.Expect(rig.webhooks.paths()).To(gomega.BeEmpty(), "registered before CertsReady was closed")
	g.Expect(rig.ctrl.WebhooksRegistered()).NotTo(gomega.BeClosed())

	close(certs)
	g.Eventually(rig.ctrl.WebhooksRegistered()).WithTimeout(30 * time.Second).Should(gomega.BeClosed())
	g.Expect(rig.webhooks.paths()).To(gomega.ConsistOf(
		"/validate-batch-cronjob-operator-dev-v1-cronjob", "/validate-batch-cronjob-operator-dev-v1-cronjobrun",
		"/validate-batch-cronjob-operator-dev-v1-croncalendar", cronjobwebhooks.RetiredMutatingPath, "/convert"),
		"registered before WebhooksRegistered is closed")
}

func TestSetupRegistersTheWebhooksOnAReplicaThatIsNotTheLeader(t *testing.T) {
	g := gomega.NewWithT(t)
	certs := make(chan struct{})
	rig := newSetupRigWith(t, g, TopOfTheHour, &WebhookOptions{CertsReady: certs}, func(o *manager.Options) {
		o.LeaderElection = true
		o.LeaderElectionID = "cronjob-operator"
		o.LeaderElectionNamespace = Namespace
		o.LeaderElectionResourceLockInterface = neverElected{}
	})
	rig.start(t)
	close(certs)
	// A follower passes its readiness check once the certificates are there (main.go), and the webhook
	// Service sends it admission requests: it must serve them, not answer 404.
	g.Eventually(rig.webhooks.paths).WithTimeout(30 * time.Second).Should(gomega.ConsistOf(
		"/validate-batch-cronjob-operator-dev-v1-cronjob", "/validate-batch-cronjob-operator-dev-v1-cronjobrun",
		"/validate-batch-cronjob-operator-dev-v1-croncalendar", cronjobwebhooks.RetiredMutatingPath, "/convert"))
}

// neverElected is a leader election lock that another replica holds for ever.
type neverElected struct{}

func (neverElected) Get(context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	return nil, nil, errors.New("the lock is out of reach")
}
func (neverElected) Create(context.Context, resourcelock.LeaderElectionRecord) error {
	return errors.New("the lock is out of reach")
}
func (neverElected) Update(context.Context, resourcelock.LeaderElectionRecord) error {
	return errors.New("the lock is out of reach")
}
func (neverElected) RecordEvent(string) {}
func (neverElected) Identity() string   { return "follower" }
func (neverElected) Describe() string   { return "ns/cronjob-operator" }

func TestSetupRegistersTheWebhooksAtOnceWithoutCertsReady(t *testing.T) {
	g := gomega.NewWithT(t)
	rig := newSetupRig(t, g, TopOfTheHour, &WebhookOptions{})
	g.Expect(rig.webhooks.paths()).To(gomega.ConsistOf(
		"/validate-batch-cronjob-operator-dev-v1-cronjob", "/validate-batch-cronjob-operator-dev-v1-cronjobrun",
		"/validate-batch-cronjob-operator-dev-v1-croncalendar", cronjobwebhooks.RetiredMutatingPath, "/convert"))
	g.Expect(rig.ctrl.WebhooksRegistered()).To(gomega.BeClosed())
}

func TestSetupWithoutWebhooksRegistersNone(t *testing.T) {
	g := gomega.NewWithT(t)
	rig := newSetupRig(t, g, TopOfTheHour, nil)
	rig.start(t)
	rig.add(g, Hourly().Obj())
	rig.next(g)
	g.Expect(rig.webhooks.paths()).To(gomega.BeEmpty())
	g.Expect(rig.ctrl.WebhooksRegistered()).NotTo(gomega.BeClosed())
}

func TestControllerStartReturnsTheManagersError(t *testing.T) {
	g := gomega.NewWithT(t)
	rig := newSetupRig(t, g, TopOfTheHour, nil)
	boom := errors.New("boom")
	g.Expect(rig.ctrl.mgr.Add(manager.RunnableFunc(func(context.Context) error { return boom }))).To(gomega.Succeed())
	g.Expect(rig.ctrl.Start(context.Background())).To(gomega.MatchError(boom), "a runnable that fails stops the manager with its error")
}

func (rig *setupRig) cronJob(g gomega.Gomega) *cronjobv1.CronJob {
	var cj cronjobv1.CronJob
	g.Expect(rig.client.Get(context.Background(), types.NamespacedName{Namespace: Namespace, Name: "hourly"}, &cj)).To(gomega.Succeed())
	return &cj
}

// handledInformer is a fake informer that says when the controller has registered its event handler
// (watched is closed then) and hands events to the handlers under a lock, as the controller registers them
// from its own goroutine.
type handledInformer struct {
	*controllertest.FakeInformer
	mu       sync.Mutex
	once     sync.Once
	handlers chan struct{}
}

func newHandledInformer() *handledInformer {
	return &handledInformer{FakeInformer: controllertest.NewFakeInformer(controllertest.Synced), handlers: make(chan struct{})}
}

func (i *handledInformer) watched() <-chan struct{} { return i.handlers }

func (i *handledInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, o toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	reg, err := i.FakeInformer.AddEventHandlerWithOptions(h, o)
	i.once.Do(func() { close(i.handlers) })
	return reg, err
}

func (i *handledInformer) add(obj client.Object) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.FakeInformer.Add(obj)
}

// recordingWebhookServer is a webhook.Server that serves nothing and records the paths registered on it.
type recordingWebhookServer struct {
	mu         sync.Mutex
	registered []string
	mux        http.ServeMux
}

var _ webhook.Server = &recordingWebhookServer{}

func (s *recordingWebhookServer) NeedLeaderElection() bool { return false }

func (s *recordingWebhookServer) Register(path string, _ http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.registered = append(s.registered, path)
}

func (s *recordingWebhookServer) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.registered)
}

func (s *recordingWebhookServer) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (s *recordingWebhookServer) StartedChecker() healthz.Checker { return healthz.Ping }

func (s *recordingWebhookServer) WebhookMux() *http.ServeMux { return &s.mux }
