package unittest

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/index"
)

// Scheme holds the client-go types and the CronJob API; it is built once: registering every client-go type is the slowest part of building a fake client.
var Scheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(cronjobv1.AddToScheme(s))
	utilruntime.Must(cronjobv2.AddToScheme(s))
	return s
})

// Codecs decodes for the fake client's object tracker, built once.
var Codecs = sync.OnceValue(func() serializer.CodecFactory { return serializer.NewCodecFactory(Scheme()) })

// RESTMapper maps Job, CronJob and CronJobRun; it is built once too: without it the fake client builds a mapper of every scheme type.
var RESTMapper = sync.OnceValue(func() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(batchv1.SchemeGroupVersion.WithKind("Job"), meta.RESTScopeNamespace)
	m.Add(cronjobv1.GroupVersion.WithKind("CronJob"), meta.RESTScopeNamespace)
	m.Add(cronjobv1.GroupVersion.WithKind("CronJobRun"), meta.RESTScopeNamespace)
	return m
})

// FakeClient is the fake API server (and cache) of the unit tables: the client-go types and the CronJob
// API, the status subresources of CronJob and CronJobRun, the field indexes of the manager (package
// index), holding objs, with funcs intercepting its calls. Created objects get the UID "uid-<name>", as
// the API server would give one, and, when now is not nil, now() as their creation time.
//
// It has a plain object tracker: the default, field-managed one builds a client-go scheme per client and
// tracks managedFields on every write, which makes a case several times slower under -race; the
// controller does not use server-side apply.
func FakeClient(now func() time.Time, funcs interceptor.Funcs, objs ...client.Object) client.WithWatch {
	create := funcs.Create
	funcs.Create = func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		obj.SetUID(types.UID("uid-" + obj.GetName()))
		if now != nil {
			obj.SetCreationTimestamp(metav1.NewTime(now()))
		}
		if create != nil {
			return create(ctx, c, obj, opts...)
		}
		return c.Create(ctx, obj, opts...)
	}
	return fake.NewClientBuilder().WithScheme(Scheme()).WithRESTMapper(RESTMapper()).
		WithObjectTracker(clienttesting.NewObjectTracker(Scheme(), Codecs().UniversalDecoder())).WithObjects(objs...).
		WithStatusSubresource(&cronjobv1.CronJob{}, &cronjobv1.CronJobRun{}).
		WithIndex(&batchv1.Job{}, index.JobOwnerKey, index.JobOwner).
		WithIndex(&cronjobv1.CronJobRun{}, index.RunCronJobKey, index.RunCronJob).
		WithInterceptorFuncs(funcs).Build()
}

// JobNames lists the Jobs in Namespace, sorted.
func JobNames(t *testing.T, c client.Reader) []string {
	t.Helper()
	var list batchv1.JobList
	if err := c.List(context.Background(), &list, client.InNamespace(Namespace)); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(list.Items))
	for _, j := range list.Items {
		names = append(names, j.Name)
	}
	sort.Strings(names)
	return names
}

// EventReasons drains the recorder into "Type Reason" strings.
func EventReasons(rec *events.FakeRecorder) []string {
	got := []string{}
	for {
		select {
		case e := <-rec.Events:
			fields := strings.Fields(e)
			got = append(got, fields[0]+" "+fields[1])
		default:
			return got
		}
	}
}
