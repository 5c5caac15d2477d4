package hostile

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// Scale is the size of the scenario. HOSTILE_SCALE picks one of the two presets (full, the default, or
// short, for CI); each figure can then be overridden by its own variable (HOSTILE_LARGE_JOBS, ...; 0 turns a
// pressure off), to measure one pressure alone.
type Scale struct {
	Name string `json:"name"`
	// LargeJobs is the number of Jobs of tenant A with a pod template of LargeJobBytes.
	LargeJobs     int `json:"largeJobs"`
	LargeJobBytes int `json:"largeJobBytes"`
	// WaitingRuns is the number of CronJobRuns of tenant A waiting behind a Forbid CronJob's active Job.
	WaitingRuns int `json:"waitingRuns"`
	// CatchUpCronJobs minutely CronJobs of tenant A, missedRunPolicy All with maxCatchUpRuns CatchUpRuns,
	// last scheduled CatchUpRuns minutes before the manager starts.
	CatchUpCronJobs int `json:"catchUpCronJobs"`
	CatchUpRuns     int `json:"catchUpRuns"`
	// MinutelyCronJobs of tenant B; Minutes is how many minute boundaries the suite measures them over.
	MinutelyCronJobs int `json:"minutelyCronJobs"`
	Minutes          int `json:"minutes"`
}

// Scales are the presets of HOSTILE_SCALE: full, the numbers, and short, for CI (about 3 minutes).
var Scales = map[string]Scale{
	"full":  {Name: "full", LargeJobs: 200, LargeJobBytes: 1 << 20, WaitingRuns: 5000, CatchUpCronJobs: 1000, CatchUpRuns: 100, MinutelyCronJobs: 20, Minutes: 3},
	"short": {Name: "short", LargeJobs: 20, LargeJobBytes: 1 << 20, WaitingRuns: 200, CatchUpCronJobs: 50, CatchUpRuns: 10, MinutelyCronJobs: 20, Minutes: 2},
}

// ScaleFromEnv returns the preset HOSTILE_SCALE names (full when unset) with the overrides of the
// environment applied. It returns an error for an unknown preset or an override that is not a positive
// integer.
func ScaleFromEnv() (Scale, error) {
	name := os.Getenv("HOSTILE_SCALE")
	if name == "" {
		name = "full"
	}
	s, ok := Scales[name]
	if !ok {
		return Scale{}, fmt.Errorf("HOSTILE_SCALE=%q: want full or short", name)
	}
	for key, field := range map[string]*int{
		"HOSTILE_LARGE_JOBS": &s.LargeJobs, "HOSTILE_LARGE_JOB_BYTES": &s.LargeJobBytes,
		"HOSTILE_WAITING_RUNS": &s.WaitingRuns, "HOSTILE_CATCHUP_CRONJOBS": &s.CatchUpCronJobs,
		"HOSTILE_CATCHUP_RUNS": &s.CatchUpRuns, "HOSTILE_MINUTELY_CRONJOBS": &s.MinutelyCronJobs,
		"HOSTILE_MINUTES": &s.Minutes,
	} {
		if os.Getenv(key) == "" {
			continue
		}
		n, err := strconv.Atoi(os.Getenv(key))
		if err != nil || n < 0 {
			return Scale{}, fmt.Errorf("%s=%q: want a whole number, 0 or more", key, os.Getenv(key))
		}
		*field = n
		s.Name = "custom"
	}
	return s, nil
}

// MaxSkew bounds tenant B's schedule skew and the wait of its manual run: a minutely run that starts a
// minute late has lost its minute. HOSTILE_MAX_SKEW (a Go duration) overrides it.
func MaxSkew() (time.Duration, error) {
	v := os.Getenv("HOSTILE_MAX_SKEW")
	if v == "" {
		return time.Minute, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("HOSTILE_MAX_SKEW=%q: want a positive Go duration such as 1m", v)
	}
	return d, nil
}
