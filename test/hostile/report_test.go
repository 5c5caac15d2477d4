package hostile

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// Result is what a run of the suite measured; Write records it as bin/hostile/report.{json,md}.
type Result struct {
	Scale    Scale     `json:"scale"`
	Commit   string    `json:"commit"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Setup is how long creating each part of the scenario took, by part.
	Setup map[string]Seconds `json:"setupSeconds"`
	// Manager: its peak RSS (VmHWM) against MemoryLimit, its largest Go heap in use, and how it ended
	// ("" if it ran to the end).
	PeakRSSBytes     int64  `json:"peakRSSBytes"`
	PeakHeapBytes    int64  `json:"peakHeapBytes"`
	MemoryLimitBytes int64  `json:"memoryLimitBytes"`
	ManagerEnded     string `json:"managerEnded,omitempty"`
	// RanFor is how long the manager ran, from ready to the end of the measurement or its death.
	RanFor Seconds `json:"ranForSeconds"`
	// Skew is tenant B's schedule skew: the JobOracle seeing the Job minus its scheduled time.
	Skew Percentiles `json:"skew"`
	// ManualRunWait is from tenant B's CronJobRun being created to the JobOracle seeing its Job; -1 if
	// it never started.
	ManualRunWait Seconds `json:"manualRunWaitSeconds"`
	// TenantB counts tenant B's runs due in the window against its Jobs.
	TenantB framework.RunCounts `json:"tenantB"`
	// Tenant A's catch-up: Jobs seen, Jobs for a time already started, Jobs for a time not owed; Jobs of
	// the Forbid CronJob besides its blocking one (each a run that broke Forbid).
	CatchUpJobs       int `json:"catchUpJobs"`
	CatchUpDuplicates int `json:"catchUpDuplicates"`
	CatchUpOutOfRange int `json:"catchUpOutOfRange"`
	ForbidBroken      int `json:"forbidBroken"`
	// Requests is the manager's rest_client_requests_total; JobsCreated the Jobs the oracles saw it
	// create; RequestsPerRun the ratio.
	Requests       int64   `json:"requests"`
	JobsCreated    int     `json:"jobsCreated"`
	RequestsPerRun float64 `json:"requestsPerRun"`
	// Failures are the suite's checks that failed, in words; none means passed.
	Failures []string `json:"failures"`
}

// Seconds is a duration written in seconds.
type Seconds time.Duration

// MarshalJSON writes the duration in seconds, to the millisecond; a negative one (never) as -1.
func (s Seconds) MarshalJSON() ([]byte, error) {
	if s < 0 {
		return []byte("-1"), nil
	}
	return json.Marshal(math.Round(time.Duration(s).Seconds()*1000) / 1000)
}

func (s Seconds) String() string {
	if s < 0 {
		return "never"
	}
	return fmt.Sprintf("%.2f s", time.Duration(s).Seconds())
}

// Percentiles are nearest-rank percentiles of a set of durations.
type Percentiles struct {
	N   int     `json:"n"`
	P50 Seconds `json:"p50Seconds"`
	P99 Seconds `json:"p99Seconds"`
	Max Seconds `json:"maxSeconds"`
}

// percentilesOf returns the percentiles of ds; zero for none.
func percentilesOf(ds []time.Duration) Percentiles {
	if len(ds) == 0 {
		return Percentiles{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(p float64) Seconds { return Seconds(s[int(math.Ceil(p*float64(len(s))))-1]) }
	return Percentiles{N: len(s), P50: rank(0.5), P99: rank(0.99), Max: Seconds(s[len(s)-1])}
}

// Markdown is the report as a short markdown summary.
func (r *Result) Markdown() string {
	var b strings.Builder
	verdict := "passed"
	if len(r.Failures) > 0 {
		verdict = "FAILED"
	}
	s := r.Scale
	fmt.Fprintf(&b, "### Hostile tenants, %s scale, %s (%s, commit %s)\n\n", s.Name, r.Started.UTC().Format(time.RFC3339), verdict, r.Commit)
	fmt.Fprintf(&b, "Tenant A: %d Jobs of %d KiB, %d CronJobRuns behind a Forbid Job, %d minutely CronJobs owing %d catch-up runs each. "+
		"Tenant B: %d minutely CronJobs over %d minute boundaries, one manual run.\n\n",
		s.LargeJobs, s.LargeJobBytes>>10, s.WaitingRuns, s.CatchUpCronJobs, s.CatchUpRuns, s.MinutelyCronJobs, s.Minutes)
	fmt.Fprintf(&b, "| figure | value |\n|---|---:|\n")
	ended := "ran to the end"
	if r.ManagerEnded != "" {
		ended = r.ManagerEnded
	}
	heap := mib(r.PeakHeapBytes)
	if r.PeakHeapBytes == 0 {
		heap = "not scraped (the manager ended first)"
	}
	rows := [][2]string{
		{"manager peak RSS (limit " + mib(r.MemoryLimitBytes) + ")", mib(r.PeakRSSBytes)},
		{"manager peak Go heap in use", heap},
		{"manager", fmt.Sprintf("%s after %s", ended, r.RanFor)},
		{"tenant B skew p50 / p99 / max (n)", fmt.Sprintf("%s / %s / %s (%d)", r.Skew.P50, r.Skew.P99, r.Skew.Max, r.Skew.N)},
		{"tenant B manual run waited", r.ManualRunWait.String()},
		{"tenant B runs due / lost / duplicated / unexpected", fmt.Sprintf("%d / %d / %d / %d", r.TenantB.Due, r.TenantB.Lost, r.TenantB.Duplicated, r.TenantB.Unexpected)},
		{"tenant A catch-up Jobs / duplicated / not owed", fmt.Sprintf("%d / %d / %d", r.CatchUpJobs, r.CatchUpDuplicates, r.CatchUpOutOfRange)},
		{"tenant A runs started past Forbid", fmt.Sprint(r.ForbidBroken)},
		{"API requests of the manager / Jobs it created", fmt.Sprintf("%d / %d = %.1f per run", r.Requests, r.JobsCreated, r.RequestsPerRun)},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], row[1])
	}
	keys := make([]string, 0, len(r.Setup))
	for k := range r.Setup {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteString("\nSetup:")
	for _, k := range keys {
		fmt.Fprintf(&b, " %s %s;", k, r.Setup[k])
	}
	b.WriteString("\n")
	if len(r.Failures) > 0 {
		b.WriteString("\nFailed:\n")
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	return b.String()
}

// Write writes report.json and report.md to dir.
func (r *Result) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(out, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(r.Markdown()), 0o644)
}
