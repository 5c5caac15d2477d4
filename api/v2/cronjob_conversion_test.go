package v2_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apix "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrlconversion "sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
)

func scheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := cronjobv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := cronjobv2.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

var instant = metav1.NewTime(time.Date(2026, 12, 4, 9, 30, 0, 0, time.UTC))

// fullV1 sets every field of a v1 CronJob's spec to a value unlike any default, so that a field the
// conversion forgot shows as a difference.
func fullV1() *cronjobv1.CronJob {
	return &cronjobv1.CronJob{
		TypeMeta: metav1.TypeMeta{APIVersion: cronjobv1.GroupVersion.String(), Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "team-a", UID: "u-1", ResourceVersion: "42",
			Labels: map[string]string{"app": "x"}, Annotations: map[string]string{"note": "y"}},
		Spec: cronjobv1.CronJobSpec{
			Schedule:                   "0 9 * * MON-FRI",
			TimeZone:                   ptr.To("Europe/Berlin"),
			Calendars:                  []string{"de-holidays", "freeze"},
			ActiveWindow:               &cronjobv1.ActiveWindow{NotBefore: &instant},
			SuspendUntil:               &instant,
			StartingDeadlineSeconds:    ptr.To[int64](600),
			ConcurrencyPolicy:          cronjobv1.EnqueueConcurrent,
			MaxActiveJobs:              ptr.To[int32](2),
			MaxQueuedRuns:              ptr.To[int32](7),
			MissedRunPolicy:            cronjobv1.MissedRunAll,
			MaxCatchUpRuns:             ptr.To[int32](5),
			JitterSeconds:              ptr.To[int32](30),
			Suspend:                    ptr.To(true),
			JobTemplate:                batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}},
			SuccessfulJobsHistoryLimit: ptr.To[int32](4),
			FailedJobsHistoryLimit:     ptr.To[int32](2),
			RunTimeoutSeconds:          ptr.To[int64](3600),
			StartTimeoutSeconds:        ptr.To[int64](300),
			SuccessDeadlineSeconds:     ptr.To[int64](90000),
			PauseAfterFailures:         ptr.To[int32](3),
			RecentRunsLimit:            ptr.To[int32](20),
			Parameters:                 []cronjobv1.Parameter{{Name: "MODE", Default: "full"}},
		},
		Status: cronjobv1.CronJobStatus{LastScheduleTime: &instant, ConsecutiveFailures: 2, SucceededRuns: 9,
			Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Scheduled", LastTransitionTime: instant}}},
	}
}

