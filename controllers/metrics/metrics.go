package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/cronjob-operator/cronjob-operator/controllers/version"
)

// Metric names of the operator, beside controller-runtime's (controller_runtime_reconcile_*,
// workqueue_*, leader_election_master_status), all prefixed cronjob_operator_ and spelled out so that a
// search for a name from a dashboard finds it. README "Monitoring" lists them with their labels.
const (
	MetricJobCreationSkew    = "cronjob_operator_job_creation_skew_seconds"
	MetricRunsStarted        = "cronjob_operator_runs_started_total"
	MetricRunsMissed         = "cronjob_operator_runs_missed_total"
	MetricRunsExcluded       = "cronjob_operator_runs_excluded_total"
	MetricJobCreateFailures  = "cronjob_operator_job_create_failures_total"
	MetricJobsDeleted        = "cronjob_operator_jobs_deleted_total"
	MetricRunsEnded          = "cronjob_operator_runs_ended_total"
	MetricCronJobInfo        = "cronjob_operator_cronjob_info"
	MetricCronJobCreated     = "cronjob_operator_cronjob_created"
	MetricNextScheduleTime   = "cronjob_operator_cronjob_next_schedule_time"
	MetricLastScheduleTime   = "cronjob_operator_cronjob_status_last_schedule_time"
	MetricLastSuccessfulTime = "cronjob_operator_cronjob_status_last_successful_time"
	MetricLastFailureTime    = "cronjob_operator_cronjob_status_last_failure_time"
	MetricActive             = "cronjob_operator_cronjob_status_active"
	MetricQueued             = "cronjob_operator_cronjob_status_queued"
	MetricSuspend            = "cronjob_operator_cronjob_spec_suspend"
	MetricCondition          = "cronjob_operator_cronjob_status_condition"
	// Issue 24: timeouts, the dead-man's switch, pause after failures and the run counts.
	MetricRunTimeout          = "cronjob_operator_cronjob_spec_run_timeout_seconds"
	MetricStartTimeout        = "cronjob_operator_cronjob_spec_start_timeout_seconds"
	MetricSuccessDeadline     = "cronjob_operator_cronjob_spec_success_deadline_seconds"
	MetricPaused              = "cronjob_operator_cronjob_paused"
	MetricConsecutiveFailures = "cronjob_operator_cronjob_status_consecutive_failures"
	MetricSucceededRuns       = "cronjob_operator_cronjob_status_succeeded_runs"
	MetricFailedRuns          = "cronjob_operator_cronjob_status_failed_runs"
	// Issue 27: which build runs.
	MetricBuildInfo = "cronjob_operator_build_info"
)

// MetricNames returns the names of the metrics the operator exports beside controller-runtime's: the
// counters, the skew histogram (by its base name; Prometheus adds _bucket, _sum and _count) and the
// per-CronJob state metrics.
func MetricNames() []string {
	return []string{
		MetricJobCreationSkew, MetricRunsStarted, MetricRunsMissed, MetricRunsExcluded, MetricJobCreateFailures, MetricJobsDeleted, MetricRunsEnded, MetricBuildInfo,
		MetricCronJobInfo, MetricCronJobCreated, MetricNextScheduleTime, MetricLastScheduleTime,
		MetricLastSuccessfulTime, MetricLastFailureTime, MetricActive, MetricQueued, MetricSuspend, MetricCondition,
		MetricRunTimeout, MetricStartTimeout, MetricSuccessDeadline, MetricPaused, MetricConsecutiveFailures,
		MetricSucceededRuns, MetricFailedRuns,
	}
}

// Values of the trigger label of runs_started_total.
const (
	// TriggerSchedule: the run started at its scheduled time, give or take the controller's latency.
	TriggerSchedule = "schedule"
	// TriggerCatchUp: the run started late, for a scheduled time before this controller process first
	// reconciled (it was down, or not the leader), or after runs that were missed meanwhile.
	TriggerCatchUp = "catch_up"
	// TriggerQueued: the run waited in status.queued (concurrencyPolicy Enqueue) and started when a Job
	// finished. Its skew, which includes the wait, is not observed.
	TriggerQueued = "queued"
	// TriggerManual: the Job of a CronJobRun (a run now, or a backfill of a past scheduled time). Its start
	// is not observed in the skew histogram: a backfill is late on purpose.
	TriggerManual = "manual"
)

