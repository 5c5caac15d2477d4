package plugin

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

func TestBackfill(t *testing.T) {
	hourly := builders.MakeCronJob("report", "team-a").Schedule("0 * * * *").EnumParameter("MODE", "full", "full", "delta").Obj()
	minutely := builders.MakeCronJob("often", "team-a").Schedule("* * * * *").Obj()
	from := time.Date(2026, time.March, 2, 5, 0, 0, 0, time.UTC)
	to := time.Date(2026, time.March, 2, 8, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		args     []string
		wantSpec cronjobv1.CronJobRunSpec
		wantOut  string // after the run's name
		wantErr  string
	}{
		"a range, in the CronJob's slots": {
			args:     []string{"backfill", "report", "--from", "2026-03-02T05:00:00Z", "--to", "2026-03-02T08:00:00Z"},
			wantSpec: cronjobv1.CronJobRunSpec{CronJobName: "report", Range: &cronjobv1.RunRange{From: metav1.NewTime(from), To: metav1.NewTime(to)}},
			wantOut:  " created (4 slots from 2026-03-02T05:00:00Z to 2026-03-02T08:00:00Z)\n",
		},
		"parallelism, Ignore and a parameter": {
			args: []string{"backfill", "report", "--from", "2026-03-02T06:00:00+01:00", "--to", "2026-03-02T08:30:00Z",
				"--parallelism", "4", "--ignore-concurrency", "-p", "MODE=delta"},
			wantSpec: cronjobv1.CronJobRunSpec{CronJobName: "report", Range: &cronjobv1.RunRange{From: metav1.NewTime(from), To: metav1.NewTime(to.Add(30 * time.Minute))},
				Parallelism: ptr.To[int32](4), ConcurrencyPolicy: cronjobv1.RunIgnoreConcurrency, Parameters: []cronjobv1.ParameterValue{{Name: "MODE", Value: "delta"}}},
			wantOut: " created (4 slots from 2026-03-02T05:00:00Z to 2026-03-02T08:00:00Z)\n",
		},
		"one slot": {
			args:     []string{"backfill", "report", "--from", "2026-03-02T04:30:00Z", "--to", "2026-03-02T05:00:00Z"},
			wantSpec: cronjobv1.CronJobRunSpec{CronJobName: "report", Range: &cronjobv1.RunRange{From: metav1.NewTime(from.Add(-30 * time.Minute)), To: metav1.NewTime(from)}},
			wantOut:  " created (1 slot: 2026-03-02T05:00:00Z)\n",
		},
		"a CronJob that does not exist: created without a count": {
			args:     []string{"backfill", "other", "--from", "2026-03-02T05:00:00Z", "--to", "2026-03-02T08:00:00Z"},
			wantSpec: cronjobv1.CronJobRunSpec{CronJobName: "other", Range: &cronjobv1.RunRange{From: metav1.NewTime(from), To: metav1.NewTime(to)}},
			wantOut:  " created\n",
		},
		"no slot in the range": {
			args:    []string{"backfill", "report", "--from", "2026-03-02T05:01:00Z", "--to", "2026-03-02T05:59:00Z"},
			wantErr: "CronJob report has no scheduled time from 2026-03-02T05:01:00Z to 2026-03-02T05:59:00Z (the next one after it is 2026-03-02T06:00:00Z): widen the range",
		},
		"more than 1000 slots": {
			args:    []string{"backfill", "often", "--from", "2026-03-01T00:00:00Z", "--to", "2026-03-01T23:59:00Z"},
			wantErr: "CronJob often has more than 1000 scheduled times from 2026-03-01T00:00:00Z to 2026-03-01T23:59:00Z: backfill at most 1000 at once, the first from 2026-03-01T00:00:00Z to 2026-03-01T16:39:00Z",
		},
		"--to in the future": {
			args:    []string{"backfill", "report", "--from", "2026-03-02T05:00:00Z", "--to", "2026-03-02T11:00:00Z"},
			wantErr: "--to 2026-03-02T11:00:00Z is in the future (now is 2026-03-02T10:00:05Z)",
		},
		"--from after --to": {
			args:    []string{"backfill", "report", "--from", "2026-03-02T08:00:00Z", "--to", "2026-03-02T05:00:00Z"},
			wantErr: "--from 2026-03-02T08:00:00Z is after --to 2026-03-02T05:00:00Z",
		},
		"--from not RFC 3339": {
			args: []string{"backfill", "report", "--from", "yesterday", "--to", "2026-03-02T05:00:00Z"}, wantErr: `--from "yesterday" is not an RFC 3339 time`,
		},
		"--to missing": {
			args: []string{"backfill", "report", "--from", "2026-03-02T05:00:00Z"}, wantErr: `required flag(s) "to" not set`,
		},
		"--parallelism 21": {
			args:    []string{"backfill", "report", "--from", "2026-03-02T05:00:00Z", "--to", "2026-03-02T08:00:00Z", "--parallelism", "21"},
			wantErr: "--parallelism 21 is out of range: give 1 to 20",
		},
		"a value outside the enum": {
			args:    []string{"backfill", "report", "--from", "2026-03-02T05:00:00Z", "--to", "2026-03-02T08:00:00Z", "-p", "MODE=fast"},
			wantErr: `-p MODE=fast: is not one of the values of CronJob report's parameter MODE: "full", "delta"`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newCluster(t, hourly, minutely)
			out, _, err := execute(t, c, tc.args...)
			if !createdOrFailed(t, c, err, tc.wantErr) {
				return
			}
			run := onlyRun(t, c, "team-a")
			if !strings.HasPrefix(run.Name, tc.wantSpec.CronJobName+"-backfill-") {
				t.Errorf("name %q, want generated from %s-backfill-", run.Name, tc.wantSpec.CronJobName)
			}
			if diff := cmp.Diff(tc.wantSpec, run.Spec, cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })); diff != "" {
				t.Errorf("spec (-want,+got):\n%s", diff)
			}
			if want := "cronjobrun.batch.cronjob-operator.dev/" + run.Name + tc.wantOut; out != want {
				t.Errorf("output %q, want %q", out, want)
			}
		})
	}
}