// TestEachFieldHasItsPlace is the mapping table of README "API versions", one row per v1 field: the
// value set in v1 is found at its v2 place.
func TestEachFieldHasItsPlace(t *testing.T) {
	in := fullV1()
	var out cronjobv2.CronJob
	cronjobv2.ToV2(in, &out)
	s := out.Spec
	rows := []struct {
		v1, v2    string
		want, got any
	}{
		{"schedule", "schedule.cron", in.Spec.Schedule, s.Schedule.Cron},
		{"timeZone", "schedule.timeZone", in.Spec.TimeZone, s.Schedule.TimeZone},
		{"calendars", "schedule.calendars", in.Spec.Calendars, s.Schedule.Calendars},
		{"activeWindow", "schedule.activeWindow", in.Spec.ActiveWindow, s.Schedule.ActiveWindow},
		{"jitterSeconds", "schedule.jitterSeconds", in.Spec.JitterSeconds, s.Schedule.JitterSeconds},
		{"suspend", "suspend", in.Spec.Suspend, s.Suspend},
		{"suspendUntil", "suspendUntil", in.Spec.SuspendUntil, s.SuspendUntil},
		{"concurrencyPolicy", "concurrency.policy", in.Spec.ConcurrencyPolicy, s.Concurrency.Policy},
		{"maxActiveJobs", "concurrency.maxActiveJobs", in.Spec.MaxActiveJobs, s.Concurrency.MaxActiveJobs},
		{"maxQueuedRuns", "concurrency.maxQueuedRuns", in.Spec.MaxQueuedRuns, s.Concurrency.MaxQueuedRuns},
		{"missedRunPolicy", "missedRuns.policy", in.Spec.MissedRunPolicy, s.MissedRuns.Policy},
		{"startingDeadlineSeconds", "missedRuns.startingDeadlineSeconds", in.Spec.StartingDeadlineSeconds, s.MissedRuns.StartingDeadlineSeconds},
		{"maxCatchUpRuns", "missedRuns.maxCatchUpRuns", in.Spec.MaxCatchUpRuns, s.MissedRuns.MaxCatchUpRuns},
		{"successfulJobsHistoryLimit", "history.successfulJobs", in.Spec.SuccessfulJobsHistoryLimit, s.History.SuccessfulJobs},
		{"failedJobsHistoryLimit", "history.failedJobs", in.Spec.FailedJobsHistoryLimit, s.History.FailedJobs},
		{"recentRunsLimit", "history.recentRuns", in.Spec.RecentRunsLimit, s.History.RecentRuns},
		{"runTimeoutSeconds", "timeouts.runSeconds", in.Spec.RunTimeoutSeconds, s.Timeouts.RunSeconds},
		{"startTimeoutSeconds", "timeouts.startSeconds", in.Spec.StartTimeoutSeconds, s.Timeouts.StartSeconds},
		{"successDeadlineSeconds", "health.successDeadlineSeconds", in.Spec.SuccessDeadlineSeconds, s.Health.SuccessDeadlineSeconds},
		{"pauseAfterFailures", "health.pauseAfterFailures", in.Spec.PauseAfterFailures, s.Health.PauseAfterFailures},
		{"parameters", "parameters", in.Spec.Parameters, s.Parameters},
		{"jobTemplate", "jobTemplate", in.Spec.JobTemplate, s.JobTemplate},
		{"(status)", "(status)", in.Status, out.Status},
		{"(metadata)", "(metadata)", in.ObjectMeta, out.ObjectMeta},
	}
	for _, r := range rows {
		if !apiequality.Semantic.DeepEqual(r.want, r.got) {
			t.Errorf("v1 spec.%s -> v2 spec.%s: got %v, want %v", r.v1, r.v2, r.got, r.want)
		}
		if r.v1[0] != '(' && cronjobv2.V2Paths("spec."+r.v1) != "spec."+r.v2 {
			t.Errorf("cronjobv2.V2Paths(spec.%s) = %s, want spec.%s", r.v1, cronjobv2.V2Paths("spec."+r.v1), r.v2)
		}
	}
	if out.APIVersion != "batch.cronjob-operator.dev/v2" || out.Kind != "CronJob" {
		t.Errorf("TypeMeta = %+v, want batch.cronjob-operator.dev/v2 CronJob", out.TypeMeta)
	}

	// The other branch of the schedule union, and the way back.
	in.Spec.Schedule, in.Spec.Schedules = "", []cronjobv1.ScheduleEntry{{Schedule: "0 9 * * *", TimeZone: ptr.To("America/New_York")}, {Schedule: "0 9 * * *"}}
	cronjobv2.ToV2(in, &out)
	want := []cronjobv2.Cron{{Cron: "0 9 * * *", TimeZone: ptr.To("America/New_York")}, {Cron: "0 9 * * *"}}
	if d := cmp.Diff(want, out.Spec.Schedule.Crons); d != "" || out.Spec.Schedule.Cron != "" {
		t.Errorf("v1 spec.schedules -> v2 spec.schedule.crons (-want +got):\n%s(cron %q)", d, out.Spec.Schedule.Cron)
	}
	var back cronjobv1.CronJob
	cronjobv2.ToV1(&out, &back)
	if d := cmp.Diff(in, &back); d != "" {
		t.Errorf("v1 -> v2 -> v1 changed the object (-want +got):\n%s", d)
	}
}

// TestConversionDoesNotAlias: a converted object shares no memory with its source, so the controller may
// edit one without changing the other (the webhook's decoded objects are reused by nobody, but the
// plugin converts objects it then edits).
func TestConversionDoesNotAlias(t *testing.T) {
	in := fullV1()
	var out cronjobv2.CronJob
	cronjobv2.ToV2(in, &out)
	*out.Spec.Schedule.TimeZone = "Asia/Tokyo"
	out.Spec.Schedule.Calendars[0] = "changed"
	out.Status.Conditions[0].Reason = "changed"
	if *in.Spec.TimeZone != "Europe/Berlin" || in.Spec.Calendars[0] != "de-holidays" || in.Status.Conditions[0].Reason != "Scheduled" {
		t.Errorf("editing the v2 copy changed the v1 source: %+v", in.Spec)
	}
}

