package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
)

// File names Write writes into its directory.
const (
	resultsFile = "results.json"
	reportFile  = "report.md"
	chartFile   = "skew.png"
)

const mib = 1 << 20

// Figure names: the first column of a scenario table, and the keys of the targets.
const (
	figSkewP50         = "skew p50 (ms)"
	figSkewP99         = "skew p99 (ms)"
	figSkewMax         = "skew max (ms)"
	figCreateSkewP50   = "create-return skew p50 (ms)"
	figCreateSkewP99   = "create-return skew p99 (ms)"
	figRunsDue         = "runs due"
	figLost            = "lost"
	figDuplicated      = "duplicated"
	figRunsPerSecond   = "runs per second"
	figLimitShare      = "runs per second, % of the limit"
	figCatchUp         = "catch-up after restart (s)"
	figWritesPerRun    = "writes per run (excluding events)"
	figEventsPerRun    = "events per run"
	figReadsPerRun     = "reads (get/list) per run"
	figIdleRequestRate = "requests per second while idle"
	figIdleCPU         = "idle CPU (% of one core)"
	figCPUSeconds      = "CPU seconds"
	figCPUPerRun       = "CPU ms per run"
	figCPPerRun        = "kube-apiserver + etcd CPU ms per run"
	figPeakRSS         = "peak RSS (MiB)"
	figHeap            = "Go heap in use (MiB)"
	figStateScrapeP50  = "/metrics/state scrape p50 (ms)"
	figStateScrapeMax  = "/metrics/state scrape max (ms)"
	figStateSizeP50    = "/metrics/state size p50 (MiB, gzip)"
	figStateSizeMax    = "/metrics/state size max (MiB, gzip)"
	figStartSynced     = "time to start: caches synced (s)"
	figStartReconciled = "time to start: every CronJob reconciled (s)"
	figStartCPU        = "CPU seconds of the start"
	figStartRSS        = "peak RSS of the start (MiB)"
)

// figure is one row of a scenario table.
type figure struct {
	name   string
	format string // verb the value is printed with
	// value returns the figure of a, and false when a has no data for it.
	value func(a aggregate) (float64, bool)
}

// figures are the rows of a scenario table, in order.
var figures = []figure{
	{figSkewP50, "%.1f", percentileMs(skewsOf, 50)},
	{figSkewP99, "%.1f", percentileMs(skewsOf, 99)},
	{figSkewMax, "%.1f", percentileMs(skewsOf, 100)},
	{figCreateSkewP50, "%.1f", percentileMs(createSkewsOf, 50)},
	{figCreateSkewP99, "%.1f", percentileMs(createSkewsOf, 99)},
	{figRunsDue, "%.0f", ran(func(a aggregate) float64 { return float64(a.expected) })},
	{figLost, "%.0f", ran(func(a aggregate) float64 { return float64(a.lost) })},
	{figDuplicated, "%.0f", ran(func(a aggregate) float64 { return float64(a.duplicates) })},
	{figRunsPerSecond, "%.1f", nonzero(func(a aggregate) float64 { return a.runsPerSecond })},
	{figLimitShare, "%.0f", limitShare},
	{figCatchUp, "%.1f", nonzero(func(a aggregate) float64 { return a.catchUp.Seconds() })},
	{figWritesPerRun, "%.2f", perRun(func(a aggregate) int { return a.writes - a.eventWrites })},
	{figEventsPerRun, "%.2f", perRun(func(a aggregate) int { return a.eventWrites })},
	{figReadsPerRun, "%.2f", perRun(func(a aggregate) int { return a.reads })},
	{figIdleRequestRate, "%.3f", perIdleSecond(func(a aggregate) float64 { return float64(a.idleRequests) })},
	{figIdleCPU, "%.2f", perIdleSecond(func(a aggregate) float64 { return a.idleCPUSeconds * 100 })},
	{figCPUSeconds, "%.2f", ran(func(a aggregate) float64 { return a.cpuSeconds })},
	{figCPUPerRun, "%.2f", perRunF(func(a aggregate) float64 { return a.cpuSeconds * 1000 })},
	{figCPPerRun, "%.2f", perRunF(func(a aggregate) float64 { return a.controlPlaneCPUSeconds * 1000 })},
	{figPeakRSS, "%.1f", nonzero(func(a aggregate) float64 { return float64(a.peakRSSBytes) / mib })},
	{figHeap, "%.1f", oursOnly(nonzero(func(a aggregate) float64 { return float64(a.heapBytes) / mib }))},
	// Ours only (the peer has no such endpoint), and in the population's table only: the other scenarios
	// scrape it too, with a handful of CronJobs.
	{figStateScrapeP50, "%.1f", onlyIn("population", percentileMs(stateScrapesOf, 50))},
	{figStateScrapeMax, "%.1f", onlyIn("population", percentileMs(stateScrapesOf, 100))},
	{figStateSizeP50, "%.2f", onlyIn("population", stateSize(50))},
	{figStateSizeMax, "%.2f", onlyIn("population", stateSize(100))},
	{figStartSynced, "%.1f", largestStart(func(s results.Startup) float64 { return s.CachesSynced.Seconds() })},
	{figStartReconciled, "%.1f", largestStart(func(s results.Startup) float64 { return s.Reconciled.Seconds() })},
	{figStartCPU, "%.2f", largestStart(func(s results.Startup) float64 { return s.CPUSeconds })},
	{figStartRSS, "%.1f", largestStart(func(s results.Startup) float64 { return float64(s.PeakRSSBytes) / mib })},
}

