package plugin

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// now is the fixed instant of the tests: Monday 2026-03-02 10:00:05 UTC.
var now = time.Date(2026, time.March, 2, 10, 0, 5, 0, time.UTC)

// fakeFactory hands out the client of one fake cluster; -n/--namespace sets the namespace (default "team-a").
type fakeFactory struct {
	c  *fakeCluster
	ns string
}

func (f *fakeFactory) Client() (Client, error)    { return f.c.client, nil }
func (f *fakeFactory) Namespace() (string, error) { return f.ns, nil }
func (f *fakeFactory) RESTConfig() (*rest.Config, error) {
	return nil, errors.New("the fake cluster serves the CronJob API only")
}
func (f *fakeFactory) BindFlags(cmd *cobra.Command) {
	cmd.PersistentFlags().StringVarP(&f.ns, "namespace", "n", "team-a", "namespace")
}

// execute runs `kubectl cjo args...` against the fake cluster c and returns its output, its error output
// and its error.
func execute(t *testing.T, c *fakeCluster, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewCommand(&fakeFactory{c: c}, clocktesting.NewFakePassiveClock(now), &out, &errOut)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// onlyRun returns the one CronJobRun of namespace ns.
func onlyRun(t *testing.T, c *fakeCluster, ns string) cronjobv1.CronJobRun {
	t.Helper()
	runs := c.runs(ns)
	if len(runs) != 1 {
		t.Fatalf("%d CronJobRuns in %s, want 1", len(runs), ns)
	}
	return runs[0]
}

// createdOrFailed checks the error of a command that creates a CronJobRun in team-a: with wantErr, an
// error containing it and no run created (it returns false: nothing more to check); without, no error (it
// returns true).
func createdOrFailed(t *testing.T, c *fakeCluster, err error, wantErr string) bool {
	t.Helper()
	if wantErr == "" {
		if err != nil {
			t.Fatal(err)
		}
		return true
	}
	if err == nil || !strings.Contains(err.Error(), wantErr) {
		t.Fatalf("error = %v, want one containing %q", err, wantErr)
	}
	if runs := c.runs("team-a"); len(runs) != 0 {
		t.Errorf("%d CronJobRuns created, want none", len(runs))
	}
	return false
}

func TestRun(t *testing.T) {
	cases := map[string]struct {
		args     []string
		wantSpec cronjobv1.CronJobRunSpec
		wantNS   string
		wantErr  string
	}{
		"run now": {
			args: []string{"run", "report"}, wantNS: "team-a",
			wantSpec: cronjobv1.CronJobRunSpec{CronJobName: "report"},
		},
		"in another namespace": {
			args: []string{"run", "report", "-n", "team-b"}, wantNS: "team-b",
			wantSpec: cronjobv1.CronJobRunSpec{CronJobName: "report"},
		},
		"a backfill, ignoring the concurrency policy": {
			args: []string{"run", "report", "--scheduled-time", "2026-03-01T03:00:00+01:00", "--ignore-concurrency"}, wantNS: "team-a",
			wantSpec: cronjobv1.CronJobRunSpec{CronJobName: "report", ConcurrencyPolicy: cronjobv1.RunIgnoreConcurrency,
				ScheduledTime: &metav1.Time{Time: time.Date(2026, time.March, 1, 2, 0, 0, 0, time.UTC)}},
		},
		"a scheduled time that is not RFC 3339": {
			args: []string{"run", "report", "--scheduled-time", "yesterday 3am"}, wantErr: "is not an RFC 3339 time",
		},
		"no name": {args: []string{"run"}, wantErr: "accepts 1 arg(s)"},
		"parameters, in the order given, a value holding '=' and ','": {
			args: []string{"run", "report", "-p", "MODE=delta", "--parameter", "DATE=2026-01-01", "-p", "NOTE=a=b,c", "-p", "EMPTY="}, wantNS: "team-a",
			wantSpec: cronjobv1.CronJobRunSpec{CronJobName: "report", Parameters: []cronjobv1.ParameterValue{
				{Name: "MODE", Value: "delta"}, {Name: "DATE", Value: "2026-01-01"}, {Name: "NOTE", Value: "a=b,c"}, {Name: "EMPTY", Value: ""}}},
		},
		"a parameter the CronJob does not declare: fails before creating the run, naming it": {
			args:    []string{"run", "report", "-p", "DAY=monday"},
			wantErr: "CronJob report in namespace team-a does not take these values: -p DAY=monday: CronJob report declares no parameter DAY (it declares MODE, DATE, NOTE, EMPTY): remove the value or correct its name",
		},
		"values outside the enum and not matching the pattern: both named": {
			args: []string{"run", "report", "-p", "MODE=fast", "-p", "DATE=tomorrow"},
			wantErr: `does not take these values: -p MODE=fast: is not one of the values of CronJob report's parameter MODE: "full", "delta"; ` +
				`-p DATE=tomorrow: does not match the pattern ^\d{4}-\d{2}-\d{2}$ of CronJob report's parameter DATE`,
		},
		"a parameter of a CronJob that does not exist: the run is created, admission and the controller decide": {
			args: []string{"run", "other", "-p", "DAY=monday"}, wantNS: "team-a",
			wantSpec: cronjobv1.CronJobRunSpec{CronJobName: "other", Parameters: []cronjobv1.ParameterValue{{Name: "DAY", Value: "monday"}}},
		},
		"-p without '='": {args: []string{"run", "report", "-p", "DATE"}, wantErr: `-p "DATE" is not NAME=VALUE, such as -p DATE=2026-01-01`},
		"-p of the same name twice": {
			args: []string{"run", "report", "-p", "MODE=full", "-p", "MODE=delta"}, wantErr: "-p MODE is given twice: give each parameter once",
		},
	}
	report := builders.MakeCronJob("report", "team-a").EnumParameter("MODE", "full", "full", "delta").
		PatternParameter("DATE", "2026-01-01", `^\d{4}-\d{2}-\d{2}$`).Parameter("NOTE", "").Parameter("EMPTY", "x").Obj()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newCluster(t, report)
			out, _, err := execute(t, c, tc.args...)
			if !createdOrFailed(t, c, err, tc.wantErr) {
				return
			}
			run := onlyRun(t, c, tc.wantNS)
			if !strings.HasPrefix(run.Name, tc.wantSpec.CronJobName+"-") {
				t.Errorf("name %q, want generated from report-", run.Name)
			}
			if diff := cmp.Diff(tc.wantSpec, run.Spec, cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })); diff != "" {
				t.Errorf("spec (-want,+got):\n%s", diff)
			}
			if want := "cronjobrun.batch.cronjob-operator.dev/" + run.Name + " created\n"; out != want {
				t.Errorf("output %q, want %q", out, want)
			}
		})
	}
}