// Values of the reason label of runs_missed_total. Each run that will never start counts once.
const (
	// MissedPastDeadline: the run was more than startingDeadlineSeconds late (event MissSchedule).
	MissedPastDeadline = "past_deadline"
	// MissedTooMany: more than 100 runs were due at once; all but the most recent are lost, as in batch/v1
	// (event TooManyMissedTimes). Counted as 100, as the count is exact up to 101.
	MissedTooMany = "too_many_missed"
	// MissedSuperseded: up to 100 runs were due at once (the controller was down, or the run could not
	// start); only the most recent starts, as in batch/v1, which says nothing about the others.
	MissedSuperseded = "superseded"
	// MissedForbid: concurrencyPolicy Forbid skipped the run because a Job was active (event
	// JobAlreadyActive). Counted when first skipped; the run is retried while within
	// startingDeadlineSeconds and, if it starts after all, counts in runs_started_total too.
	MissedForbid = "forbid"
	// MissedMaxActive: concurrencyPolicy Allow skipped the run because spec.maxActiveJobs Jobs were active
	// (event JobAlreadyActive); counted and retried as MissedForbid.
	MissedMaxActive = "max_active"
	// MissedQueueFull: concurrencyPolicy Enqueue could not queue the run, spec.maxQueuedRuns were queued
	// (event QueueFull); counted when first skipped, retried as MissedForbid.
	MissedQueueFull = "queue_full"
	// MissedQueueExpired: a queued run was dropped, past startingDeadlineSeconds or because the policy is no
	// longer Enqueue (event QueuedRunExpired).
	MissedQueueExpired = "queue_expired"
)

// Values of the reason label of jobs_deleted_total.
const (
	// DeletedHistory: a finished Job beyond successfulJobsHistoryLimit or failedJobsHistoryLimit.
	DeletedHistory = "history"
	// DeletedReplace: an active Job replaced by a new run (concurrencyPolicy Replace).
	DeletedReplace = "replace"
	// DeletedTimeout: an active Job past spec.runTimeoutSeconds or spec.startTimeoutSeconds.
	DeletedTimeout = "timeout"
)

// Values of the result label of runs_ended_total: how a run of status.recentRuns ended, one count per run.
const (
	EndedSucceeded    = "succeeded"
	EndedFailed       = "failed"
	EndedTimedOut     = "timed_out"
	EndedNeverStarted = "never_started"
	EndedReplaced     = "replaced"
	EndedDeleted      = "deleted"
)

// buildInfoHelp is the help text of cronjob_operator_build_info.
const buildInfoHelp = "Always 1, labelled with the running build: version (the release, or dev), revision (the git commit's first 12 characters, -modified for a dirty tree) and goversion. Join on it to tell which release a series came from."

// skewBuckets resolve our start skew (tens of milliseconds, README "Benchmarks") up to the top bucket of
// batch/v1's cronjob_controller_job_creation_skew_duration_seconds (512 s), in seconds.
var skewBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512}

// Metrics are the operator's counters and the skew histogram. They have no per-CronJob labels, so their
// cost does not grow with the number of CronJobs; per-CronJob state comes from the state collector.
type Metrics struct {
	skew           prometheus.Histogram
	started        *prometheus.CounterVec
	missed         *prometheus.CounterVec
	excluded       prometheus.Counter
	createFailures prometheus.Counter
	deleted        *prometheus.CounterVec
	ended          *prometheus.CounterVec
	buildInfo      *prometheus.GaugeVec
}