// largestStart is the largest f of the starts measured, which has data when one was.
func largestStart(f func(results.Startup) float64) func(aggregate) (float64, bool) {
	return func(a aggregate) (float64, bool) {
		v := 0.0
		for _, s := range a.starts {
			v = max(v, f(s))
		}
		return v, len(a.starts) > 0
	}
}

func stateScrapesOf(a aggregate) []time.Duration { return a.stateScrapeDurations }

// stateSize is the p-th percentile of the /metrics/state responses' size on the wire, in MiB.
func stateSize(p float64) func(aggregate) (float64, bool) {
	return func(a aggregate) (float64, bool) {
		return float64(results.Percentile(a.stateScrapeBytes, p)) / mib, len(a.stateScrapeBytes) > 0
	}
}

// onlyIn has data in the scenario named scenario only.
func onlyIn(scenario string, f func(aggregate) (float64, bool)) func(aggregate) (float64, bool) {
	return func(a aggregate) (float64, bool) {
		if a.scenario != scenario {
			return 0, false
		}
		return f(a)
	}
}

func skewsOf(a aggregate) []time.Duration { return a.skews }

// limitShare is a's runs per second as a percentage of the scenario's limit (LimitRunsPerSecond).
func limitShare(a aggregate) (float64, bool) {
	if a.runsPerSecond == 0 || a.limit == 0 {
		return 0, false
	}
	return a.runsPerSecond / a.limit * 100, true
}
func createSkewsOf(a aggregate) []time.Duration { return a.createSkews }

func percentileMs(ds func(aggregate) []time.Duration, p float64) func(aggregate) (float64, bool) {
	return func(a aggregate) (float64, bool) {
		s := ds(a)
		return milliseconds(results.Percentile(s, p)), len(s) > 0
	}
}

// ran has data whenever the controller ran the scenario at least once.
func ran(f func(aggregate) float64) func(aggregate) (float64, bool) {
	return func(a aggregate) (float64, bool) { return f(a), a.repetitions > 0 }
}

// nonzero has data when the value is not 0, for figures a scenario or controller may not measure.
func nonzero(f func(aggregate) float64) func(aggregate) (float64, bool) {
	return func(a aggregate) (float64, bool) { v := f(a); return v, v != 0 }
}

// perRun divides by the number of Jobs observed.
func perRun(f func(aggregate) int) func(aggregate) (float64, bool) {
	return perRunF(func(a aggregate) float64 { return float64(f(a)) })
}

// perRunF divides f by the number of Jobs observed.
func perRunF(f func(aggregate) float64) func(aggregate) (float64, bool) {
	return func(a aggregate) (float64, bool) {
		if len(a.skews) == 0 {
			return 0, false
		}
		return f(a) / float64(len(a.skews)), true
	}
}

// perIdleSecond divides by the idle time.
func perIdleSecond(f func(aggregate) float64) func(aggregate) (float64, bool) {
	return func(a aggregate) (float64, bool) {
		if a.idleSeconds <= 0 {
			return 0, false
		}
		return f(a) / a.idleSeconds, true
	}
}

func oursOnly(f func(aggregate) (float64, bool)) func(aggregate) (float64, bool) {
	return func(a aggregate) (float64, bool) {
		if a.controller != results.Ours {
			return 0, false
		}
		return f(a)
	}
}

// target is a goal for one figure of ours: a bound on its value, or on its ratio to the peer's.
type target struct {
	text string // as printed in the target column
	// met reports whether ours' value v meets it; peer is the peer's value, peerOK false when there is none
	// (a ratio target is then not met).
	met func(v, peer float64, peerOK bool) bool
}

func atMost(limit float64) target {
	return target{"≤ " + strconv.FormatFloat(limit, 'f', -1, 64), func(v, _ float64, _ bool) bool { return v <= limit }}
}

func atLeast(limit float64) target {
	return target{"≥ " + strconv.FormatFloat(limit, 'f', -1, 64), func(v, _ float64, _ bool) bool { return v >= limit }}
}

