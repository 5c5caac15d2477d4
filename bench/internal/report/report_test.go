package report

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
)

var reportAnchor = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// millis returns vs, in milliseconds, as durations.
func millis(vs ...float64) []time.Duration {
	ds := make([]time.Duration, len(vs))
	for i, v := range vs {
		ds[i] = time.Duration(v * float64(time.Millisecond))
	}
	return ds
}

// testRun is a small hand-built run: "single" with two repetitions of each controller, "burst" where the
// peer observed no Job (and the limit was measured twice), "population" where no Job was observed but ours'
// /metrics/state was scraped, and "empty" without results.
func testRun() *results.Run {
	// single is r as repetition rep of c over a five-minute window, with skews.
	single := func(c results.Controller, rep int, skews []time.Duration, r results.Result) results.Result {
		r.Controller, r.Repetition, r.Skews = c, rep, skews
		r.Start, r.End = reportAnchor, reportAnchor.Add(5*time.Minute)
		return r
	}
	window := func(c results.Controller, rep int) results.Result { return single(c, rep, nil, results.Result{}) }
	oursSingle := results.Result{
		Expected: 5,
		Requests: map[string]int{
			"create jobs": 5, "patch cronjobs/status": 5, "create events": 5, "get cronjobs": 4, "list cronjobs": 1,
			"watch cronjobs": 1,
		},
		IdleSeconds: 300, IdleCPUSeconds: 1.5, CPUSeconds: 2.5,
	}
	peerSingle := results.Result{
		Expected: 5,
		Requests: map[string]int{
			"create jobs": 5, "update cronjobs/status": 10, "create events": 5, "list jobs": 4, "get cronjobs": 6,
		},
		IdleSeconds: 300, IdleRequests: 30, IdleCPUSeconds: 0.6, CPUSeconds: 5, PeakRSSBytes: 100 * mib,
	}
	ours0, ours1, peer0, peer1 := oursSingle, oursSingle, peerSingle, peerSingle
	ours0.PeakRSSBytes, ours0.HeapBytes = 40*mib, 20*mib
	// Scraped in every scenario, reported in the population's only.
	ours0.StateScrapes = []results.Scrape{{Duration: time.Millisecond, WireBytes: 1000}}
	ours1.PeakRSSBytes, ours1.HeapBytes, ours1.Duplicates = 50*mib, 30*mib, 1

	burstOurs0, burstOurs1, burstPeer := window(results.Ours, 0), window(results.Ours, 1), window(results.Peer, 0)
	burstOurs0.Skews, burstOurs0.CreateSkews, burstOurs0.RunsPerSecond = millis(1000, 2000), millis(5, 15), 300
	burstOurs1.Skews, burstOurs1.RunsPerSecond = millis(7000), 200
	burstPeer.Expected, burstPeer.Lost, burstPeer.RunsPerSecond = 3, 3, 100

	population := window(results.Ours, 0)
	population.StateScrapes = []results.Scrape{
		{Duration: 40 * time.Millisecond, WireBytes: mib},
		{Duration: 120 * time.Millisecond, WireBytes: 3 * mib / 2},
		{Duration: 80 * time.Millisecond, WireBytes: mib / 2},
	}
	population.Startup = &results.Startup{CronJobs: 1000, CachesSynced: 1500 * time.Millisecond,
		Reconciled: 4 * time.Second, CPUSeconds: 3.25, PeakRSSBytes: 100 * mib}
	// A second repetition of ours whose start was not measured, and one whose start was longer but used
	// less CPU: each row is the largest.
	populationOurs1, populationOurs2 := window(results.Ours, 1), window(results.Ours, 2)
	populationOurs2.Startup = &results.Startup{CronJobs: 1000, CachesSynced: time.Second,
		Reconciled: 5 * time.Second, CPUSeconds: 2, PeakRSSBytes: 90 * mib}
	populationPeer := window(results.Peer, 0)
	populationPeer.Startup = &results.Startup{CronJobs: 1000, CachesSynced: 2 * time.Second,
		Reconciled: 8 * time.Second, CPUSeconds: 6.5, PeakRSSBytes: 150 * mib}

	return &results.Run{
		Started:  reportAnchor,
		Duration: 42*time.Minute + 300*time.Millisecond,
		Mode:     "quick",
		Machine:  results.Machine{CPUs: 2, CPUModel: "Test CPU", MemoryGiB: 7.75, Kernel: "6.8.0"},
		Versions: map[string]string{"ours": "v0.3.0", "etcd": "3.6.0", "go": "go1.26.8"},
		Settings: results.Settings{
			QPS: 50, Burst: 100, OursMaxConcurrentReconciles: 8, PeerConcurrentSyncs: 5, Repetitions: 2,
			Flags: map[string]string{"reps": "2", "mode": "quick"},
		},
		Scenarios: []results.Scenario{
			{Name: "single", Description: "One CronJob due every minute.", Results: []results.Result{
				single(results.Ours, 0, millis(10, 20, 30, 40, 50), ours0),
				single(results.Peer, 0, millis(110, 120, 130, 140, 150), peer0),
				single(results.Ours, 1, millis(60, 70, 80, 90, 100), ours1),
				single(results.Peer, 1, millis(160, 170, 180, 190, 200), peer1),
			}},
			{Name: "burst", Results: []results.Result{burstOurs0, burstPeer, burstOurs1}, LimitRunsPerSecond: []float64{300, 500}},
			{Name: "population", Results: []results.Result{population, populationPeer, populationOurs1, populationOurs2}},
			{Name: "empty"},
		},
	}
}

