package controllers

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
)

// eventRecorder records events.k8s.io/v1 Events, as the recorder of controller-runtime's
// manager.GetEventRecorder does, but sends them to the API server as protobuf instead of JSON.
//
// Every scheduled run emits an event, so in a burst the API server creates as many Events as Jobs, and
// protobuf costs it less than JSON (the built-in CronJob controller sends its Events as protobuf too; the
// figures are in README "Benchmarks"). controller-runtime offers no way to choose the encoding of its Events
// client: it is made from the manager's rest.Config, and protobuf set there would break the requests for
// our CronJobs (custom resources are JSON only).
//
// Controller.Start starts it before the manager and stops it once the manager has stopped. Events are
// best effort, as everywhere in Kubernetes and as with controller-runtime's recorder: an Event the API
// server refuses is logged and dropped after the broadcaster's own retries, and Events still being sent
// when Stop is called may be lost.
type eventRecorder struct {
	events.EventRecorder
	broadcaster events.EventBroadcaster
	cancel      context.CancelFunc
	stopLogging func()
	stopOnce    sync.Once
}

// newEventRecorder returns an eventRecorder whose Events name ControllerName as their reporting
// controller and ControllerName-<host name> as the reporting instance (as controller-runtime's). It
// uses cfg's host and credentials with httpClient (the manager's: GetConfig and GetHTTPClient). It returns
// an error only when cfg cannot make a client.
func newEventRecorder(cfg *rest.Config, httpClient *http.Client, scheme *runtime.Scheme) (*eventRecorder, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	client, err := eventsv1client.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("making the events client: %w", err)
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client})
	return &eventRecorder{
		EventRecorder: broadcaster.NewRecorder(scheme, ControllerName),
		broadcaster:   broadcaster,
		stopLogging:   func() {},
	}, nil
}

// Start starts sending the recorded Events, and logging them at V(1) with logger. Events recorded before
// Start are dropped. It returns an error only if the broadcaster cannot start; then nothing is sent.
func (r *eventRecorder) Start(logger logr.Logger) error {
	ctx, cancel := context.WithCancel(logr.NewContext(context.Background(), logger))
	if err := r.broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		cancel()
		return fmt.Errorf("starting the event broadcaster: %w", err)
	}
	r.cancel = cancel
	if stop, err := r.broadcaster.StartLogging(logger.V(1)); err == nil {
		r.stopLogging = stop
	}
	return nil
}

// Stop hands the Events queued so far to the sender, then stops it without waiting for the requests in
// flight (the order of controller-runtime's own recorder). Events recorded after Stop are dropped. Stop
// without Start, or a second Stop, does nothing more.
func (r *eventRecorder) Stop() {
	r.stopOnce.Do(func() {
		r.broadcaster.Shutdown()
		r.stopLogging()
		if r.cancel != nil {
			r.cancel()
		}
	})
}
