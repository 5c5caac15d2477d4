package plugin

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// fakeCluster is an API server of the CronJob API for the tests, its objects in client-go's object
// tracker. The commands reach it through the plugin's own Client (NewClient), whose HTTP requests it
// serves in process: the tests cover the requests the plugin sends (GET, POST with generateName, merge
// PATCH), not only what the commands do with the answers.
type fakeCluster struct {
	t       *testing.T
	tracker clienttesting.ObjectTracker
	codecs  serializer.CodecFactory
	client  Client
	// onGetRun, when set, changes each CronJobRun the server answers a GET with (not the stored one).
	onGetRun func(*cronjobv1.CronJobRun)
}

// newCluster returns a fakeCluster holding objs.
func newCluster(t *testing.T, objs ...runtime.Object) *fakeCluster {
	t.Helper()
	scheme := Scheme()
	f := &fakeCluster{t: t, codecs: serializer.NewCodecFactory(scheme)}
	f.tracker = clienttesting.NewObjectTracker(scheme, f.codecs.UniversalDecoder())
	for _, obj := range objs {
		if err := f.tracker.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	c, err := NewClient(&rest.Config{Host: "https://cluster.test", Transport: f})
	if err != nil {
		t.Fatal(err)
	}
	f.client = c
	return f
}

// RoundTrip answers the request as the API server would, in the calling goroutine.
func (f *fakeCluster) RoundTrip(r *http.Request) (*http.Response, error) {
	w := httptest.NewRecorder()
	w.Header().Set("Content-Type", "application/json")
	obj, err := f.serve(r)
	if err != nil {
		var status apierrors.APIStatus
		if !errors.As(err, &status) {
			status = apierrors.NewInternalError(err)
		}
		s := status.Status()
		obj = &s
		w.WriteHeader(int(s.Code))
	}
	if err := f.codecs.LegacyCodec(cronjobv1.GroupVersion).Encode(obj, w.Body); err != nil {
		return nil, err
	}
	return w.Result(), nil
}

// serve does what the request to /apis/batch.cronjob-operator.dev/v1/namespaces/NS/RESOURCE[/NAME] asks
// of the tracker and returns the object to answer with.
func (f *fakeCluster) serve(r *http.Request) (runtime.Object, error) {
	path, ok := strings.CutPrefix(r.URL.Path, "/apis/"+cronjobv1.GroupVersion.String()+"/namespaces/")
	ns, tail, _ := strings.Cut(path, "/")
	resource, name, _ := strings.Cut(tail, "/")
	if !ok || resource == "" {
		f.t.Errorf("%s %s: not a path of the CronJob API", r.Method, r.URL.Path)
		return nil, apierrors.NewNotFound(cronjobv1.GroupVersion.WithResource(resource).GroupResource(), name)
	}
	gvr := cronjobv1.GroupVersion.WithResource(resource)
	var action clienttesting.Action
	switch r.Method {
	case http.MethodGet:
		action = clienttesting.NewGetAction(gvr, ns, name)
	case http.MethodPatch:
		patch, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		action = clienttesting.NewPatchAction(gvr, ns, name, types.PatchType(r.Header.Get("Content-Type")), patch)
	case http.MethodPost:
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		obj, _, err := f.codecs.UniversalDeserializer().Decode(body, nil, nil)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if m, ok := obj.(metav1.Object); ok && m.GetName() == "" {
			m.SetName(m.GetGenerateName() + utilrand.String(5))
		}
		action = clienttesting.NewCreateAction(gvr, ns, obj)
	default:
		f.t.Errorf("%s %s: the plugin sends no such request", r.Method, r.URL.Path)
		return nil, apierrors.NewMethodNotSupported(gvr.GroupResource(), r.Method)
	}
	_, obj, err := clienttesting.ObjectReaction(f.tracker)(action)
	if run, ok := obj.(*cronjobv1.CronJobRun); ok && err == nil && r.Method == http.MethodGet && f.onGetRun != nil {
		f.onGetRun(run)
	}
	return obj, err
}

// runs returns the CronJobRuns of namespace ns.
func (f *fakeCluster) runs(ns string) []cronjobv1.CronJobRun {
	f.t.Helper()
	list, err := f.tracker.List(cronjobv1.GroupVersion.WithResource("cronjobruns"), cronjobv1.GroupVersion.WithKind("CronJobRun"), ns)
	if err != nil {
		f.t.Fatal(err)
	}
	return list.(*cronjobv1.CronJobRunList).Items
}
