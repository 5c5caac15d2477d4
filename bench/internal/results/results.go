package results

import (
	"cmp"
	"slices"
	"time"
)

// Controller names the two controllers a run compares.
type Controller string

const (
	// Ours is this project's manager (bin/manager), run as a process with the real clock.
	Ours Controller = "ours"
	// Peer is the built-in CronJob controller: kube-controller-manager --controllers=cronjob.
	Peer Controller = "peer"
)

// Run is one `make bench` run: where it ran, with what, and what each scenario measured. It is written as
// results.json next to the report, so a report can be rendered again without running anything.
type Run struct {
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration"`
	Mode     string        `json:"mode"` // "quick" or "full", or "custom" when flags changed the sizes
	Machine  Machine       `json:"machine"`
	// Versions maps a component (ours, kube-apiserver, kube-controller-manager, etcd, go) to its version.
	Versions map[string]string `json:"versions"`
	Settings Settings          `json:"settings"`
	// Scenarios in the order they ran.
	Scenarios []Scenario `json:"scenarios"`
}

// Machine describes the host the run measured.
type Machine struct {
	CPUs      int     `json:"cpus"`
	CPUModel  string  `json:"cpuModel"`
	MemoryGiB float64 `json:"memoryGiB"`
	Kernel    string  `json:"kernel"`
}

// Settings are the knobs both controllers ran with; the report prints them.
type Settings struct {
	// QPS and Burst are the client-side rate limits of both controllers (--kube-api-qps, --kube-api-burst).
	QPS   float64 `json:"qps"`
	Burst int     `json:"burst"`
	// OursMaxConcurrentReconciles is ours' --max-concurrent-reconciles; PeerConcurrentSyncs the peer's
	// --concurrent-cron-job-syncs.
	OursMaxConcurrentReconciles int `json:"oursMaxConcurrentReconciles"`
	PeerConcurrentSyncs         int `json:"peerConcurrentSyncs"`
	Repetitions                 int `json:"repetitions"`
	// Flags are the bench command's own flags, as given.
	Flags map[string]string `json:"flags"`
}

// Scenario is one scenario of the run: its parameters and one Result per controller and repetition.
type Scenario struct {
	Name        string   `json:"name"`        // single, burst, population, restart
	Description string   `json:"description"` // e.g. "1000 CronJobs all due on the same minute, for 5 minutes"
	Results     []Result `json:"results"`
	// LimitRunsPerSecond is, for the burst scenario, per repetition, the rate at which the bench alone
	// created as many Jobs as the burst has CronJobs, with as many requests in flight as ours has workers
	// and no controller running: what the control plane can do (bench/limit.go).
	LimitRunsPerSecond []float64 `json:"limitRunsPerSecond,omitempty"`
}

// Result is what one controller did in one repetition of a scenario. Durations are in the JSON as
// nanoseconds (time.Duration).
type Result struct {
	Controller Controller `json:"controller"`
	Repetition int        `json:"repetition"`
	// Window is the span measured: from the first scheduled time to the end of the observation.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`

	// Skews are, per Job observed, the time its ADDED event reached the bench's watch minus its scheduled
	// time (from the scheduled-time annotation the controller sets).
	Skews []time.Duration `json:"skews"`
	// CreateSkews are, per Job, the time the API server completed the controller's create request (the
	// audit log's ResponseComplete stageTimestamp) minus the scheduled time.
	CreateSkews []time.Duration `json:"createSkews"`

	// Expected is the number of runs due in the window; Lost are due runs with no Job; Duplicates are Jobs
	// beyond the first for one (CronJob, scheduled time).
	Expected   int `json:"expected"`
	Lost       int `json:"lost"`
	Duplicates int `json:"duplicates"`
	// RunsPerSecond is, for scenarios with many runs due at once, the runs of a due minute divided by the
	// time from that minute to the last of its Jobs observed, averaged over the due minutes; 0 otherwise.
	RunsPerSecond float64 `json:"runsPerSecond,omitempty"`
	// CatchUp is, for the restart scenario, the time from the controller's restart to the last Job of the
	// runs missed while it was down being observed; 0 otherwise.
	CatchUp time.Duration `json:"catchUp,omitempty"`

	// Requests counts the controller's API requests in the window by "verb resource[/subresource]", from the
	// API server's audit log; a watch counts once, when it starts.
	Requests map[string]int `json:"requests"`
	// IdleSeconds is the time, inside the window, in which no run was due (from -idle-after, 10 s, past a
	// due minute to 1 s before the next); IdleRequests the requests made then (watches, which client-go
	// re-opens every 5-10 minutes, excluded), IdleCPUSeconds the CPU spent then.
	IdleSeconds    float64 `json:"idleSeconds"`
	IdleRequests   int     `json:"idleRequests"`
	IdleCPUSeconds float64 `json:"idleCPUSeconds"`

	// CPUSeconds is the controller process's user+system CPU time in the window (restart: from the new
	// process's start); PeakRSSBytes its peak resident set (VmHWM) at the end; HeapBytes the largest Go heap
	// in use sampled, 10 s and 59 s past each minute and at the end (ours only, from its
	// go_memstats_heap_inuse_bytes metric; 0 for the peer).
	CPUSeconds float64 `json:"cpuSeconds"`
	// ControlPlaneCPUSeconds is the CPU time kube-apiserver and etcd spent in the window: the server-side
	// cost of the controller's requests (and of the bench's watch, the same for both).
	ControlPlaneCPUSeconds float64 `json:"controlPlaneCPUSeconds"`
	PeakRSSBytes           int64   `json:"peakRSSBytes"`
	HeapBytes              int64   `json:"heapBytes,omitempty"`
	// StateScrapes are ours' scrapes of its /metrics/state in the window, one before each Go heap sample;
	// none for the peer, which has no such endpoint, and none in results written before they were recorded.
	StateScrapes []Scrape `json:"stateScrapes,omitempty"`
	// Startup is, for the population scenario (-population-start), the controller's start with all its
	// CronJobs present, after the window: stopped and started again. Nil when not measured (other
	// scenarios, -population-start=false, a start that could not be observed, results written before it
	// was measured).
	Startup *Startup `json:"startup,omitempty"`
}

