package webhooks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

func TestAdmissionValidate(t *testing.T) {
	cases := map[string]struct {
		// spec
		schedule  string
		schedules []string // spec.schedules instead of schedule ("EXPR @ ZONE" for an entry's own zone)
		timeZone  *string
		jitter    int32 // spec.jitterSeconds; 0 leaves it unset
		window    [2]time.Time
		// the object before an update; nil for a create
		old *cronjobv1.CronJob
		// expectations
		wantField   string // the field path of the Invalid error; "" for no error
		wantMessage string // a part of the error message
		wantWarning string // a part of the warning; "" for none
	}{
		"valid five fields":             {schedule: "*/5 * * * *"},
		"valid descriptor and zone":     {schedule: "@daily", timeZone: ptr.To("Europe/Berlin")},
		"minute out of range":           {schedule: "61 * * * *", wantField: "spec.schedule", wantMessage: "above maximum (59)"},
		"six fields":                    {schedule: "0 0 * * * *", wantField: "spec.schedule", wantMessage: "five fields"},
		"@every under a minute":         {schedule: "@every 30s", wantField: "spec.schedule", wantMessage: "between 1m0s and"},
		"unknown time zone":             {schedule: "0 * * * *", timeZone: ptr.To("Mars/Phobos"), wantField: "spec.timeZone", wantMessage: "not a known IANA time zone"},
		"31 February: admitted, warned": {schedule: "0 0 31 2 *", wantWarning: "never run"},
		"update keeping an invalid schedule is admitted (finalizers can still be removed)": {
			schedule: "61 * * * *", old: Hourly().Schedule("61 * * * *").Obj(),
		},
		"jitter shorter than the interval": {schedule: "*/5 * * * *", jitter: 299},
		"jitter as long as the interval": {
			schedule: "*/5 * * * *", jitter: 300, wantField: "spec.jitterSeconds", wantMessage: "set it below 300",
		},
		"jitter longer than the shortest of irregular intervals (:59 to :01)": {
			schedule: "1-59/29 * * * *", jitter: 200, wantField: "spec.jitterSeconds", wantMessage: "2m0s",
		},
		"jitter on 31 February (no two runs to compare it with): admitted, warned only that it never runs": {
			schedule: "0 0 31 2 *", jitter: 600, wantWarning: "never run",
		},
		"jitter on a schedule that runs once a year": {schedule: "0 0 1 1 *", jitter: 3600},
		"update changing only the jitter is checked": {
			schedule: "0 * * * *", jitter: 3600, old: Hourly().Obj(), wantField: "spec.jitterSeconds", wantMessage: "set it below 3600",
		},
		"several schedules, one in its own zone": {schedules: []string{"0 9 * * 1-5", "0 9 * * 1-5 @ America/New_York"}},
		"an entry's unknown zone names the entry": {
			schedules: []string{"0 9 * * *", "0 9 * * * @ Mars/Olympus"},
			wantField: "spec.schedules[1].timeZone", wantMessage: `spec.schedules[1].timeZone "Mars/Olympus" is not a known IANA time zone`,
		},
		"an entry that does not parse names the entry": {
			schedules: []string{"0 9 * * *", "0 25 * * *"}, wantField: "spec.schedules[1].schedule", wantMessage: "is not a valid cron schedule",
		},
		"jitter bounded by the union's shortest interval (9:00 and 9:05)": {
			schedules: []string{"0 9 * * *", "5 9 * * *"}, jitter: 300, wantField: "spec.jitterSeconds", wantMessage: "spec.schedules (their union), 5m0s",
		},
		"jitter below the union's shortest interval": {schedules: []string{"0 9 * * *", "5 9 * * *"}, jitter: 299},
		"a window that has ended: admitted, warned that it never runs": {
			schedule: "0 * * * *", window: [2]time.Time{{}, TopOfTheHour.Add(-time.Hour)}, wantWarning: "never run",
		},
		"update changing to an invalid schedule is rejected": {
			schedule: "61 * * * *", old: Hourly().Obj(), wantField: "spec.schedule", wantMessage: "not a valid cron schedule",
		},
	}
	a := &CronJobCustomValidator{Clock: clocktesting.NewFakePassiveClock(TopOfTheHour)}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := Hourly().Schedule(tc.schedule)
			if tc.schedules != nil {
				w.Schedules(tc.schedules...)
			}
			if !tc.window[0].IsZero() || !tc.window[1].IsZero() {
				w.ActiveWindow(tc.window[0], tc.window[1])
			}
			if tc.timeZone != nil {
				w.TimeZone(*tc.timeZone)
			}
			if tc.jitter != 0 {
				w.JitterSeconds(tc.jitter)
			}
			cj := w.Obj()
			var warnings []string
			var err error
			if tc.old == nil {
				warnings, err = a.ValidateCreate(context.Background(), cj)
			} else {
				warnings, err = a.ValidateUpdate(context.Background(), tc.old, cj)
			}
			if tc.wantField == "" {
				if err != nil {
					t.Fatalf("error = %v, want none", err)
				}
			} else {
				status, ok := err.(apierrors.APIStatus)
				if !ok || !apierrors.IsInvalid(err) {
					t.Fatalf("error = %v, want an Invalid status error", err)
				}
				causes := status.Status().Details.Causes
				if len(causes) != 1 || causes[0].Field != tc.wantField || !strings.Contains(causes[0].Message, tc.wantMessage) {
					t.Errorf("causes = %+v, want one on %s containing %q", causes, tc.wantField, tc.wantMessage)
				}
			}
			if (tc.wantWarning == "") != (len(warnings) == 0) || (tc.wantWarning != "" && !strings.Contains(warnings[0], tc.wantWarning)) {
				t.Errorf("warnings = %q, want one containing %q", warnings, tc.wantWarning)
			}
		})
	}
}

// TestRetiredMutatingHandler: a MutatingWebhookConfiguration left behind by an upgrade with kubectl apply
// still calls the retired path; the answer admits the request and patches nothing.
func TestRetiredMutatingHandler(t *testing.T) {
	resp := RetiredMutatingHandler().Handle(context.Background(), admission.Request{})
	if !resp.Allowed || len(resp.Patches) != 0 || resp.PatchType != nil {
		t.Fatalf("Handle() = allowed %v, %d patches, patch type %v; want allowed, none", resp.Allowed, len(resp.Patches), resp.PatchType)
	}
}

func TestCronJobMissingCalendarsAreWarned(t *testing.T) {
	holidays := &cronjobv1.CronCalendar{ObjectMeta: metav1.ObjectMeta{Name: "holidays", Namespace: Namespace}}
	v := &CronJobCustomValidator{Client: FakeClient(nil, interceptor.Funcs{}, holidays)}
	cj := Hourly().Calendars("holidays", "freeze").Obj()
	want := admission.Warnings{`spec.calendars: CronCalendar "freeze" does not exist in namespace "ns": no run starts until it does (CalendarNotFound); create it, or remove it from spec.calendars`}
	if diff := cmp.Diff(want, v.missingCalendars(context.Background(), cj)); diff != "" {
		t.Errorf("warnings (-want,+got):\n%s", diff)
	}
	if got := v.missingCalendars(context.Background(), Hourly().Calendars("holidays").Obj()); len(got) != 0 {
		t.Errorf("warnings %v for a calendar that exists", got)
	}
}
