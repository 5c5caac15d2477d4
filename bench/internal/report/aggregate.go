package report

import (
	"maps"
	"slices"
	"time"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
)

// aggregate is one controller's Results in one scenario, folded over the repetitions: skews concatenated,
// counts summed, memory the maximum, RunsPerSecond the mean of the repetitions that measured it, each
// figure of the start the largest of the repetitions that measured it.
type aggregate struct {
	// scenario is the name of the scenario the Results are of.
	scenario    string
	controller  results.Controller
	repetitions int

	skews       []time.Duration
	createSkews []time.Duration

	expected, lost, duplicates int
	runsPerSecond              float64 // mean over the repetitions with a nonzero value
	// limit is the scenario's mean LimitRunsPerSecond, the same for both controllers; 0 without one.
	limit   float64
	catchUp time.Duration

	requests                   map[string]int
	writes, eventWrites, reads int

	idleSeconds    float64
	idleRequests   int
	idleCPUSeconds float64

	cpuSeconds float64
	// controlPlaneCPUSeconds is summed over repetitions.
	controlPlaneCPUSeconds float64
	peakRSSBytes           int64
	heapBytes              int64
	// stateScrapeDurations and stateScrapeBytes are those of every /metrics/state scrape.
	stateScrapeDurations []time.Duration
	stateScrapeBytes     []int64
	// starts are the Startups measured (one per repetition at most).
	starts []results.Startup
}

// aggregateResults folds the Results of controller c in s; the aggregate has repetitions == 0 when c has
// none.
func aggregateResults(s results.Scenario, c results.Controller) aggregate {
	a := aggregate{scenario: s.Name, controller: c, requests: map[string]int{}}
	var rpsSum float64
	var rpsN int
	for _, r := range s.Results {
		if r.Controller != c {
			continue
		}
		a.repetitions++
		a.skews = append(a.skews, r.Skews...)
		a.createSkews = append(a.createSkews, r.CreateSkews...)
		a.expected += r.Expected
		a.lost += r.Lost
		a.duplicates += r.Duplicates
		if r.RunsPerSecond != 0 {
			rpsSum += r.RunsPerSecond
			rpsN++
		}
		a.catchUp = max(a.catchUp, r.CatchUp)
		for k, n := range r.Requests {
			a.requests[k] += n
		}
		a.writes += r.Writes()
		a.eventWrites += r.EventWrites()
		a.reads += r.Reads()
		a.idleSeconds += r.IdleSeconds
		a.idleRequests += r.IdleRequests
		a.idleCPUSeconds += r.IdleCPUSeconds
		a.cpuSeconds += r.CPUSeconds
		a.controlPlaneCPUSeconds += r.ControlPlaneCPUSeconds
		a.peakRSSBytes = max(a.peakRSSBytes, r.PeakRSSBytes)
		a.heapBytes = max(a.heapBytes, r.HeapBytes)
		if r.Startup != nil {
			a.starts = append(a.starts, *r.Startup)
		}
		for _, sc := range r.StateScrapes {
			a.stateScrapeDurations = append(a.stateScrapeDurations, sc.Duration)
			a.stateScrapeBytes = append(a.stateScrapeBytes, sc.WireBytes)
		}
	}
	if rpsN > 0 {
		a.runsPerSecond = rpsSum / float64(rpsN)
	}
	for _, l := range s.LimitRunsPerSecond {
		a.limit += l / float64(len(s.LimitRunsPerSecond))
	}
	return a
}

// requestKeys returns the union of the request keys of as, sorted.
func requestKeys(as ...aggregate) []string {
	keys := map[string]bool{}
	for _, a := range as {
		for k := range a.requests {
			keys[k] = true
		}
	}
	return sortedKeys(keys)
}

// sortedKeys returns the keys of m in ascending order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