// Startup is one start of a controller with its CronJobs present. Its times are from the process's start
// (its exec) to the first poll of its metrics (every 100 ms) that showed each step on its CronJob
// workqueue; nothing of it counts in the Result's window.
type Startup struct {
	// CronJobs is how many CronJobs the controller had.
	CronJobs int `json:"cronJobs"`
	// CachesSynced is the time until the workqueue had handed a first CronJob to a worker
	// (workqueue_queue_duration_seconds_count > 0): the workers start once the caches have synced (the
	// initial list of the CronJobs and Jobs).
	CachesSynced time.Duration `json:"cachesSynced"`
	// Reconciled is the time until the workqueue had had at least CronJobs adds (workqueue_adds_total) and
	// was empty (workqueue_depth 0): every CronJob had been handed to a worker once.
	Reconciled time.Duration `json:"reconciled"`
	// CPUSeconds and PeakRSSBytes are the process's CPU time and peak resident set (VmHWM) when Reconciled
	// was seen.
	CPUSeconds   float64 `json:"cpuSeconds"`
	PeakRSSBytes int64   `json:"peakRSSBytes"`
}

// Scrape is one scrape of a metrics endpoint, as Prometheus would make it (gzip accepted).
type Scrape struct {
	// Duration is from sending the request to reading the last byte of the response.
	Duration time.Duration `json:"duration"`
	// WireBytes is the size of the response body as sent: gzip-compressed when the endpoint compresses.
	WireBytes int64 `json:"wireBytes"`
}

// Writes is the number of mutating requests (create, update, patch, delete, deletecollection) in r.Requests,
// events included.
func (r Result) Writes() int { return r.count(isWrite, nil) }

// EventWrites is the number of mutating requests to events.
func (r Result) EventWrites() int { return r.count(isWrite, isEvent) }

// Reads is the number of get and list requests in r.Requests (watches excluded).
func (r Result) Reads() int { return r.count(isRead, nil) }

func (r Result) count(verb func(string) bool, resource func(string) bool) int {
	n := 0
	for k, c := range r.Requests {
		v, res := splitRequestKey(k)
		if verb(v) && (resource == nil || resource(res)) {
			n += c
		}
	}
	return n
}

// RequestKey is the key of Result.Requests: "verb resource", resource with its subresource as
// "cronjobs/status".
func RequestKey(verb, resource string) string { return verb + " " + resource }

func splitRequestKey(k string) (verb, resource string) {
	for i := 0; i < len(k); i++ {
		if k[i] == ' ' {
			return k[:i], k[i+1:]
		}
	}
	return k, ""
}

func isWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

func isRead(verb string) bool { return verb == "get" || verb == "list" }

func isEvent(resource string) bool { return resource == "events" }

// Percentile returns the p-th percentile (0 < p <= 100) of xs (durations, byte counts, ...) by the
// nearest-rank method, or the zero value when xs is empty. xs is not modified.
func Percentile[T cmp.Ordered](xs []T, p float64) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(p/100*float64(len(s)) + 0.999999999)
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}
