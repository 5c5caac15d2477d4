package cronjob

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// fixture is a reconciler on a fake client, a fake clock and a fake event recorder.
type fixture struct {
	client   client.Client
	recorder *events.FakeRecorder
	r        *Reconciler
}

// newFixture builds the fixture. Created objects get UID "uid-<name>", as the API server would give one.
// The fake client gets a plain object tracker: the default, field-managed one builds a client-go scheme per
// client and tracks managedFields on every write, which makes a case several times slower under -race; the
// controller does not use server-side apply.
func newFixture(t *testing.T, now time.Time, funcs interceptor.Funcs, objs ...client.Object) *fixture {
	t.Helper()
	c := FakeClient(nil, funcs, objs...)
	rec := events.NewFakeRecorder(100)
	return &fixture{client: c, recorder: rec, r: &Reconciler{
		Client: c, APIReader: c, Scheme: c.Scheme(), Clock: clocktesting.NewFakePassiveClock(now), Recorder: rec,
	}}
}

func (f *fixture) reconcile(t *testing.T) (ctrl.Result, error) {
	t.Helper()
	return f.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: Namespace, Name: "hourly"}})
}

// jobNames lists the Jobs in the namespace, sorted.
func (f *fixture) jobNames(t *testing.T) []string {
	t.Helper()
	return JobNames(t, f.client)
}

// eventReasons drains the recorder into "Type Reason" strings.
func (f *fixture) eventReasons() []string { return EventReasons(f.recorder) }

func (f *fixture) cronJob(t *testing.T) *cronjobv1.CronJob {
	t.Helper()
	var cj cronjobv1.CronJob
	if err := f.client.Get(context.Background(), types.NamespacedName{Namespace: Namespace, Name: "hourly"}, &cj); err != nil {
		t.Fatal(err)
	}
	return &cj
}

func TestReconcileStatusConflictRequeuesQuietly(t *testing.T) {
	cj := Hourly().Obj()
	f := newFixture(t, TopOfTheHour.Add(2*time.Second), interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return apierrors.NewConflict(cronjobv1.GroupVersion.WithResource("cronjobs").GroupResource(), obj.GetName(), fmt.Errorf("the object has been modified"))
		},
	}, cj)

	out := f.outcome()
	if out.Err != nil {
		t.Fatalf("Reconcile error = %v, want none: a conflict is requeued quietly", out.Err)
	}
	if out.Status != StatusConflicted || out.RequeueAfter <= 0 {
		t.Errorf("Outcome = %+v, want a conflicted status write, requeued", out)
	}
	// The Job was created; the next reconcile adopts it by name instead of creating another.
	if diff := cmp.Diff([]string{JobName(TopOfTheHour)}, f.jobNames(t)); diff != "" {
		t.Errorf("Jobs (-want,+got):\n%s", diff)
	}
}
