package webhooks

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// DefaultDrain is how long a stopping manager's webhook server keeps serving, with keep-alive off, before
// it closes: long enough for the API server's pooled connections to this replica to carry a request each
// and be closed after its response, short enough to add little to a leader handover (the lease is released
// after the webhook server stops).
const DefaultDrain = 2 * time.Second

// DrainingServer is a webhook.Server that, once the manager is stopping, answers every request with
// "Connection: close" for a drain period before the server it wraps shuts down.
//
// Why: the webhook server speaks HTTP/1.1 (tlsOptions), and the API server keeps idle keep-alive
// connections to each replica. When a server shuts down it closes its idle connections, and a request the
// API server writes on one of them at that moment fails with EOF. The API server retries neither a
// conversion webhook call (apiextensions-apiserver's webhook converter) nor an admission call, so a
// client's create or get fails during a rollout. A response with "Connection: close" instead tells the API
// server to drop the connection after it, so the connections it keeps using during the drain move to other
// replicas. This makes the race unlikely, not impossible: a connection to this replica that stays idle for
// the whole drain is still closed by the shutdown. The e2e upgrade spec's rollout under load
// (e2e/upgrade_test.go) saw the EOF without it.
type DrainingServer struct {
	webhook.Server
	stopping <-chan struct{}
	drain    time.Duration
	clock    clock.Clock
	draining atomic.Bool
}

// NewDrainingServer wraps inner. The drain starts when stopping is closed (the manager's signal context,
// cancelled at SIGTERM; the webhook group's own context is cancelled only after the controllers and caches
// have stopped) or when Start's context is cancelled, whichever comes first. inner is stopped at the later
// of the drain's end (drain after its start, measured on clk) and the cancellation of Start's context.
// With drain 0, inner stops when Start's context is cancelled, as it would alone; its responses still
// carry "Connection: close" from the start of the drain. The Pod's terminationGracePeriodSeconds must
// leave room for the preStop, the drain and the stop after it.
func NewDrainingServer(inner webhook.Server, stopping <-chan struct{}, drain time.Duration, clk clock.Clock) *DrainingServer {
	return &DrainingServer{Server: inner, stopping: stopping, drain: drain, clock: clk}
}

// Register registers hook at path on the wrapped server, answering with "Connection: close" while the
// server drains.
func (s *DrainingServer) Register(path string, hook http.Handler) {
	s.Server.Register(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		hook.ServeHTTP(w, r)
	}))
}

// Draining reports whether the drain has started.
func (s *DrainingServer) Draining() bool { return s.draining.Load() }

// Start runs the wrapped server until ctx is cancelled and the drain is over (see NewDrainingServer), and
// returns its error. An error of the wrapped server before that is returned at once.
func (s *DrainingServer) Start(ctx context.Context) error {
	innerCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- s.Server.Start(innerCtx) }()

	select {
	case err := <-errc:
		return err
	case <-s.stopping:
	case <-ctx.Done():
	}
	var drained <-chan time.Time
	if s.drain > 0 {
		drained = s.clock.After(s.drain)
	}
	s.draining.Store(true)
	for waitCtx := ctx.Done(); waitCtx != nil || drained != nil; {
		select {
		case err := <-errc:
			return err
		case <-waitCtx:
			waitCtx = nil
		case <-drained:
			drained = nil
		}
	}
	stop()
	return <-errc
}