// NewMetrics returns metrics registered nowhere (tests register them on a registry of their own). Every
// label value starts at 0, so that rate() and increase() see the first event.
func NewMetrics() *Metrics {
	m := &Metrics{
		skew: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: MetricJobCreationSkew,
			Help: "Time from a run's scheduled time to the creation of its Job, in seconds.",
			// Native histogram options as controller-runtime's reconcile time histogram.
			Buckets:                         skewBuckets,
			NativeHistogramBucketFactor:     1.1,
			NativeHistogramMaxBucketNumber:  100,
			NativeHistogramMinResetDuration: time.Hour,
		}),
		started: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRunsStarted,
			Help: "Runs whose Job was created, by trigger: schedule (on time), catch_up (late, after downtime or missed runs), queued (concurrencyPolicy Enqueue) or manual (a CronJobRun).",
		}, []string{"trigger"}),
		missed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRunsMissed,
			Help: "Runs that did not start, once per run, by reason: past_deadline, too_many_missed, superseded, forbid, max_active, queue_full, queue_expired.",
		}, []string{"reason"}),
		excluded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricRunsExcluded,
			Help: "Scheduled times a CronCalendar excluded (spec.calendars), once per time: no Job started, and they are not missed runs.",
		}),
		createFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricJobCreateFailures,
			Help: "Job creates that failed with an API error (each attempt; the reconcile is retried).",
		}),
		deleted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricJobsDeleted,
			Help: "Jobs the controller deleted, by reason: history (beyond the history limits), replace (concurrencyPolicy Replace) or timeout (runTimeoutSeconds, startTimeoutSeconds).",
		}, []string{"reason"}),
		ended: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRunsEnded,
			Help: "Runs that ended, once per run, by result: succeeded, failed, timed_out, never_started, replaced or deleted (status.recentRuns).",
		}, []string{"result"}),
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricBuildInfo,
			Help: buildInfoHelp,
		}, []string{"version", "revision", "goversion"}),
	}
	build := version.Get()
	m.buildInfo.WithLabelValues(build.Version, build.ShortRevision(), build.GoVersion).Set(1)
	for _, t := range []string{TriggerSchedule, TriggerCatchUp, TriggerQueued, TriggerManual} {
		m.started.WithLabelValues(t)
	}
	for _, r := range []string{MissedPastDeadline, MissedTooMany, MissedSuperseded, MissedForbid, MissedMaxActive,
		MissedQueueFull, MissedQueueExpired} {
		m.missed.WithLabelValues(r)
	}
	for _, r := range []string{DeletedHistory, DeletedReplace, DeletedTimeout} {
		m.deleted.WithLabelValues(r)
	}
	for _, r := range []string{EndedSucceeded, EndedFailed, EndedTimedOut, EndedNeverStarted, EndedReplaced, EndedDeleted} {
		m.ended.WithLabelValues(r)
	}
	return m
}

// Collectors returns the metrics, to register them.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.skew, m.started, m.missed, m.excluded, m.createFailures, m.deleted, m.ended, m.buildInfo}
}

// DefaultMetrics returns the metrics registered on controller-runtime's registry, which its metrics server
// serves (with its authentication and authorization). Every controller of the process shares them.
var DefaultMetrics = sync.OnceValue(func() *Metrics {
	m := NewMetrics()
	metrics.Registry.MustRegister(m.Collectors()...)
	return m
})

// The methods below do nothing on nil Metrics (a reconciler built without them, as in most unit tests).

// RunStarted counts a run started for trigger and observes its start skew (its lateness beyond its jitter).
func (m *Metrics) RunStarted(trigger string, skew time.Duration) {
	if m == nil {
		return
	}
	m.started.WithLabelValues(trigger).Inc()
	m.skew.Observe(skew.Seconds())
}

// QueuedRunStarted counts a run started from status.queued; its skew includes the wait and is not observed.
func (m *Metrics) QueuedRunStarted() {
	if m == nil {
		return
	}
	m.started.WithLabelValues(TriggerQueued).Inc()
}

// ManualRunStarted counts the Job of a CronJobRun, without a skew.
func (m *Metrics) ManualRunStarted() {
	if m != nil {
		m.started.WithLabelValues(TriggerManual).Inc()
	}
}

// RunsMissed counts n runs missed for reason; n must not be negative (0 counts nothing).
func (m *Metrics) RunsMissed(reason string, n int) {
	if m == nil {
		return
	}
	m.missed.WithLabelValues(reason).Add(float64(n))
}

// RunsExcluded counts n scheduled times a calendar excluded; n must not be negative.
func (m *Metrics) RunsExcluded(n int) {
	if m == nil {
		return
	}
	m.excluded.Add(float64(n))
}

// JobCreateFailed counts a Job create that failed with an API error.
func (m *Metrics) JobCreateFailed() {
	if m != nil {
		m.createFailures.Inc()
	}
}

// RunEnded counts a run that ended, for result (EndedSucceeded ... EndedDeleted).
func (m *Metrics) RunEnded(result string) {
	if m != nil {
		m.ended.WithLabelValues(result).Inc()
	}
}

// JobDeleted counts a Job the controller deleted, for reason (DeletedHistory, DeletedReplace, DeletedTimeout).
func (m *Metrics) JobDeleted(reason string) {
	if m != nil {
		m.deleted.WithLabelValues(reason).Inc()
	}
}

// boolValue is 1 for true, 0 for false.
func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// unixSeconds is t as a float of seconds since the epoch, as kube-state-metrics exports times.
func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