// sectionRows returns the table rows of the "## name" section of md, by their first cell.
func sectionRows(t *testing.T, md, name string) map[string]string {
	t.Helper()
	_, section, ok := strings.Cut(md, "\n## "+name+"\n")
	if !ok {
		t.Fatalf("no section %q in:\n%s", name, md)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for line := range strings.SplitSeq(section, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		figure, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		rows[figure] = line
	}
	return rows
}

func TestRenderMarkdownScenarioTables(t *testing.T) {
	header := "| figure | ours | peer | ours/peer | target | met |"
	cases := map[string]struct {
		section string
		want    []string
	}{
		"two repetitions each, skews merged, counts summed, memory the maximum": {
			section: "single",
			want: []string{
				header,
				"| skew p50 (ms) | 50.0 | 150.0 | 0.33 | ≤ 25 | no |",
				"| skew p99 (ms) | 100.0 | 200.0 | 0.50 | ≤ 150 | yes |",
				"| skew max (ms) | 100.0 | 200.0 | 0.50 |  |  |",
				"| runs due | 10 | 10 | 1.00 |  |  |",
				"| lost | 0 | 0 | n/a | 0 | yes |",
				"| duplicated | 1 | 0 | n/a | 0 | no |",
				"| writes per run (excluding events) | 2.00 | 3.00 | 0.67 | ≤ 2 | yes |",
				"| events per run | 1.00 | 1.00 | 1.00 |  |  |",
				"| reads (get/list) per run | 1.00 | 2.00 | 0.50 |  |  |",
				"| requests per second while idle | 0.000 | 0.100 | 0.00 |  |  |",
				"| idle CPU (% of one core) | 0.50 | 0.20 | 2.50 |  |  |",
				"| CPU seconds | 5.00 | 10.00 | 0.50 |  |  |",
				"| CPU ms per run | 500.00 | 1000.00 | 0.50 | ≤ 1 × peer | yes |",
				// No control-plane CPU recorded on either side: a ratio to 0 is not met.
				"| kube-apiserver + etcd CPU ms per run | 0.00 | 0.00 | n/a | ≤ 1.2 × peer | no |",
				"| peak RSS (MiB) | 50.0 | 100.0 | 0.50 |  |  |",
				"| Go heap in use (MiB) | 30.0 | n/a | n/a |  |  |",
			},
		},
		"peer observed no Job, runs per second averaged over the repetitions measuring it": {
			section: "burst",
			want: []string{
				header,
				"| skew p50 (ms) | 2000.0 | n/a | n/a |  |  |",
				"| skew p99 (ms) | 7000.0 | n/a | n/a |  |  |",
				"| skew max (ms) | 7000.0 | n/a | n/a | ≤ 6000, ≤ 0.8 × peer | no |",
				"| create-return skew p50 (ms) | 5.0 | n/a | n/a |  |  |",
				"| create-return skew p99 (ms) | 15.0 | n/a | n/a |  |  |",
				"| runs due | 0 | 3 | 0.00 |  |  |",
				"| lost | 0 | 3 | 0.00 | 0 | yes |",
				"| duplicated | 0 | 0 | n/a | 0 | yes |",
				"| runs per second | 250.0 | 100.0 | 2.50 | ≥ 250, ≥ 1.25 × peer | yes |",
				// The limit is the mean of the two repetitions, 400 per second.
				"| runs per second, % of the limit | 62 | 25 | 2.50 | ≥ 60 | yes |",
				"| writes per run (excluding events) | 0.00 | n/a | n/a | ≤ 2 | yes |",
				"| events per run | 0.00 | n/a | n/a |  |  |",
				"| reads (get/list) per run | 0.00 | n/a | n/a |  |  |",
				"| CPU seconds | 0.00 | 0.00 | n/a |  |  |",
				"| CPU ms per run | 0.00 | n/a | n/a | ≤ 1 × peer | no |",
				"| kube-apiserver + etcd CPU ms per run | 0.00 | n/a | n/a | ≤ 1.2 × peer | no |",
			},
		},
		"no Job observed: rows with a target stay, not met; ours' /metrics/state scrapes; the starts, the largest of the repetitions": {
			section: "population",
			want: []string{
				header,
				"| runs due | 0 | 0 | n/a |  |  |",
				"| lost | 0 | 0 | n/a | 0 | yes |",
				"| duplicated | 0 | 0 | n/a | 0 | yes |",
				"| writes per run (excluding events) | n/a | n/a | n/a | ≤ 2 | no |",
				"| requests per second while idle | n/a | n/a | n/a | 0 | no |",
				"| skew p50 (ms) | n/a | n/a | n/a | ≤ 1 × peer | no |",
				"| skew max (ms) | n/a | n/a | n/a | ≤ 1 × peer | no |",
				"| CPU seconds | 0.00 | 0.00 | n/a | ≤ 1 × peer | no |",
				"| kube-apiserver + etcd CPU ms per run | n/a | n/a | n/a | ≤ 1.2 × peer | no |",
				"| Go heap in use (MiB) | n/a | n/a | n/a | ≤ 150 | no |",
				"| /metrics/state scrape p50 (ms) | 80.0 | n/a | n/a |  |  |",
				"| /metrics/state scrape max (ms) | 120.0 | n/a | n/a |  |  |",
				"| /metrics/state size p50 (MiB, gzip) | 1.00 | n/a | n/a |  |  |",
				"| /metrics/state size max (MiB, gzip) | 1.50 | n/a | n/a |  |  |",
				"| time to start: caches synced (s) | 1.5 | 2.0 | 0.75 |  |  |",
				"| time to start: every CronJob reconciled (s) | 5.0 | 8.0 | 0.62 |  |  |",
				"| CPU seconds of the start | 3.25 | 6.50 | 0.50 |  |  |",
				"| peak RSS of the start (MiB) | 100.0 | 150.0 | 0.67 |  |  |",
			},
		},
		"no results: no table": {
			section: "empty",
			want:    []string{},
		},
	}
	md := renderMarkdown(testRun())
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want := map[string]string{}
			for _, row := range tc.want {
				figure, _, _ := strings.Cut(strings.TrimPrefix(row, "| "), " |")
				want[figure] = row
			}
			if diff := cmp.Diff(want, sectionRows(t, md, tc.section)); diff != "" {
				t.Errorf("rows of %s (-want,+got):\n%s", tc.section, diff)
			}
		})
	}
}