func TestRunWait(t *testing.T) {
	for name, tc := range map[string]struct {
		phase   cronjobv1.CronJobRunPhase
		wantOut string
		wantErr bool
	}{
		"succeeds": {phase: cronjobv1.RunSucceeded, wantOut: "Succeeded (job \"report-m1\")"},
		"fails":    {phase: cronjobv1.RunFailed, wantOut: "Failed (job \"report-m1\")", wantErr: true},
	} {
		t.Run(name, func(t *testing.T) {
			// The run is Pending, then Running, then ends: the command must wait through the first two.
			reads := 0
			c := newCluster(t)
			c.onGetRun = func(run *cronjobv1.CronJobRun) {
				reads++
				run.Status.Phase = map[int]cronjobv1.CronJobRunPhase{1: cronjobv1.RunPending, 2: cronjobv1.RunRunning}[reads]
				if reads >= 3 {
					run.Status.Phase, run.Status.JobName = tc.phase, "report-m1"
				}
			}
			var out, errOut bytes.Buffer
			cmd := newCommand(&fakeFactory{c: c}, clocktesting.NewFakePassiveClock(now), &out, &errOut, time.Millisecond)
			cmd.SetArgs([]string{"run", "report", "--wait"})
			err := cmd.ExecuteContext(context.Background())
			if (err != nil) != tc.wantErr {
				t.Errorf("error = %v, want error: %v", err, tc.wantErr)
			}
			if reads < 3 {
				t.Errorf("read the run %d times, want at least 3: it must wait until the run has finished", reads)
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("output %q, want it to contain %q", out.String(), tc.wantOut)
			}
		})
	}
}