func exactly(want float64) target { //nolint:unparam // of a kind with atLeast and atMost; every target is 0 today
	return target{strconv.FormatFloat(want, 'f', -1, 64), func(v, _ float64, _ bool) bool { return v == want }}
}

// ratioAtMost and ratioAtLeast bound ours/peer.
func ratioAtMost(r float64) target {
	return target{"≤ " + strconv.FormatFloat(r, 'f', -1, 64) + " × peer", func(v, p float64, ok bool) bool { return ok && p > 0 && v/p <= r }}
}

func ratioAtLeast(r float64) target {
	return target{"≥ " + strconv.FormatFloat(r, 'f', -1, 64) + " × peer", func(v, p float64, ok bool) bool { return ok && p > 0 && v/p >= r }}
}

// allOf is met when every one of ts is.
func allOf(ts ...target) target {
	texts := make([]string, len(ts))
	for i, t := range ts {
		texts[i] = t.text
	}
	return target{strings.Join(texts, ", "), func(v, p float64, ok bool) bool {
		for _, t := range ts {
			if !t.met(v, p, ok) {
				return false
			}
		}
		return true
	}}
}

// everyScenarioTargets apply to every scenario; scenarioTargets add to them by scenario name.
var (
	everyScenarioTargets = map[string]target{
		figWritesPerRun: atMost(2),
		figLost:         exactly(0),
		figDuplicated:   exactly(0),
	}
	// The CPU targets are issue 28's: ours' own CPU no more than the peer's, the control plane's no more
	// than 1.2 × the peer's (a custom resource costs the API server more than a built-in type).
	scenarioTargets = map[string]map[string]target{
		"single": {
			figSkewP50: atMost(25), figSkewP99: atMost(150),
			figCPUPerRun: ratioAtMost(1), figCPPerRun: ratioAtMost(1.2),
		},
		"burst": {
			figSkewMax:       allOf(atMost(6000), ratioAtMost(0.8)),
			figRunsPerSecond: allOf(atLeast(250), ratioAtLeast(1.25)),
			figLimitShare:    atLeast(60),
			figCPUPerRun:     ratioAtMost(1),
			figCPPerRun:      ratioAtMost(1.2),
		},
		"population": {
			figSkewP50: ratioAtMost(1), figSkewMax: ratioAtMost(1),
			figHeap: atMost(150), figIdleRequestRate: exactly(0),
			figCPUSeconds: ratioAtMost(1), figCPPerRun: ratioAtMost(1.2),
		},
		"restart": {figDuplicated: exactly(0), figCatchUp: ratioAtMost(0.8)},
	}
)

func targetFor(scenario, fig string) (target, bool) {
	if t, ok := scenarioTargets[scenario][fig]; ok {
		return t, true
	}
	t, ok := everyScenarioTargets[fig]
	return t, ok
}

// renderMarkdown returns the report of run as Markdown: a header describing the run, one table per
// scenario comparing ours with the peer (repetitions aggregated; times in ms unless a row says otherwise,
// memory in MiB), the requests by verb and resource, and a link to the chart renderChart draws (skew.png,
// next to the report). The output depends only on run.
func renderMarkdown(run *results.Run) string {
	var b strings.Builder
	b.WriteString("# CronJob controller benchmark: ours vs the built-in controller\n\n")
	writeHeader(&b, run)
	for _, s := range run.Scenarios {
		writeScenario(&b, s)
	}
	b.WriteString("## Requests by verb and resource\n\n")
	for _, s := range run.Scenarios {
		writeRequests(&b, s)
	}
	fmt.Fprintf(&b, "![skew distributions](%s)\n", chartFile)
	return b.String()
}

func writeHeader(b *strings.Builder, run *results.Run) {
	m, st := run.Machine, run.Settings
	fmt.Fprintf(b, "- started: %s\n", run.Started.UTC().Format(time.RFC3339))
	fmt.Fprintf(b, "- duration: %s\n", formatDuration(run.Duration))
	fmt.Fprintf(b, "- mode: %s\n", run.Mode)
	fmt.Fprintf(b, "- machine: %d CPUs, %s, %.1f GiB memory, kernel %s\n", m.CPUs, m.CPUModel, m.MemoryGiB, m.Kernel)
	fmt.Fprintf(b, "- versions: %s\n", joinSorted(run.Versions, "%s %s"))
	fmt.Fprintf(b, "- settings: QPS %g, burst %d, ours' max concurrent reconciles %d, "+
		"peer's concurrent syncs %d, repetitions %d\n",
		st.QPS, st.Burst, st.OursMaxConcurrentReconciles, st.PeerConcurrentSyncs, st.Repetitions)
	fmt.Fprintf(b, "- bench flags: %s\n\n", joinSorted(st.Flags, "`%s=%s`"))
}

