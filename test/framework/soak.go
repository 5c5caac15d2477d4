package framework

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kinds of leader kill in a soak.
const (
	// GracefulKill stops the leader the way a rollout or a pod delete does: it releases its Lease.
	GracefulKill = "graceful"
	// HardKill stops the leader the way a crash does: its Lease stays held until it expires.
	HardKill = "hard"
)

// SoakKill is one kill of the leader in a soak and what followed it.
type SoakKill struct {
	// Kind is GracefulKill or HardKill.
	Kind string `json:"kind"`
	// Victim and Successor are the Lease holder identities before and after the kill.
	Victim    string `json:"victim"`
	Successor string `json:"successor"`
	// Takeover is the time from the kill being issued to the acquireTime the successor wrote in the Lease.
	Takeover time.Duration `json:"-"`
	// FirstRun is the time from the kill being issued to the oracle seeing the Job the successor started
	// for the run that came due at the kill; zero where no run was due (the kind soak).
	FirstRun time.Duration `json:"-"`
}

// soakKillJSON is SoakKill with durations in seconds.
type soakKillJSON struct {
	SoakKill
	TakeoverSeconds float64 `json:"takeoverSeconds"`
	FirstRunSeconds float64 `json:"firstRunSeconds,omitempty"`
}

// SoakResult is what a soak did and found: its kills, the runs the oracle counted, and whether the spec
// passed. Write records it as JSON and markdown.
type SoakResult struct {
	// Layer names the soak ("envtest", "kind").
	Layer string
	// Definitions says, for the report, what the figures measure.
	Definitions map[string]string
	Started     time.Time
	Finished    time.Time
	Kills       []SoakKill
	Runs        RunCounts
	// Passed is false if the spec failed, so that a partial result is not mistaken for a clean one.
	Passed bool
}

// RunCounts compares the runs an oracle saw with the runs that were due.
type RunCounts struct {
	// Due is the number of scheduled times that were due.
	Due int `json:"due"`
	// Started is the number of Jobs seen for those and any other times.
	Started int `json:"started"`
	// Lost is the number of due times without a Job.
	Lost int `json:"lost"`
	// Duplicated is the number of Jobs beyond the first for a due time.
	Duplicated int `json:"duplicated"`
	// Unexpected is the number of Jobs for times that were not due.
	Unexpected int `json:"unexpected"`
}

// CountRuns compares the scheduled times of the Jobs seen (JobOracle.ScheduledTimes) with the times due.
// Instants are compared as such, whatever their location.
func CountRuns(seen, due []time.Time) RunCounts {
	counts := map[int64]int{}
	for _, at := range seen {
		counts[at.UnixNano()]++
	}
	c := RunCounts{Due: len(due), Started: len(seen)}
	for _, at := range due {
		switch n := counts[at.UnixNano()]; n {
		case 0:
			c.Lost++
		default:
			c.Duplicated += n - 1
		}
		delete(counts, at.UnixNano())
	}
	for _, n := range counts {
		c.Unexpected += n
	}
	return c
}

