package measure

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cronjob-operator/cronjob-operator/test/oracle"
)

// anchor is the fixed instant the tests count from.
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
			if got := NextMinute(tc.in); !got.Equal(tc.want) {
				t.Errorf("NextMinute(%s) = %s, want %s", tc.in, got, tc.want)
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
	due := DueRuns(cronJobs, anchor, anchor.Add(3*time.Minute))
	if len(due) != 5 {
		t.Fatalf("DueRuns = %d runs, want 5: %v", len(due), due)
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
	lost, dups := LostAndDuplicates(due, jobs)
	if lost != 2 || dups != 1 {
		t.Errorf("LostAndDuplicates = lost %d, duplicates %d; want 2 and 1", lost, dups)
	}
	in := JobsFor(jobs, cronJobs, anchor.Add(time.Minute), anchor.Add(3*time.Minute))
	if len(in) != 3 {
		t.Errorf("JobsFor [12:01, 12:03] = %d Jobs, want 3 (the stranger's is left out)", len(in))
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
	if got, want := RunsPerSecond(jobs), 125.0; got != want {
		t.Errorf("RunsPerSecond = %v, want %v (the mean of 200 and 50)", got, want)
	}
	if got := RunsPerSecond(nil); got != 0 {
		t.Errorf("RunsPerSecond(nil) = %v, want 0", got)
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