// joinSorted formats each key and value of m with format, in key order, joined by commas; "none" when m
// is empty.
func joinSorted(m map[string]string, format string) string {
	if len(m) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf(format, k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func formatDuration(d time.Duration) string {
	if d >= time.Second {
		d = d.Round(time.Second)
	}
	return d.String()
}

func writeScenario(b *strings.Builder, s results.Scenario) {
	fmt.Fprintf(b, "## %s\n\n", s.Name)
	if s.Description != "" {
		fmt.Fprintf(b, "%s\n\n", s.Description)
	}
	ours, peer := aggregateResults(s, results.Ours), aggregateResults(s, results.Peer)
	if ours.repetitions == 0 && peer.repetitions == 0 {
		b.WriteString("No results.\n\n")
		return
	}
	b.WriteString("| figure | ours | peer | ours/peer | target | met |\n")
	b.WriteString("|---|---:|---:|---:|---|---|\n")
	for _, f := range figures {
		if row, ok := tableRow(s.Name, f, ours, peer); ok {
			b.WriteString(row + "\n")
		}
	}
	b.WriteString("\n")
	if len(ours.starts) > 0 || len(peer.starts) > 0 {
		b.WriteString(startNote)
	}
	if len(s.LimitRunsPerSecond) > 0 {
		fmt.Fprintf(b, "Limit: with no controller running, the bench itself created Jobs at %.1f per second "+
			"(mean of %d), as many as the burst has CronJobs, with as many requests in flight as ours has workers.\n\n",
			ours.limit, len(s.LimitRunsPerSecond))
	}
}

// startNote says how the start rows were observed.
const startNote = "Time to start: the controller stopped and started again with its CronJobs present, timed from " +
	"its exec to the first poll of its metrics (every 100 ms, so up to 0.1 s late) that showed, on its CronJob " +
	"workqueue, a first CronJob handed to a worker (`workqueue_queue_duration_seconds_count` > 0: its workers " +
	"start once its caches have synced) and then as many adds as CronJobs with the queue empty " +
	"(`workqueue_adds_total` ≥ CronJobs, `workqueue_depth` 0: every CronJob reconciled); its CPU seconds and peak " +
	"RSS then. The largest of the repetitions.\n\n"

// tableRow returns the row of figure f, or false when neither controller has data for it and it has no
// target (a target row stays, so a missing figure shows as not met).
func tableRow(scenario string, f figure, ours, peer aggregate) (string, bool) {
	ov, oursOK := f.value(ours)
	pv, peerOK := f.value(peer)
	t, hasTarget := targetFor(scenario, f.name)
	if !oursOK && !peerOK && !hasTarget {
		return "", false
	}
	ratio := "n/a"
	if oursOK && peerOK && pv != 0 {
		ratio = fmt.Sprintf("%.2f", ov/pv)
	}
	var goal, met string
	if hasTarget {
		goal, met = t.text, "no"
		if oursOK && t.met(ov, pv, peerOK) {
			met = "yes"
		}
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s |",
		f.name, formatValue(f.format, ov, oursOK), formatValue(f.format, pv, peerOK), ratio, goal, met), true
}

func formatValue(format string, v float64, ok bool) string {
	if !ok {
		return "n/a"
	}
	return fmt.Sprintf(format, v)
}

func writeRequests(b *strings.Builder, s results.Scenario) {
	fmt.Fprintf(b, "### %s\n\n", s.Name)
	ours, peer := aggregateResults(s, results.Ours), aggregateResults(s, results.Peer)
	keys := requestKeys(ours, peer)
	if len(keys) == 0 {
		b.WriteString("No requests recorded.\n\n")
		return
	}
	b.WriteString("| request | ours | peer |\n|---|---:|---:|\n")
	for _, k := range keys {
		fmt.Fprintf(b, "| %s | %d | %d |\n", k, ours.requests[k], peer.requests[k])
	}
	b.WriteString("\n")
}

func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Write creates dir (and its parents) and writes run into it as results.json (indented JSON,
// readResults reads it back), report.md (renderMarkdown) and skew.png (renderChart). Existing files are
// replaced.
func Write(run *results.Run, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	data, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding results: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, resultsFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, reportFile), []byte(renderMarkdown(run)), 0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return renderChart(run, filepath.Join(dir, chartFile))
}

// Rerender rewrites report.md and skew.png in dir from its results.json, as Write would have written them:
// for a results directory measured before a change to the report's figures or targets. results.json is
// left as it is. An error names the file that could not be read or written.
func Rerender(dir string) error {
	run, err := readResults(filepath.Join(dir, resultsFile))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, reportFile), []byte(renderMarkdown(run)), 0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return renderChart(run, filepath.Join(dir, chartFile))
}

// readResults loads a Run from the results.json at path, as Write wrote it.
func readResults(path string) (*results.Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	var run results.Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, fmt.Errorf("decoding results %s: %w", path, err)
	}
	return &run, nil
}