// Stats are the nearest-rank percentiles of a set of durations.
type Stats struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"-"`
	P90 time.Duration `json:"-"`
	Max time.Duration `json:"-"`
}

// MarshalJSON writes the durations in seconds.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N   int     `json:"n"`
		P50 float64 `json:"p50Seconds"`
		P90 float64 `json:"p90Seconds"`
		Max float64 `json:"maxSeconds"`
	}{s.N, seconds(s.P50), seconds(s.P90), seconds(s.Max)})
}

// StatsOf returns the statistics of ds; zero for none.
func StatsOf(ds []time.Duration) Stats {
	if len(ds) == 0 {
		return Stats{}
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	rank := func(p float64) time.Duration { return sorted[int(math.Ceil(p*float64(len(sorted))))-1] }
	return Stats{N: len(sorted), P50: rank(0.5), P90: rank(0.9), Max: sorted[len(sorted)-1]}
}

// Takeovers returns the takeover times of the kills of kind ("" for all).
func (r *SoakResult) Takeovers(kind string) []time.Duration {
	return r.durations(kind, func(k SoakKill) time.Duration { return k.Takeover })
}

// FirstRuns returns the first-run times of the kills of kind ("" for all) that had one.
func (r *SoakResult) FirstRuns(kind string) []time.Duration {
	return r.durations(kind, func(k SoakKill) time.Duration { return k.FirstRun })
}

func (r *SoakResult) durations(kind string, of func(SoakKill) time.Duration) []time.Duration {
	var ds []time.Duration
	for _, k := range r.Kills {
		if (kind == "" || k.Kind == kind) && of(k) > 0 {
			ds = append(ds, of(k))
		}
	}
	return ds
}

// Markdown is the result as a short markdown summary: kills, takeover and first-run times by kind, runs.
func (r *SoakResult) Markdown() string {
	var b strings.Builder
	verdict := "passed"
	if !r.Passed {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "### %s soak, %s (%s, %s)\n\n", r.Layer, r.Started.UTC().Format(time.RFC3339), verdict,
		r.Finished.Sub(r.Started).Round(time.Second))
	fmt.Fprintf(&b, "| kills | n | takeover p50 | p90 | max | first run p50 | p90 | max |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, kind := range []string{GracefulKill, HardKill, ""} {
		t, f := StatsOf(r.Takeovers(kind)), StatsOf(r.FirstRuns(kind))
		name := kind
		if name == "" {
			name = "all"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", name, t.N,
			fmtSeconds(t.P50), fmtSeconds(t.P90), fmtSeconds(t.Max), fmtSeconds(f.P50), fmtSeconds(f.P90), fmtSeconds(f.Max))
	}
	fmt.Fprintf(&b, "\nruns due %d, Jobs started %d: lost %d, duplicated %d, unexpected %d\n",
		r.Runs.Due, r.Runs.Started, r.Runs.Lost, r.Runs.Duplicated, r.Runs.Unexpected)
	keys := make([]string, 0, len(r.Definitions))
	for k := range r.Definitions {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "\n- %s: %s", k, r.Definitions[k])
	}
	b.WriteString("\n")
	return b.String()
}

// Write writes the result to dir as <layer>.json (every kill) and <layer>.md (the summary). An empty dir
// means bin/soak in the repository (SoakResultsDir).
func (r *SoakResult) Write(dir string) error {
	if dir == "" {
		dir = SoakResultsDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	kills := make([]soakKillJSON, 0, len(r.Kills))
	for _, k := range r.Kills {
		kills = append(kills, soakKillJSON{SoakKill: k, TakeoverSeconds: seconds(k.Takeover), FirstRunSeconds: seconds(k.FirstRun)})
	}
	byKind := func(of func(string) []time.Duration) map[string]Stats {
		return map[string]Stats{
			GracefulKill: StatsOf(of(GracefulKill)), HardKill: StatsOf(of(HardKill)), "all": StatsOf(of("")),
		}
	}
	out, err := json.MarshalIndent(map[string]any{
		"layer":       r.Layer,
		"passed":      r.Passed,
		"started":     r.Started.UTC(),
		"finished":    r.Finished.UTC(),
		"wallSeconds": seconds(r.Finished.Sub(r.Started)),
		"definitions": r.Definitions,
		"kills":       map[string]int{GracefulKill: len(r.Takeovers(GracefulKill)), HardKill: len(r.Takeovers(HardKill))},
		"takeover":    byKind(r.Takeovers),
		"firstRun":    byKind(r.FirstRuns),
		"runs":        r.Runs,
		"samples":     kills,
	}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, r.Layer+".json"), append(out, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, r.Layer+".md"), []byte(r.Markdown()), 0o644)
}

// SoakResultsDir is where soaks write their results: $SOAK_RESULTS_DIR, else bin/soak in the repository.
func SoakResultsDir() string {
	if dir := os.Getenv("SOAK_RESULTS_DIR"); dir != "" {
		return dir
	}
	return filepath.Join(repoRoot(), "bin", "soak")
}

// EnvCount returns the positive integer in the environment variable key, or def when it is unset or
// empty; an error when it is not a positive integer.
func EnvCount(key string, def int) (int, error) {
	v := os.Getenv(key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a positive integer", key, v)
	}
	return n, nil
}

func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }

func fmtSeconds(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}
