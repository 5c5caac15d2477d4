package controllers

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/cronjob-operator/cronjob-operator/controllers/cronjob"
	"github.com/cronjob-operator/cronjob-operator/controllers/cronjobrun"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/index"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/statuswrite"
	"github.com/cronjob-operator/cronjob-operator/controllers/metrics"
	"github.com/cronjob-operator/cronjob-operator/controllers/version"
	"github.com/cronjob-operator/cronjob-operator/controllers/webhooks"
)

// ControllerName is the name of the CronJob controller, used in logs, metrics and as the events'
// reporting controller.
const ControllerName = cronjob.ControllerName

// Options configures the CronJob controller that Setup wires into a manager. The zero value is the
// production controller: real clock, one reconcile at a time, no webhooks.
type Options struct {
	// Clock is read once per reconcile. Nil means the real clock. When it also implements clock.WithTicker
	// (as k8s.io/utils/clock/testing's FakeClock does) and is not the real clock, the controller's workqueue
	// uses it too, so RequeueAfter delays and error backoff elapse only when the clock is moved.
	Clock clock.PassiveClock
	// MaxConcurrentReconciles is how many CronJobs are reconciled in parallel; 0 means 1. The CronJobRun
	// controller reconciles as many CronJobs' runs in parallel.
	MaxConcurrentReconciles int
	// MaxWaitingRunsPerCronJob is how many Pending CronJobRuns (waiting for the concurrency policy) one
	// CronJob may have; a new run beyond it is Rejected (TooManyWaitingRuns). 0 means
	// cronjobrun.DefaultMaxWaitingRuns (100); negative means no limit.
	MaxWaitingRunsPerCronJob int
	// Webhooks, when set, serves the CronJob and CronJobRun admission webhooks (package webhooks) on the manager's webhook
	// server.
	Webhooks *WebhookOptions
	// OnReconcile, when set, is called with the Outcome of every reconcile, after it is done and before its
	// result goes back to the workqueue. It must be safe for concurrent use (see MaxConcurrentReconciles)
	// and return quickly. Tests use it to see what a reconcile did without inferring it from the requeue.
	OnReconcile func(types.NamespacedName, cronjob.Outcome)
	// StatusThroughClient, when true, writes the CronJobs' status through the manager's client. By default
	// Setup writes it with a statuswrite.Writer made from the manager's rest.Config, which does not decode
	// the server's answer (README "Benchmarks"); a manager whose client is not the API server's (a fake
	// client in tests) needs its client used.
	StatusThroughClient bool
}

// WebhookOptions configures the admission webhooks that Setup serves.
type WebhookOptions struct {
	// CertsReady, when not nil, delays the registration of the webhooks until it is closed: the manager
	// starts its webhook server only once a webhook is registered, and the server fails to start without
	// its serving certificate. Nil registers them at once.
	CertsReady <-chan struct{}
}

// Controller is the CronJob controller wired into a manager by Setup.
type Controller struct {
	mgr      manager.Manager
	recorder *eventRecorder
	// registered is closed once the webhooks are registered.
	registered chan struct{}
}

// WebhooksRegistered is closed once the admission webhooks are registered on the manager's webhook server
// (after Options.Webhooks.CertsReady); it is never closed without Options.Webhooks. A replica should not
// pass its readiness check before: the webhook Service would send it requests it answers with 404.
func (c *Controller) WebhooksRegistered() <-chan struct{} { return c.registered }