func TestSuspendAndResume(t *testing.T) {
	c := newCluster(t, builders.MakeCronJob("report", "team-a").Obj())
	get := func() *bool {
		cj, err := c.client.GetCronJob(context.Background(), "team-a", "report")
		if err != nil {
			t.Fatal(err)
		}
		return cj.Spec.Suspend
	}
	out, _, err := execute(t, c, "suspend", "report")
	if err != nil || !ptr.Deref(get(), false) || out != "cronjob.batch.cronjob-operator.dev/report suspended\n" {
		t.Errorf("suspend: err %v, spec.suspend %v, output %q", err, get(), out)
	}
	out, _, err = execute(t, c, "resume", "report")
	if err != nil || ptr.Deref(get(), true) || out != "cronjob.batch.cronjob-operator.dev/report resumed\n" {
		t.Errorf("resume: err %v, spec.suspend %v, output %q", err, get(), out)
	}
	if _, _, err := execute(t, c, "suspend", "missing"); err == nil || !strings.Contains(err.Error(), "CronJob missing in namespace team-a") {
		t.Errorf("suspend of a missing CronJob: error %v", err)
	}
}

func TestNextWithAMissingCalendar(t *testing.T) {
	orphan := builders.MakeCronJob("orphan", "team-a").Calendars("missing").Obj()
	_, _, err := execute(t, newCluster(t, orphan), "next", "orphan")
	if err == nil || !strings.Contains(err.Error(), `CronCalendar "missing" does not exist in namespace team-a`) {
		t.Errorf("error %v, want one naming the missing calendar", err)
	}
}

func TestSuspendUntil(t *testing.T) {
	// Suspended already: --until must resume it at that time, not leave spec.suspend true.
	c := newCluster(t, builders.MakeCronJob("report", "team-a").Suspend().Obj())
	get := func() *cronjobv1.CronJob {
		cj, err := c.client.GetCronJob(context.Background(), "team-a", "report")
		if err != nil {
			t.Fatal(err)
		}
		return cj
	}
	until := now.Add(36 * time.Hour).In(time.FixedZone("CET", 3600))
	out, _, err := execute(t, c, "suspend", "report", "--until", until.Format(time.RFC3339))
	cj := get()
	if err != nil || cj.Spec.SuspendUntil == nil || !cj.Spec.SuspendUntil.Time.Equal(until) || ptr.Deref(cj.Spec.Suspend, false) ||
		out != "cronjob.batch.cronjob-operator.dev/report suspended until "+until.Format(time.RFC3339)+"\n" {
		t.Errorf("suspend --until: err %v, spec.suspendUntil %v, spec.suspend %v, output %q", err, cj.Spec.SuspendUntil, cj.Spec.Suspend, out)
	}
	if _, _, err := execute(t, c, "resume", "report"); err != nil || get().Spec.SuspendUntil != nil {
		t.Errorf("resume: err %v, spec.suspendUntil %v, want cleared", err, get().Spec.SuspendUntil)
	}
	for arg, want := range map[string]string{
		now.Add(-time.Minute).Format(time.RFC3339): "is not in the future",
		"2026-12-27 08:00":                         "is not an RFC 3339 time: write it as 2026-12-27T08:00:00+01:00",
	} {
		if _, _, err := execute(t, c, "suspend", "report", "--until", arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--until %q: error %v, want one with %q", arg, err, want)
		}
	}
	if get().Spec.SuspendUntil != nil {
		t.Error("a refused --until changed spec.suspendUntil")
	}
}