func TestRenderMarkdownHeaderAndRequests(t *testing.T) {
	md := renderMarkdown(testRun())
	for _, want := range []string{
		"# CronJob controller benchmark: ours vs the built-in controller\n\n" +
			"- started: 2026-11-30T12:00:00Z\n" +
			"- duration: 42m0s\n" +
			"- mode: quick\n" +
			"- machine: 2 CPUs, Test CPU, 7.8 GiB memory, kernel 6.8.0\n" +
			"- versions: etcd 3.6.0, go go1.26.8, ours v0.3.0\n" +
			"- settings: QPS 50, burst 100, ours' max concurrent reconciles 8, peer's concurrent syncs 5, repetitions 2\n" +
			"- bench flags: `mode=quick`, `reps=2`\n\n## single\n\nOne CronJob due every minute.\n\n",
		"## Requests by verb and resource\n\n### single\n\n| request | ours | peer |\n|---|---:|---:|\n" +
			"| create events | 10 | 10 |\n" +
			"| create jobs | 10 | 10 |\n" +
			"| get cronjobs | 8 | 12 |\n" +
			"| list cronjobs | 2 | 0 |\n" +
			"| list jobs | 0 | 8 |\n" +
			"| patch cronjobs/status | 10 | 0 |\n" +
			"| update cronjobs/status | 0 | 20 |\n" +
			"| watch cronjobs | 2 | 0 |\n\n### burst\n\nNo requests recorded.\n\n",
		"## empty\n\nNo results.\n\n",
		"| peak RSS of the start (MiB) | 100.0 | 150.0 | 0.67 |  |  |\n\nTime to start: the controller stopped and started again",
		"\n![skew distributions](skew.png)\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks\n%s\nreport:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "Time to start: "); n != 1 {
		t.Errorf("the note on the start rows is in the report %d times, want once (the population's)", n)
	}
	if again := renderMarkdown(testRun()); again != md {
		t.Errorf("renderMarkdown is not deterministic (-first,+second):\n%s", cmp.Diff(md, again))
	}
}

