package controllers

import (
	"net/http"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// Stop must be safe without Start (a manager that failed before it started) and when called twice (main.go
// and the test framework each stop a recorder once, but a caller may defer a second Stop).
func TestEventRecorderStopTwice(t *testing.T) {
	r, err := NewEventRecorder(&rest.Config{Host: "http://127.0.0.1:1"}, http.DefaultClient, runtime.NewScheme(), ControllerName)
	if err != nil {
		t.Fatalf("NewEventRecorder: %v", err)
	}
	r.Stop()
	r.Stop()

	r, err = NewEventRecorder(&rest.Config{Host: "http://127.0.0.1:1"}, http.DefaultClient, runtime.NewScheme(), ControllerName)
	if err != nil {
		t.Fatalf("NewEventRecorder: %v", err)
	}
	if err := r.Start(logr.Discard()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	r.Stop()
	r.Stop()
}
