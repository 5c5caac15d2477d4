package statuswrite_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/statuswrite"
)

// request is what the fake API server saw of one request.
type request struct {
	Method, Path, FieldManager, ContentType string
	APIVersion, Kind, ResourceVersion       string
	LastScheduleTime                        string
}

// serve starts an API server stand-in that records each request and answers with status and body.
func serve(t *testing.T, status int, body string) (*rest.Config, *[]request) {
	t.Helper()
	var seen []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var sent cronjobv1.CronJob
		if err := json.Unmarshal(raw, &sent); err != nil {
			t.Errorf("the body is not a CronJob in JSON: %v: %s", err, raw)
		}
		req := request{
			Method: r.Method, Path: r.URL.Path, FieldManager: r.URL.Query().Get("fieldManager"),
			ContentType: r.Header.Get("Content-Type"),
			APIVersion:  sent.APIVersion, Kind: sent.Kind, ResourceVersion: sent.ResourceVersion,
		}
		if sent.Status.LastScheduleTime != nil {
			req.LastScheduleTime = sent.Status.LastScheduleTime.UTC().Format(time.RFC3339)
		}
		seen = append(seen, req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL}, &seen
}

func writer(t *testing.T, cfg *rest.Config, fieldOwner string) *statuswrite.Writer {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := cronjobv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(cronjobv1.GroupVersion.WithKind("CronJob"), meta.RESTScopeNamespace)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return statuswrite.New(cfg, hc, scheme, mapper, fieldOwner)
}

func cronJob() *cronjobv1.CronJob {
	return &cronjobv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "nightly", ResourceVersion: "41"},
		Status:     cronjobv1.CronJobStatus{LastScheduleTime: &metav1.Time{Time: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)}},
	}
}

// The request is the one controller-runtime's Status().Update sends: PUT on the status subresource, the
// object in JSON with its kind and resourceVersion, the field manager; and the answer is not read back.
func TestUpdateSendsTheStatusAndKeepsTheObject(t *testing.T) {
	answer := `{"apiVersion":"batch.cronjob-operator.dev/v1","kind":"CronJob","metadata":{"namespace":"team-a","name":"nightly","resourceVersion":"42","managedFields":[{"manager":"cronjob-operator"}]},"status":{}}`
	cfg, seen := serve(t, http.StatusOK, answer)
	cj := cronJob()
	sent := cj.DeepCopy()

	if err := writer(t, cfg, "cronjob-operator").Update(context.Background(), cj); err != nil {
		t.Fatalf("Update: %v", err)
	}

	want := []request{{
		Method: http.MethodPut, Path: "/apis/batch.cronjob-operator.dev/v1/namespaces/team-a/cronjobs/nightly/status",
		FieldManager: "cronjob-operator", ContentType: "application/json",
		APIVersion: "batch.cronjob-operator.dev/v1", Kind: "CronJob", ResourceVersion: "41",
		LastScheduleTime: "2026-03-02T10:00:00Z",
	}}
	if diff := cmp.Diff(want, *seen); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	sent.SetGroupVersionKind(cj.GroupVersionKind()) // the encoder may set the kind; nothing else may change
	if diff := cmp.Diff(sent, cj); diff != "" {
		t.Errorf("the object changed (the answer was read into it) (-sent +now):\n%s", diff)
	}
}

func TestUpdateWithoutFieldOwnerSendsNone(t *testing.T) {
	cfg, seen := serve(t, http.StatusOK, `{}`)
	if err := writer(t, cfg, "").Update(context.Background(), cronJob()); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if len(*seen) != 1 || (*seen)[0].FieldManager != "" {
		t.Errorf("requests = %+v, want one without fieldManager", *seen)
	}
}

// A conflict is an API error the caller can recognise, as from controller-runtime's client.
func TestUpdateReturnsTheServersError(t *testing.T) {
	conflict := `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Conflict","code":409,"message":"Operation cannot be fulfilled on cronjobs.batch.cronjob-operator.dev \"nightly\": the object has been modified"}`
	cfg, _ := serve(t, http.StatusConflict, conflict)
	err := writer(t, cfg, "cronjob-operator").Update(context.Background(), cronJob())
	if !apierrors.IsConflict(err) {
		t.Errorf("Update = %v, want a conflict", err)
	}
}

func TestUpdateRefusesOptionsAndUnknownKinds(t *testing.T) {
	cfg, seen := serve(t, http.StatusOK, `{}`)
	w := writer(t, cfg, "cronjob-operator")
	if err := w.Update(context.Background(), cronJob(), &client.SubResourceUpdateOptions{}); err == nil {
		t.Error("Update with options: no error")
	}
	if err := w.Update(context.Background(), &cronjobv1.CronCalendar{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "y"}}); err == nil {
		t.Error("Update of a kind the mapper does not know: no error")
	}
	if len(*seen) != 0 {
		t.Errorf("requests sent: %+v, want none", *seen)
	}
}