func TestWrite(t *testing.T) {
	run := testRun()
	dir := filepath.Join(t.TempDir(), "results", "2026-11-30")
	if err := Write(run, dir); err != nil {
		t.Fatalf("Write: %v", err)
	}

	assertRendered(t, dir, run)

	got, err := readResults(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatalf("readResults: %v", err)
	}
	if diff := cmp.Diff(run, got); diff != "" {
		t.Errorf("results.json round trip (-want,+got):\n%s", diff)
	}
}

// resultsBeforeStarts is a results.json as the bench wrote it before it recorded /metrics/state scrapes and
// starts (bench/results/20261203T074440Z-custom, its skews cut to two).
const resultsBeforeStarts = `{
  "started": "2026-12-03T07:44:40Z", "duration": 816000000000, "mode": "custom",
  "machine": {"cpus": 2, "cpuModel": "Test CPU", "memoryGiB": 7.7, "kernel": "6.8.0"},
  "versions": {"go": "go1.26.8"},
  "settings": {"qps": 1000, "burst": 2000, "oursMaxConcurrentReconciles": 4, "peerConcurrentSyncs": 5, "repetitions": 1, "flags": {"scenarios": "population"}},
  "scenarios": [{"name": "population", "description": "10000 CronJobs: 100 minutely.", "results": [{
    "controller": "ours", "repetition": 0, "start": "2026-12-03T07:46:00Z", "end": "2026-12-03T07:55:30Z",
    "skews": [324700000, 1374900000], "createSkews": [322100000], "expected": 2, "lost": 0, "duplicates": 0,
    "requests": {"create jobs": 2, "update cronjobs/status": 2}, "idleSeconds": 490, "idleRequests": 0,
    "idleCPUSeconds": 0.25, "cpuSeconds": 9.15, "controlPlaneCPUSeconds": 51.6, "peakRSSBytes": 155818393,
    "heapBytes": 100873011
  }]}]
}
`

