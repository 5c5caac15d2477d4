package controllers

import (
	"context"
	"errors"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// stateListTimeout bounds the cache read of one scrape.
const stateListTimeout = 10 * time.Second

// stateCollector exports the state of every CronJob, in the style of kube-state-metrics' kube_cronjob_*
// metrics, from the manager's cache: a scrape lists the cached CronJobs and makes no API call. Its series
// carry the labels namespace and cronjob, so its cost grows with the number of CronJobs (at most 12 series
// each); the counters of Metrics do not.
type stateCollector struct {
	reader client.Reader
	log    logr.Logger

	info, created, next, lastSchedule, lastSuccess, lastFailure, active, queued, suspend, condition *prometheus.Desc
}

var stateLabels = []string{"namespace", "cronjob"}

func newStateCollector(reader client.Reader, log logr.Logger) *stateCollector {
	desc := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append(append([]string(nil), stateLabels...), extra...), nil)
	}
	return &stateCollector{
		reader: reader, log: log,
		info: desc(MetricCronJobInfo, "Information about the CronJob; the value is 1.",
			"schedule", "time_zone", "concurrency_policy"),
		created:      desc(MetricCronJobCreated, "Creation time of the CronJob, in unix seconds."),
		next:         desc(MetricNextScheduleTime, "The first scheduled time after the last run (or the creation or last schedule edit), in unix seconds: in the past when a run is due or was missed, as kube_cronjob_next_schedule_time. Absent while suspended or when the schedule is invalid or never fires."),
		lastSchedule: desc(MetricLastScheduleTime, "status.lastScheduleTime: the scheduled time of the last run started, in unix seconds."),
		lastSuccess:  desc(MetricLastSuccessfulTime, "status.lastSuccessfulTime: when the last successful Job completed, in unix seconds."),
		lastFailure:  desc(MetricLastFailureTime, "status.lastFailureTime: when the last Job failed, in unix seconds."),
		active:       desc(MetricActive, "Number of active Jobs (status.active)."),
		queued:       desc(MetricQueued, "Number of runs waiting under concurrencyPolicy Enqueue (status.queued)."),
		suspend:      desc(MetricSuspend, "1 when spec.suspend is true, else 0."),
		condition: desc(MetricCondition, "The CronJob's conditions: 1 on the series of the current status (true, false or unknown), 0 on the others.",
			"condition", "status", "reason"),
	}
}

// Describe implements prometheus.Collector.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.info, c.created, c.next, c.lastSchedule, c.lastSuccess, c.lastFailure, c.active, c.queued, c.suspend, c.condition} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. A failed cache read exports no state series and is logged.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), stateListTimeout)
	defer cancel()
	var list cronjobv1.CronJobList
	// Read-only: the cache's objects themselves, not copies (10,000 CronJobs would be copied per scrape).
	if err := c.reader.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		c.log.Error(err, "Listing CronJobs for the state metrics")
		return
	}
	for i := range list.Items {
		c.collect(ch, &list.Items[i])
	}
}

func (c *stateCollector) collect(ch chan<- prometheus.Metric, cj *cronjobv1.CronJob) {
	labels := []string{cj.Namespace, cj.Name}
	gauge := func(d *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append(append([]string(nil), labels...), extra...)...)
	}
	timeGauge := func(d *prometheus.Desc, t *metav1.Time) {
		if t != nil {
			gauge(d, unixSeconds(t.Time))
		}
	}
	gauge(c.info, 1, cj.Spec.Schedule, ptr.Deref(cj.Spec.TimeZone, ""), string(cj.Spec.ConcurrencyPolicy))
	gauge(c.created, unixSeconds(cj.CreationTimestamp.Time))
	if next, ok := nextRunTime(cj); ok {
		gauge(c.next, unixSeconds(next))
	}
	timeGauge(c.lastSchedule, cj.Status.LastScheduleTime)
	timeGauge(c.lastSuccess, cj.Status.LastSuccessfulTime)
	timeGauge(c.lastFailure, cj.Status.LastFailureTime)
	gauge(c.active, float64(len(cj.Status.Active)))
	gauge(c.queued, float64(len(cj.Status.Queued)))
	gauge(c.suspend, boolValue(ptr.Deref(cj.Spec.Suspend, false)))
	status, reason := metav1.ConditionUnknown, ""
	if cond := meta.FindStatusCondition(cj.Status.Conditions, cronjobv1.ConditionReady); cond != nil {
		status, reason = cond.Status, cond.Reason
	}
	for _, s := range []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown} {
		gauge(c.condition, boolValue(s == status), cronjobv1.ConditionReady, lowerStatus(s), reason)
	}
}

// nextRunTime is the first scheduled time after the CronJob's last run, or its creation or last schedule
// edit if later (earliestTime): the time the controller starts the next run. It is before now when a run is
// due or was missed. ok is false while suspended, with an invalid schedule, or when it never fires.
func nextRunTime(cj *cronjobv1.CronJob) (time.Time, bool) {
	if ptr.Deref(cj.Spec.Suspend, false) {
		return time.Time{}, false
	}
	sched, _, err := parseSchedule(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err != nil {
		return time.Time{}, false
	}
	earliest := earliestTime(cj)
	next := nextScheduleTime(sched, earliest, earliest)
	return next, !next.IsZero()
}

func lowerStatus(s metav1.ConditionStatus) string {
	switch s {
	case metav1.ConditionTrue:
		return "true"
	case metav1.ConditionFalse:
		return "false"
	}
	return "unknown"
}

// stateExporter registers the state collector while this replica is the leader: only the replica that
// acts exports the state, so that a query over all replicas sees each CronJob once.
type stateExporter struct {
	collector *stateCollector
	registry  prometheus.Registerer
}

// NeedLeaderElection implements manager.LeaderElectionRunnable.
func (*stateExporter) NeedLeaderElection() bool { return true }

// Start registers the collector until ctx is done. When another collector of the same metrics is
// registered (several managers in one test process), this one exports nothing: that is logged, not an
// error.
func (e *stateExporter) Start(ctx context.Context) error {
	if err := e.registry.Register(e.collector); err != nil {
		if _, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
			e.collector.log.Info("State metrics are exported by another controller of this process")
			return nil
		}
		return err
	}
	<-ctx.Done()
	e.registry.Unregister(e.collector)
	return nil
}