// Setup wires the CronJob controller into mgr, which must have been made with CacheOptions and a scheme that
// holds the built-in types and the CronJob API. It is the one place the controller is assembled, for
// main.go and the test framework alike (hack/localcluster and bench run the manager binary):
//   - the field indexes (package index);
//   - the event recorder (eventRecorder), which Controller.Start starts before the manager and stops
//     after it;
//   - the reconciler, with the manager's cached client for reads and writes and its API reader, which reads
//     the API server directly, for the reads that must not come from the cache (is a Job really gone; who
//     owns a Job that already exists; when was the schedule edited);
//   - the CronJob controller (package cronjob): it watches CronJobs (spec changes only) and the Jobs they
//     control;
//   - the CronJobRun controller (manual runs, package cronjobrun), on the same clock, recorder and metrics;
//   - the metrics (package metrics): the counters and the skew histogram of metrics.DefaultMetrics on
//     controller-runtime's registry (/metrics), and the per-CronJob state on the metrics server's
//     metrics.StatePath, served while this replica is the leader;
//   - the admission webhooks, when opts.Webhooks is set.
//
// Controller name validation is skipped: a process runs one CronJob controller per manager, and test
// processes run several managers, one after another or side by side, that share controller-runtime's
// metrics registry.
func Setup(mgr manager.Manager, opts Options) (*Controller, error) {
	recorder, err := newEventRecorder(mgr.GetConfig(), mgr.GetHTTPClient(), mgr.GetScheme())
	if err != nil {
		return nil, err
	}
	r := &cronjob.Reconciler{
		Client:      mgr.GetClient(),
		APIReader:   mgr.GetAPIReader(),
		Scheme:      mgr.GetScheme(),
		Clock:       opts.Clock,
		Recorder:    recorder,
		OnReconcile: opts.OnReconcile,
		Metrics:     metrics.DefaultMetrics(),
	}
	if !opts.StatusThroughClient {
		r.StatusWriter = statuswrite.New(mgr.GetConfig(), mgr.GetHTTPClient(), mgr.GetScheme(), mgr.GetRESTMapper(), version.Name)
	}
	if err := index.Setup(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return nil, err
	}
	if err := r.SetupWithManager(mgr, opts.MaxConcurrentReconciles); err != nil {
		return nil, err
	}
	runs := &cronjobrun.Reconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Clock:     opts.Clock,
		Recorder:  recorder,
		Metrics:   metrics.DefaultMetrics(),

		MaxWaitingRuns: opts.MaxWaitingRunsPerCronJob,
	}
	if err := runs.SetupWithManager(mgr, opts.MaxConcurrentReconciles); err != nil {
		return nil, err
	}
	// The per-CronJob state metrics, from the cache, on their own path, while this replica leads.
	state := metrics.NewState(metrics.CachedCronJobs(mgr.GetCache()), mgr.GetLogger().WithName("state-metrics")).
		CountActiveWith(metrics.CachedActiveJobs(mgr.GetCache()))
	if err := mgr.Add(state); err != nil {
		return nil, fmt.Errorf("adding the state metrics: %w", err)
	}
	if err := mgr.AddMetricsServerExtraHandler(metrics.StatePath, state); err != nil {
		return nil, fmt.Errorf("serving the state metrics: %w", err)
	}
	c := &Controller{mgr: mgr, recorder: recorder, registered: make(chan struct{})}
	if w := opts.Webhooks; w != nil {
		if err := setupWebhooks(mgr, w, c.registered); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// setupWebhooks registers the admission webhooks at once, or from a runnable that waits for CertsReady,
// and closes registered when they are.
func setupWebhooks(mgr manager.Manager, w *WebhookOptions, registered chan<- struct{}) error {
	register := func() error {
		if err := webhooks.SetupCronJobWebhookWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the webhooks: %w", err)
		}
		if err := webhooks.SetupCronJobRunWebhookWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the webhooks: %w", err)
		}
		if err := webhooks.SetupCronCalendarWebhookWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the webhooks: %w", err)
		}
		close(registered)
		return nil
	}
	if w.CertsReady == nil {
		return register()
	}
	// Every replica serves the webhooks, leader or not: the registration must not wait for the Lease, or a
	// follower would pass its readiness check and answer admission requests with 404. An error stops the
	// manager with that error.
	return mgr.Add(webhookRegistration(func(ctx context.Context) error {
		select {
		case <-w.CertsReady:
			return register()
		case <-ctx.Done():
			return nil
		}
	}))
}

// webhookRegistration is a runnable that every replica runs (manager.RunnableFunc alone waits for the
// leader election).
type webhookRegistration func(context.Context) error

func (f webhookRegistration) Start(ctx context.Context) error { return f(ctx) }

// NeedLeaderElection implements manager.LeaderElectionRunnable.
func (webhookRegistration) NeedLeaderElection() bool { return false }

// Start starts the event recorder, runs the manager until ctx is done or the manager fails, then stops the
// recorder, so that the Events of the last reconciles are handed over (best effort, see eventRecorder).
// It returns the manager's error; a cancelled ctx is not one.
func (c *Controller) Start(ctx context.Context) error {
	if err := c.recorder.Start(c.mgr.GetLogger().WithName("events")); err != nil {
		return err
	}
	err := c.mgr.Start(ctx)
	c.recorder.Stop()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}