func TestReadResultsWrittenBeforeStartsAndScrapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, []byte(resultsBeforeStarts), 0o600); err != nil {
		t.Fatal(err)
	}
	run, err := readResults(path)
	if err != nil {
		t.Fatalf("readResults of an older results.json: %v", err)
	}
	r := run.Scenarios[0].Results[0]
	if r.Startup != nil || r.StateScrapes != nil || r.HeapBytes != 100873011 {
		t.Errorf("older result: startup %v, state scrapes %v, heap %d; want none, none, 100873011", r.Startup, r.StateScrapes, r.HeapBytes)
	}
	rows := sectionRows(t, renderMarkdown(run), "population")
	for _, absent := range []string{figStartSynced, figStartReconciled, figStartCPU, figStartRSS, figStateScrapeP50, figStateSizeMax} {
		if row, ok := rows[absent]; ok {
			t.Errorf("the report of an older result has the row %q", row)
		}
	}
	if want := "| Go heap in use (MiB) | 96.2 | n/a | n/a | ≤ 150 | yes |"; rows[figHeap] != want {
		t.Errorf("heap row = %q, want %q", rows[figHeap], want)
	}
}

// assertRendered checks that dir holds run's report.md, as renderMarkdown renders it, and a skew.png.
func assertRendered(t *testing.T, dir string, run *results.Run) {
	t.Helper()
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(renderMarkdown(run), string(report)); diff != "" {
		t.Errorf("report.md (-want,+got):\n%s", diff)
	}
	assertPNG(t, filepath.Join(dir, "skew.png"))
}

func TestRerender(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := os.WriteFile(path, []byte(resultsBeforeStarts), 0o600); err != nil {
		t.Fatal(err)
	}
	// A report from before a change of targets, to be replaced.
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte("stale"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Rerender(dir); err != nil {
		t.Fatalf("Rerender: %v", err)
	}

	run, err := readResults(path)
	if err != nil {
		t.Fatal(err)
	}
	assertRendered(t, dir, run)
	kept, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(kept) != resultsBeforeStarts {
		t.Error("Rerender rewrote results.json; it must leave the measurement as it is")
	}
}

func TestRerenderWithoutResults(t *testing.T) {
	err := Rerender(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "results.json") {
		t.Fatalf("Rerender of a directory without results.json: got %v, want an error naming results.json", err)
	}
}

func TestReadResultsMissingFile(t *testing.T) {
	if _, err := readResults(filepath.Join(t.TempDir(), "results.json")); err == nil {
		t.Error("readResults of a missing file succeeded")
	}
}

func TestRenderChart(t *testing.T) {
	onlyPeer := results.Result{Controller: results.Peer, Skews: millis(0.2, 3, 40, 500)}
	cases := map[string]*results.Run{
		"one controller without skews": {Scenarios: []results.Scenario{
			{Name: "single", Results: []results.Result{{Controller: results.Ours}, onlyPeer}},
		}},
		"all skews under 1 ms": {Scenarios: []results.Scenario{
			{Name: "single", Results: []results.Result{{Controller: results.Ours, Skews: millis(0, 0.5)}}},
		}},
		"no skews at all": {Scenarios: []results.Scenario{{Name: "single"}, {Name: "burst"}}},
		"five panels in two rows, one of many skews": {Scenarios: []results.Scenario{
			{Name: "a", Results: []results.Result{onlyPeer}}, {Name: "b", Results: []results.Result{onlyPeer}},
			{Name: "c", Results: []results.Result{onlyPeer}}, {Name: "d", Results: []results.Result{onlyPeer}},
			{Name: "e", Results: []results.Result{{Controller: results.Ours, Skews: manySkews(5001)}}},
		}},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "skew.png")
			if err := renderChart(run, path); err != nil {
				t.Fatalf("renderChart: %v", err)
			}
			assertPNG(t, path)
		})
	}
}

func TestRenderChartUnwritablePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "skew.png")
	err := renderChart(testRun(), path)
	if err == nil || !strings.HasPrefix(err.Error(), "rendering chart: ") {
		t.Errorf("renderChart into a missing directory = %v, want a rendering chart error", err)
	}
}

func manySkews(n int) []time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = time.Duration(i) * time.Millisecond
	}
	return ds
}

func assertPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() == 0 || b.Dy() == 0 {
		t.Errorf("%s is %dx%d", path, b.Dx(), b.Dy())
	}
}
