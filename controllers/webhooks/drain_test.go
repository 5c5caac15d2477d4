package webhooks

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// fakeServer is a webhook.Server that serves its handlers from a mux and runs until its context is cancelled.
type fakeServer struct {
	webhook.Server
	mux     *http.ServeMux
	started chan struct{}
	stopped chan struct{}
	// startFn, when set, replaces the run until cancelled; fail is for it to wait on.
	startFn func(context.Context) error
	fail    chan struct{}
}

func newFakeServer() *fakeServer {
	return &fakeServer{mux: http.NewServeMux(), started: make(chan struct{}), stopped: make(chan struct{}), fail: make(chan struct{})}
}

func (f *fakeServer) Register(path string, h http.Handler) { f.mux.Handle(path, h) }

func (f *fakeServer) Start(ctx context.Context) error {
	close(f.started)
	if f.startFn != nil {
		return f.startFn(ctx)
	}
	<-ctx.Done()
	close(f.stopped)
	return nil
}

// connectionHeader serves one request to path on f and returns the response's Connection header.
func connectionHeader(f *fakeServer, path string) string {
	rec := httptest.NewRecorder()
	f.mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader("{}")))
	return rec.Header().Get("Connection")
}

var drainT0 = time.Date(2026, 12, 4, 21, 0, 0, 0, time.UTC)

func TestDrainingServerKeepsServingForTheDrainAfterSIGTERM(t *testing.T) {
	g := NewWithT(t)
	inner := newFakeServer()
	clk := clocktesting.NewFakeClock(drainT0)
	stopping := make(chan struct{})
	s := NewDrainingServer(inner, stopping, 2*time.Second, clk)
	s.Register("/convert", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	<-inner.started
	g.Expect(connectionHeader(inner, "/convert")).To(BeEmpty(), "keep-alive while the manager runs")

	// SIGTERM: the signal context is cancelled; the manager has not yet stopped the webhook group.
	close(stopping)
	g.Eventually(s.Draining).Should(BeTrue())
	g.Expect(clk.HasWaiters()).To(BeTrue(), "the drain's timer is set before the drain starts")
	g.Expect(connectionHeader(inner, "/convert")).To(Equal("close"), "each response closes its connection while draining")
	g.Consistently(inner.stopped, "50ms").ShouldNot(BeClosed(), "the server serves until the manager stops it")

	// The manager stops the webhook group 1 s into the drain: the server still serves for the last second.
	clk.Step(time.Second)
	cancel()
	g.Consistently(inner.stopped, "50ms").ShouldNot(BeClosed(), "the server stopped before the drain was over")
	g.Expect(connectionHeader(inner, "/convert")).To(Equal("close"))

	clk.Step(time.Second)
	g.Eventually(inner.stopped).Should(BeClosed(), "the server did not stop at the end of the drain")
	g.Eventually(done).Should(Receive(BeNil()))
}

func TestDrainingServerDrainsWhenStoppedWithoutSignal(t *testing.T) {
	g := NewWithT(t)
	inner := newFakeServer()
	clk := clocktesting.NewFakeClock(drainT0)
	s := NewDrainingServer(inner, nil, 2*time.Second, clk)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	<-inner.started

	cancel()
	g.Eventually(s.Draining).Should(BeTrue())
	g.Eventually(clk.HasWaiters).Should(BeTrue(), "the drain's timer")
	g.Consistently(inner.stopped, "50ms").ShouldNot(BeClosed())
	clk.Step(2 * time.Second)
	g.Eventually(inner.stopped).Should(BeClosed())
	g.Eventually(done).Should(Receive(BeNil()))
}

func TestDrainingServerWithoutDrainStopsAtOnce(t *testing.T) {
	g := NewWithT(t)
	inner := newFakeServer()
	s := NewDrainingServer(inner, nil, 0, clocktesting.NewFakeClock(drainT0))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	<-inner.started
	cancel()
	g.Eventually(inner.stopped).Should(BeClosed(), "a drain of 0 must not wait for the clock")
	g.Eventually(done).Should(Receive(BeNil()))
}

func TestDrainingServerReturnsTheServersErrorDuringTheDrain(t *testing.T) {
	g := NewWithT(t)
	inner := newFakeServer()
	failed := errors.New("the webhook server failed")
	inner.startFn = func(ctx context.Context) error {
		select {
		case <-inner.fail:
			return failed
		case <-ctx.Done():
			return nil
		}
	}
	stopping := make(chan struct{})
	s := NewDrainingServer(inner, stopping, time.Minute, clocktesting.NewFakeClock(drainT0))
	done := make(chan error, 1)
	go func() { done <- s.Start(context.Background()) }()
	<-inner.started
	close(stopping)
	g.Eventually(s.Draining).Should(BeTrue())
	close(inner.fail)
	g.Eventually(done).Should(Receive(MatchError(failed)), "at once, not at the drain's end")
}

func TestDrainingServerReturnsTheServersError(t *testing.T) {
	g := NewWithT(t)
	inner := newFakeServer()
	bind := errors.New("listen tcp :9443: bind: address already in use")
	inner.startFn = func(context.Context) error { return bind }
	s := NewDrainingServer(inner, nil, time.Minute, clocktesting.NewFakeClock(drainT0))
	g.Expect(s.Start(context.Background())).To(MatchError(bind), "at once, without a stop or a drain")
}

// TestDrainingServerClosesKeepAliveConnections runs a real HTTP/1.1 server: a client that reuses its
// connection gets it closed by the server after a response sent while draining (resp.Close), so it sends
// its next request on a new connection, which a rollout routes to another replica, instead of on one the
// server is about to close.
func TestDrainingServerClosesKeepAliveConnections(t *testing.T) {
	g := NewWithT(t)
	inner := newFakeServer()
	stopping := make(chan struct{})
	clk := clocktesting.NewFakeClock(drainT0)
	s := NewDrainingServer(inner, stopping, time.Minute, clk)
	s.Register("/convert", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "{}") }))
	ts := httptest.NewServer(inner.mux)
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	<-inner.started

	post := func() *http.Response {
		resp, err := ts.Client().Post(ts.URL+"/convert", "application/json", strings.NewReader("{}"))
		g.Expect(err).NotTo(HaveOccurred())
		_, _ = io.Copy(io.Discard, resp.Body)
		g.Expect(resp.Body.Close()).To(Succeed())
		return resp
	}
	g.Expect(post().Close).To(BeFalse(), "the connection is kept alive while the manager runs")
	close(stopping)
	g.Eventually(s.Draining).Should(BeTrue())
	g.Expect(post().Close).To(BeTrue(), "the server closes the connection after a response sent while draining")
	cancel()
	clk.Step(time.Minute)
	g.Eventually(done).Should(Receive(BeNil()))
}
