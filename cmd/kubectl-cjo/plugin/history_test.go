package plugin

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

func TestHistory(t *testing.T) {
	at := func(hhmm string) metav1.Time {
		v, err := time.Parse(time.RFC3339, "2026-03-02T"+hhmm+":00Z")
		if err != nil {
			t.Fatal(err)
		}
		return metav1.NewTime(v)
	}
	w := builders.MakeCronJob("report", "team-a").Schedule("0 * * * *").TimeZone("Europe/Berlin").
		Suspend().Annotation(cronjobv1.PausedAtAnnotation, "2026-03-02T09:30:00Z").SuccessDeadlineSeconds(7200).
		RunTimeoutSeconds(3600).PauseAfterFailures(3)
	w.Status.SucceededRuns, w.Status.FailedRuns, w.Status.ConsecutiveFailures = 7, 3, 2
	w.Status.Conditions = []metav1.Condition{{Type: cronjobv1.ConditionHealthy, Status: metav1.ConditionFalse,
		Reason: cronjobv1.ReasonNoRecentSuccess, Message: "no success", LastTransitionTime: at("09:40")}}
	w.Status.RecentRuns = []cronjobv1.RunRecord{
		{JobName: "report-now", ScheduledTime: ptr.To(at("09:50")), Trigger: cronjobv1.TriggeredByManual,
			StartTime: at("09:50"), Result: cronjobv1.RunResultRunning},
		{JobName: "report-29540580", ScheduledTime: ptr.To(at("09:00")), Trigger: cronjobv1.TriggeredBySchedule,
			StartTime: at("09:00"), EndTime: ptr.To(at("09:20")), Result: cronjobv1.RunResultTimedOut, Reason: cronjobv1.ReasonRunTimedOut},
		{JobName: "report-29540520", ScheduledTime: ptr.To(at("08:00")), Trigger: cronjobv1.TriggeredByCatchUp,
			StartTime: at("08:03"), EndTime: ptr.To(at("08:04")), Result: cronjobv1.RunResultFailed, Reason: "BackoffLimitExceeded"},
	}
	out, _, err := execute(t, newCluster(t, w.Obj()), "history", "report")
	if err != nil {
		t.Fatal(err)
	}
	want := `CronJob:   team-a/report
Schedule:  0 * * * * (Europe/Berlin)
State:     paused after failures at 2026-03-02T09:30:00Z (kubectl cjo resume report)
Timeouts:  run 1h0m0s, start none
Runs:      7 succeeded, 3 failed, 2 failed in a row (pause: after 3 failed runs in a row)
Healthy:   False (NoRecentSuccess): no success

JOB              SCHEDULED                  TRIGGER   STARTED                    DURATION    RESULT    REASON
report-now       2026-03-02T10:50:00+01:00  Manual    2026-03-02T10:50:00+01:00  10m so far  Running   -
report-29540580  2026-03-02T10:00:00+01:00  Schedule  2026-03-02T10:00:00+01:00  20m         TimedOut  RunTimedOut
report-29540520  2026-03-02T09:00:00+01:00  CatchUp   2026-03-02T09:03:00+01:00  60s         Failed    BackoffLimitExceeded
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}

	fresh := builders.MakeCronJob("fresh", "team-a").Obj()
	out, _, err = execute(t, newCluster(t, fresh), "history", "fresh")
	if err != nil || !strings.Contains(out, "State:     scheduling") || !strings.Contains(out, "No runs recorded yet.") ||
		strings.Contains(out, "Healthy") {
		t.Errorf("a CronJob without runs: err %v, output:\n%s", err, out)
	}
	if _, _, err := execute(t, newCluster(t, fresh), "history", "missing"); err == nil ||
		!strings.Contains(err.Error(), "CronJob missing in namespace team-a") {
		t.Errorf("history of a missing CronJob: error %v", err)
	}
}
