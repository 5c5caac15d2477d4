package controllers

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// Stop must be safe without Start (a manager that failed before it started) and when called twice (main.go
// and the test framework each stop a recorder once, but a caller may defer a second Stop).
func TestEventRecorderStopTwice(t *testing.T) {
	r, err := newEventRecorder(&rest.Config{Host: "http://127.0.0.1:1"}, http.DefaultClient, runtime.NewScheme())
	if err != nil {
		t.Fatalf("newEventRecorder: %v", err)
	}
	r.Stop()
	r.Stop()

	r, err = newEventRecorder(&rest.Config{Host: "http://127.0.0.1:1"}, http.DefaultClient, runtime.NewScheme())
	if err != nil {
		t.Fatalf("newEventRecorder: %v", err)
	}
	if err := r.Start(logr.Discard()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	r.Stop()
	r.Stop()
}

// Start logs every recorded Event at V(1) of the logger it is given, so a manager run with
// --zap-log-level=debug shows the Events it sends (here the API server is unreachable: the Event is
// logged all the same).
func TestEventRecorderLogsEventsAtV1(t *testing.T) {
	logged := make(chan string, 100)
	logger := funcr.New(func(_, args string) {
		select {
		case logged <- args:
		default: // never block the broadcaster
		}
	}, funcr.Options{Verbosity: 1})
	r, err := newEventRecorder(&rest.Config{Host: "http://127.0.0.1:1"}, http.DefaultClient, scheme.Scheme)
	if err != nil {
		t.Fatalf("newEventRecorder: %v", err)
	}
	if err := r.Start(logger); err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer r.Stop()

	job := builders.MakeJob("hello-29933070", "default").UID("job-uid").Obj()
	r.Eventf(job, nil, corev1.EventTypeNormal, cronjobv1.ReasonSuccessfulCreate, "Create", "Created job %s", job.Name)
	// The broadcaster logs on a goroutine of its own: wait for the line, with a deadline in case it never comes.
	ctx, cancel := context.WithTimeout(context.Background(), wait.ForeverTestTimeout)
	defer cancel()
	for {
		select {
		case line := <-logged:
			if strings.Contains(line, `"Event occurred"`) && strings.Contains(line, `"reason"="`+cronjobv1.ReasonSuccessfulCreate+`"`) &&
				strings.Contains(line, `"level"=1`) {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no V(1) log line of the %s Event within %v", cronjobv1.ReasonSuccessfulCreate, wait.ForeverTestTimeout)
		}
	}
}