func TestBackfillWait(t *testing.T) {
	slot := func(h int, reason string) cronjobv1.BackfillSlot {
		at := time.Date(2026, time.March, 2, h, 0, 0, 0, time.UTC)
		return cronjobv1.BackfillSlot{ScheduledTime: metav1.NewTime(at), JobName: "report-" + at.Format("1504"), Reason: reason}
	}
	// What the run's status says at each read: waiting, then two progress steps (one read repeats the
	// first, which must not print twice), then the end.
	steps := []cronjobv1.CronJobRunStatus{
		{Phase: cronjobv1.RunPending},
		{Phase: cronjobv1.RunRunning, Backfill: &cronjobv1.BackfillStatus{Total: 3, Running: 2}},
		{Phase: cronjobv1.RunRunning, Backfill: &cronjobv1.BackfillStatus{Total: 3, Running: 2}},
		{Phase: cronjobv1.RunRunning, Backfill: &cronjobv1.BackfillStatus{Total: 3, Succeeded: 1, Failed: 1, Running: 1,
			FailedSlots: []cronjobv1.BackfillSlot{slot(6, "BackoffLimitExceeded")}}},
		{Phase: cronjobv1.RunFailed, Backfill: &cronjobv1.BackfillStatus{Total: 3, Succeeded: 1, Failed: 1, Skipped: 1,
			FailedSlots: []cronjobv1.BackfillSlot{slot(6, "BackoffLimitExceeded")}},
			Conditions: []metav1.Condition{{Type: cronjobv1.ConditionReady, Status: metav1.ConditionFalse, Reason: cronjobv1.ReasonBackfillFailed, Message: "3 slots: 1 succeeded, 1 failed, 1 skipped"}}},
	}
	reads := 0
	c := newCluster(t, builders.MakeCronJob("report", "team-a").Schedule("0 * * * *").Obj())
	c.onGetRun = func(run *cronjobv1.CronJobRun) {
		run.Status = steps[min(reads, len(steps)-1)]
		reads++
	}
	var out, errOut bytes.Buffer
	cmd := newCommand(&fakeFactory{c: c}, clocktesting.NewFakePassiveClock(now), &out, &errOut, time.Millisecond)
	cmd.SetArgs([]string{"backfill", "report", "--from", "2026-03-02T05:00:00Z", "--to", "2026-03-02T07:00:00Z", "--wait"})
	err := cmd.ExecuteContext(context.Background())
	if err == nil || !strings.Contains(err.Error(), "is Failed") {
		t.Errorf("error = %v, want the run's failure", err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	name := onlyRun(t, c, "team-a").Name
	want := []string{
		"cronjobrun.batch.cronjob-operator.dev/" + name + " created (3 slots from 2026-03-02T05:00:00Z to 2026-03-02T07:00:00Z)",
		"0/3 ended: 0 succeeded, 0 failed, 0 skipped; 2 running",
		"2/3 ended: 1 succeeded, 1 failed, 0 skipped; 1 running",
		"3/3 ended: 1 succeeded, 1 failed, 1 skipped; 0 running",
		"cronjobrun.batch.cronjob-operator.dev/" + name + " Failed: 3 slots: 1 succeeded, 1 failed, 1 skipped",
		"failed slot 2026-03-02T06:00:00Z\tjob report-0600\tBackoffLimitExceeded",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
