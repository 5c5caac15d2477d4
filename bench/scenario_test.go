package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cronjob-operator/cronjob-operator/test/oracle"
)

var anchor = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func mustSchedule(t *testing.T, s string) cron.Schedule {
	t.Helper()
	sched, err := cron.ParseStandard("CRON_TZ=Etc/UTC " + s)
	if err != nil {
		t.Fatal(err)
	}
	return sched
}

func TestNextMinute(t *testing.T) {
	cases := map[string]struct{ in, want time.Time }{
		"on a whole minute stays":     {anchor, anchor},
		"a nanosecond after":          {anchor.Add(time.Nanosecond), anchor.Add(time.Minute)},
		"59 s after goes to the next": {anchor.Add(59 * time.Second), anchor.Add(time.Minute)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := nextMinute(tc.in); !got.Equal(tc.want) {
				t.Errorf("nextMinute(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestDueRunsAndLostAndDuplicates(t *testing.T) {
	cronJobs := map[types.UID]cron.Schedule{
		"minutely": mustSchedule(t, "* * * * *"),
		"hourly":   mustSchedule(t, "2 * * * *"),
		"daily":    mustSchedule(t, "30 3 * * *"),
	}
	// [12:00, 12:03]: the minutely CronJob is due 4 times (both ends count), the hourly once, the daily never.
	due := dueRuns(cronJobs, anchor, anchor.Add(3*time.Minute))
	if len(due) != 5 {
		t.Fatalf("dueRuns = %d runs, want 5: %v", len(due), due)
	}
	seen := anchor.Add(time.Second)
	jobs := []oracle.ObservedJob{
		{Owner: "minutely", ScheduledAt: anchor, Seen: seen},
		{Owner: "minutely", ScheduledAt: anchor.Add(time.Minute), Seen: seen},
		{Owner: "minutely", ScheduledAt: anchor.Add(time.Minute), Seen: seen}, // a duplicate
		{Owner: "minutely", ScheduledAt: anchor.Add(3 * time.Minute), Seen: seen},
		// 12:02 of the minutely CronJob and the hourly run are lost.
		{Owner: "stranger", ScheduledAt: anchor.Add(2 * time.Minute), Seen: seen}, // not ours: no effect
	}
	lost, dups := lostAndDuplicates(due, jobs)
	if lost != 2 || dups != 1 {
		t.Errorf("lostAndDuplicates = lost %d, duplicates %d; want 2 and 1", lost, dups)
	}
	in := jobsFor(jobs, cronJobs, anchor.Add(time.Minute), anchor.Add(3*time.Minute))
	if len(in) != 3 {
		t.Errorf("jobsFor [12:01, 12:03] = %d Jobs, want 3 (the stranger's is left out)", len(in))
	}
}

func TestRunsPerSecond(t *testing.T) {
	var jobs []oracle.ObservedJob
	// Minute 1: 100 Jobs, the last seen 0.5 s after the minute (200 runs/s); minute 2: 100 in 2 s (50/s).
	for i := range 100 {
		jobs = append(jobs,
			oracle.ObservedJob{ScheduledAt: anchor, Seen: anchor.Add(time.Duration(i+1) * 5 * time.Millisecond)},
			oracle.ObservedJob{ScheduledAt: anchor.Add(time.Minute), Seen: anchor.Add(time.Minute + time.Duration(i+1)*20*time.Millisecond)})
	}
	if got, want := runsPerSecond(jobs), 125.0; got != want {
		t.Errorf("runsPerSecond = %v, want %v (the mean of 200 and 50)", got, want)
	}
	if got := runsPerSecond(nil); got != 0 {
		t.Errorf("runsPerSecond(nil) = %v, want 0", got)
	}
}

func TestReadAudit(t *testing.T) {
	const log = `{"kind":"Event","stage":"ResponseComplete","verb":"create","user":{"username":"bench-ours"},"objectRef":{"resource":"jobs","namespace":"ns","name":"j-1"},"responseStatus":{"code":201},"requestReceivedTimestamp":"2026-11-30T12:00:00.010000Z","stageTimestamp":"2026-11-30T12:00:00.018000Z"}
{"kind":"Event","stage":"ResponseStarted","verb":"watch","user":{"username":"bench-peer"},"objectRef":{"resource":"jobs"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-30T12:00:01Z","stageTimestamp":"2026-11-30T12:00:01Z"}
{"kind":"Event","stage":"ResponseComplete","verb":"watch","user":{"username":"bench-peer"},"objectRef":{"resource":"jobs"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-30T12:00:01Z","stageTimestamp":"2026-11-30T12:09:01Z"}
{"kind":"Event","stage":"ResponseComplete","verb":"patch","user":{"username":"bench-ours"},"objectRef":{"resource":"cronjobs","subresource":"status","namespace":"ns","name":"c"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-30T12:00:00.020000Z","stageTimestamp":"2026-11-30T12:00:00.025000Z"}
{"kind":"Event","stage":"ResponseComplete","verb":"get","user":{"username":"bench-ours"},"requestReceivedTimestamp":"2026-11-30T12:00:02Z","stageTimestamp":"2026-11-30T12:00:02Z"}
{"kind":"Event","stage":"ResponseComplete","verb":"create","user":{"username":"bench-ou` // a line still being written
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []request{
		{user: "bench-ours", key: "create jobs", received: anchor.Add(10 * time.Millisecond), completed: anchor.Add(18 * time.Millisecond), namespace: "ns", name: "j-1", code: 201},
		{user: "bench-peer", key: "watch jobs", received: anchor.Add(time.Second), code: 200},
		{user: "bench-ours", key: "patch cronjobs/status", received: anchor.Add(20 * time.Millisecond), completed: anchor.Add(25 * time.Millisecond), namespace: "ns", name: "c", code: 200},
		{user: "bench-ours", key: "get (non-resource)", received: anchor.Add(2 * time.Second), completed: anchor.Add(2 * time.Second)},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(request{})); diff != "" {
		t.Errorf("readAudit (-want,+got):\n%s", diff)
	}
}

func TestPopulationSchedules(t *testing.T) {
	specs := population(10, 4)
	want := []string{"* * * * *", "* * * * *", "* * * * *", "* * * * *", "0 * * * *", "0 0 * * *", "1 * * * *", "1 0 * * *", "2 * * * *", "2 0 * * *"}
	var got []string
	for _, s := range specs {
		got = append(got, s.schedule)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("population(10, 4) schedules (-want,+got):\n%s", diff)
	}
	// At the full size every minute of the hour has the same number of hourly runs due.
	perMinute := map[string]int{}
	for _, s := range population(10000, 100)[100:] {
		if m, rest, _ := strings.Cut(s.schedule, " "); rest == "* * * *" {
			perMinute[m]++
		}
	}
	if len(perMinute) != 60 || perMinute["0"] != 83 || perMinute["59"] != 82 {
		t.Errorf("hourly runs per minute of the hour: %d minutes, %d at :00, %d at :59; want 60, 83, 82",
			len(perMinute), perMinute["0"], perMinute["59"])
	}
}

func TestPlanAlternatesTheOrder(t *testing.T) {
	sz := sizes{repetitions: 3, singleMinutes: 2}
	_, phases, err := plan("single", sz)
	if err != nil {
		t.Fatal(err)
	}
	var got []Controller
	for _, p := range phases {
		got = append(got, p.controller)
	}
	if diff := cmp.Diff([]Controller{Ours, Peer, Peer, Ours, Ours, Peer}, got); diff != "" {
		t.Errorf("phase order (-want,+got):\n%s", diff)
	}
	if _, _, err := plan("nope", sz); err == nil {
		t.Error("plan of an unknown scenario: want an error")
	}
}

func TestProcFigures(t *testing.T) {
	rss, err := procPeakRSS(os.Getpid())
	if err != nil || rss < 1<<20 {
		t.Errorf("procPeakRSS(self) = %d, %v; want at least 1 MiB", rss, err)
	}
	if _, err := procCPUSeconds(os.Getpid()); err != nil {
		t.Errorf("procCPUSeconds(self): %v", err)
	}
}

func TestOursCorrect(t *testing.T) {
	run := &Run{Scenarios: []Scenario{{Name: "burst", Results: []Result{
		{Controller: Ours, Expected: 10},
		{Controller: Peer, Expected: 10, Lost: 2},
	}}}}
	if err := oursCorrect(run); err != nil {
		t.Errorf("the peer's lost runs failed the run: %v", err)
	}
	run.Scenarios[0].Results[0].Duplicates = 1
	if err := oursCorrect(run); err == nil || !strings.Contains(err.Error(), "duplicated 1 of 10") {
		t.Errorf("ours duplicating a run: got %v, want an error naming it", err)
	}
}
