package cronjobrun

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// TestSetupWithManagerReportsABuilderError: a manager whose scheme lacks the CronJobRun API cannot build
// the controller, and SetupWithManager says so instead of starting without it.
func TestSetupWithManagerReportsABuilderError(t *testing.T) {
	mgr, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
		Scheme: runtime.NewScheme(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	err = (&Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader()}).SetupWithManager(mgr, 1)
	if err == nil || !strings.Contains(err.Error(), "setting up the cronjobrun controller") {
		t.Errorf("SetupWithManager = %v, want the builder's error, wrapped", err)
	}
}