func TestNext(t *testing.T) {
	berlin := builders.MakeCronJob("berlin", "team-a").Schedule("30 2 * * *").TimeZone("Europe/Berlin").
		CreationTimestamp(now.Add(-time.Hour)).Obj()
	paused := builders.MakeCronJob("paused", "team-a").Schedule("0 * * * *").Suspend().CreationTimestamp(now.Add(-time.Hour)).Obj()
	// Weekdays at 9:00 in Berlin and New York, not on 2026-03-03 (a Tuesday), not before 2026-03-02T14:00Z.
	planned := builders.MakeCronJob("planned", "team-a").Schedules("0 9 * * 1-5 @ Europe/Berlin", "0 9 * * 1-5 @ America/New_York").
		Calendars("closed").SuspendUntil(time.Date(2026, time.March, 2, 14, 0, 0, 0, time.UTC)).CreationTimestamp(now.Add(-time.Hour)).Obj()
	closed := &cronjobv1.CronCalendar{ObjectMeta: metav1.ObjectMeta{Name: "closed", Namespace: "team-a"},
		Spec: cronjobv1.CronCalendarSpec{ExcludeDates: []string{"2026-03-03"}}}
	for name, tc := range map[string]struct {
		args       []string
		wantOut    string
		wantErrOut string
	}{
		"five by default, in the CronJob's zone": {
			args: []string{"next", "berlin"},
			wantOut: "2026-03-03T02:30:00+01:00\n2026-03-04T02:30:00+01:00\n2026-03-05T02:30:00+01:00\n" +
				"2026-03-06T02:30:00+01:00\n2026-03-07T02:30:00+01:00\n",
		},
		"--count 2": {args: []string{"next", "berlin", "--count", "2"}, wantOut: "2026-03-03T02:30:00+01:00\n2026-03-04T02:30:00+01:00\n"},
		"suspended": {
			args: []string{"next", "paused", "-c", "1"}, wantOut: "2026-03-02T11:00:00Z\n",
			wantErrOut: "CronJob paused is suspended",
		},
		"the union of two zones, without the calendar's day and the time before suspendUntil": {
			args:    []string{"next", "planned", "-c", "3"},
			wantOut: "2026-03-02T14:00:00Z\n2026-03-04T08:00:00Z\n2026-03-04T14:00:00Z\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			out, errOut, err := execute(t, newCluster(t, berlin, paused, planned, closed), tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if out != tc.wantOut {
				t.Errorf("output:\n%s\nwant:\n%s", out, tc.wantOut)
			}
			if !strings.Contains(errOut, tc.wantErrOut) {
				t.Errorf("error output %q, want it to contain %q", errOut, tc.wantErrOut)
			}
		})
	}
	_, _, err := execute(t, newCluster(t, builders.MakeCronJob("bad", "team-a").Schedule("every hour").Obj()), "next", "bad")
	if err == nil || !strings.Contains(err.Error(), "is not a valid cron schedule") {
		t.Errorf("next of a bad schedule: error %v, want the controller's message", err)
	}
}

// TestNextWithJitter: with spec.jitterSeconds, next prints each scheduled time (the first field, for
// scripts) and, after a tab, when the run starts: the scheduled time plus the delay the controller gives
// this CronJob's UID, which it also publishes in status.nextScheduleTime.
func TestNextWithJitter(t *testing.T) {
	cj := builders.MakeCronJob("spread", "team-a").Schedule("0 * * * *").JitterSeconds(600).UID("6a1f3c2e-0d4b-4e8f-9a57-2b1c0e9d7f31").
		CreationTimestamp(now.Add(-time.Hour)).Obj()
	want, _, err := schedule.NextRuns(cj, nil, now, 3)
	if err != nil || len(want) != 3 {
		t.Fatalf("schedule.NextRuns: %v, %d runs", err, len(want))
	}
	out, _, err := execute(t, newCluster(t, cj), "next", "spread", "-c", "3")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("output:\n%s\nwant 3 lines", out)
	}
	delays := map[time.Duration]bool{}
	for i, line := range lines {
		scheduled, start, ok := strings.Cut(line, "\tstarts ")
		if !ok {
			t.Fatalf("line %q: want \"<scheduled>\\tstarts <start>\"", line)
		}
		if scheduled != want[i].Scheduled.Format(time.RFC3339) || start != want[i].Start.Format(time.RFC3339) {
			t.Errorf("line %d: %q, want the controller's %s starting %s", i, line, want[i].Scheduled.Format(time.RFC3339), want[i].Start.Format(time.RFC3339))
		}
		if d := want[i].Start.Sub(want[i].Scheduled); d < 0 || d >= 600*time.Second {
			t.Errorf("line %d: delay %v, want within [0, 600 s)", i, d)
		} else {
			delays[d] = true
		}
	}
	if len(delays) < 2 {
		t.Errorf("delays %v: the delay depends on the slot, so three slots should not all share one", delays)
	}
}