// review sends obj, as JSON, through the manager's /convert handler to version want, as the API server
// does, and returns the converted object's JSON.
func review(t testing.TB, h http.Handler, obj any, want string) []byte {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(apix.ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Request:  &apix.ConversionRequest{UID: "r-1", DesiredAPIVersion: want, Objects: []runtime.RawExtension{{Raw: raw}}},
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body)))
	var out apix.ConversionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("decoding the review response %q: %v", rec.Body.String(), err)
	}
	if out.Response == nil || out.Response.Result.Status != metav1.StatusSuccess || len(out.Response.ConvertedObjects) != 1 {
		t.Fatalf("conversion to %s failed: %+v", want, out.Response)
	}
	return out.Response.ConvertedObjects[0].Raw
}

// handler is the manager's /convert endpoint, converting through the hub (v1).
func handler(t testing.TB) http.Handler {
	t.Helper()
	return ctrlconversion.NewWebhookHandler(scheme(t), ctrlconversion.NewRegistry())
}

// TestWebhookRoundTrip runs the full object through the /convert handler both ways, in JSON as the API
// server sends it.
func TestWebhookRoundTrip(t *testing.T) {
	h := handler(t)
	in := fullV1()
	v2raw := review(t, h, in, "batch.cronjob-operator.dev/v2")
	var v2 cronjobv2.CronJob
	if err := json.Unmarshal(v2raw, &v2); err != nil {
		t.Fatal(err)
	}
	if v2.APIVersion != "batch.cronjob-operator.dev/v2" || v2.Spec.Concurrency.Policy != cronjobv1.EnqueueConcurrent || *v2.Spec.History.RecentRuns != 20 {
		t.Errorf("v2 from the webhook: %s", v2raw)
	}
	var back cronjobv1.CronJob
	if err := json.Unmarshal(review(t, h, &v2, "batch.cronjob-operator.dev/v1"), &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, &back); d != "" {
		t.Errorf("v1 -> v2 -> v1 through the webhook changed the object (-want +got):\n%s", d)
	}
}

// TestV2Paths: the paths the admission webhook names for a v2 request.
func TestV2Paths(t *testing.T) {
	for in, want := range map[string]string{
		"spec.schedule":                          "spec.schedule.cron",
		"spec.schedules[1].schedule":             "spec.schedule.crons[1].cron",
		"spec.schedules[0].timeZone":             "spec.schedule.crons[0].timeZone",
		"spec.schedules (their union)":           "spec.schedule.crons (their union)",
		"spec.calendars[2]":                      "spec.schedule.calendars[2]",
		"spec.jobTemplate.spec.template":         "spec.jobTemplate.spec.template",
		"spec.suspend":                           "spec.suspend",
		"spec.schedule.cron":                     "spec.schedule.cron",
		"spec.startingDeadlineSeconds is 0: no":  "spec.missedRuns.startingDeadlineSeconds is 0: no",
		`spec.schedule "0 9 * * *" never fires`:  `spec.schedule.cron "0 9 * * *" never fires`,
		"set it in spec.timeZone, not spec.zone": "set it in spec.schedule.timeZone, not spec.zone",
		"no path here":                           "no path here",
		// A spec nested in the template is not the CronJob's.
		"spec.jobTemplate.spec.template.spec.timeZone": "spec.jobTemplate.spec.template.spec.timeZone",
		"x.spec.maxQueuedRuns":                         "x.spec.maxQueuedRuns",
		`"spec.maxQueuedRuns" (quoted)`:                `"spec.concurrency.maxQueuedRuns" (quoted)`,
		"(spec.suspendUntil, spec.calendars)":          "(spec.suspendUntil, spec.schedule.calendars)",
	} {
		if got := cronjobv2.V2Paths(in); got != want {
			t.Errorf("cronjobv2.V2Paths(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkConvert is one conversion each way of a full CronJob, in Go (what the webhook does per object
// after decoding), and BenchmarkConvertReview one ConversionReview of one object through the /convert
// handler, JSON in and out (what the API server waits for).
func BenchmarkConvert(b *testing.B) {
	in := fullV1()
	var mid cronjobv2.CronJob
	var out cronjobv1.CronJob
	b.ReportAllocs()
	for b.Loop() {
		cronjobv2.ToV2(in, &mid)
		cronjobv2.ToV1(&mid, &out)
	}
}

func BenchmarkConvertReview(b *testing.B) {
	h := handler(b)
	in := fullV1()
	b.ReportAllocs()
	for b.Loop() {
		review(b, h, in, "batch.cronjob-operator.dev/v2")
	}
}
