package metrics

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	gzip "github.com/klauspost/compress/gzip"
	cron "github.com/netresearch/go-cron"
	"github.com/prometheus/common/expfmt"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// StatePath is where the manager's metrics server serves the per-CronJob state metrics, beside
// /metrics and behind the same authentication and authorization (get on this non-resource URL).
const StatePath = "/metrics/state"

// stateListTimeout bounds the cache read of one scrape.
const stateListTimeout = 10 * time.Second

// stateFamily is one metric of the state endpoint; every one is a gauge labelled namespace and cronjob,
// and its extra labels.
type stateFamily struct {
	name, help string
	// labels are namespace, cronjob and extra in the order a sample writes them: sorted by name, as
	// client_golang writes them.
	labels []labelRef
}

// labelRef is a label's name and where its value is: 0 the namespace, 1 the name, 2 and on stateSample.extra.
type labelRef struct {
	name  string
	index int
}

// family makes a stateFamily with its labels in writing order.
func family(name, help string, extra ...string) stateFamily {
	f := stateFamily{name: name, help: help, labels: []labelRef{{"namespace", 0}, {"cronjob", 1}}}
	for j, l := range extra {
		f.labels = append(f.labels, labelRef{l, 2 + j})
	}
	slices.SortFunc(f.labels, func(a, b labelRef) int { return strings.Compare(a.name, b.name) })
	return f
}

// stateFamilies are the state metrics in the order a scrape writes them.
var stateFamilies = []stateFamily{
	family(MetricCronJobInfo, "Information about the CronJob; the value is 1.", "schedule", "time_zone", "concurrency_policy"),
	family(MetricCronJobCreated, "Creation time of the CronJob, in unix seconds."),
	family(MetricNextScheduleTime, "The first scheduled time after the last run (or the creation or last schedule edit), in unix seconds: in the past when a run is due or was missed, as kube_cronjob_next_schedule_time. Absent while suspended or when the schedule is invalid or never fires."),
	family(MetricLastScheduleTime, "status.lastScheduleTime: the scheduled time of the last run started, in unix seconds."),
	family(MetricLastSuccessfulTime, "status.lastSuccessfulTime: when the last successful Job completed, in unix seconds."),
	family(MetricLastFailureTime, "status.lastFailureTime: when the last Job failed, in unix seconds."),
	family(MetricActive, "Number of active Jobs: the length of status.active, or, when that list is full (100), every active Job of the CronJob."),
	family(MetricQueued, "Number of runs waiting under concurrencyPolicy Enqueue (status.queued)."),
	family(MetricSuspend, "1 when spec.suspend is true, else 0."),
	family(MetricCondition, "The CronJob's conditions, Ready and (with spec.successDeadlineSeconds) Healthy: 1 on the series of the current status (true, false or unknown), 0 on the others.", "condition", "status", "reason"),
	family(MetricRunTimeout, "spec.runTimeoutSeconds, in seconds. Absent when unset."),
	family(MetricStartTimeout, "spec.startTimeoutSeconds, in seconds. Absent when unset."),
	family(MetricSuccessDeadline, "spec.successDeadlineSeconds (the dead-man's switch), in seconds. Absent when unset."),
	family(MetricPaused, "1 when the controller paused the CronJob after spec.pauseAfterFailures failed runs in a row (spec.suspend true and the paused-at annotation), else 0."),
	family(MetricConsecutiveFailures, "status.consecutiveFailures: failed runs in a row since the last success or resume."),
	family(MetricSucceededRuns, "status.succeededRuns: runs that succeeded since the controller first tracked the CronJob."),
	family(MetricFailedRuns, "status.failedRuns: runs that failed (Failed, TimedOut, NeverStarted) since the controller first tracked the CronJob."),
}

// CronJobSource returns the cached CronJobs, which the caller only reads.
type CronJobSource func(ctx context.Context) ([]*cronjobv1.CronJob, error)

// State serves the state of every CronJob, in the style of kube-state-metrics' kube_cronjob_*
// metrics, from the manager's cache: a scrape reads the cached CronJobs and makes no API call. Its series
// carry the labels namespace and cronjob, so a scrape grows with the number of CronJobs: at most 16 series
// each (14 without a last success and a last failure), 22 with both timeouts and the dead-man's switch set
// (its Healthy condition adds 3); 140,000 to 220,000 at 10,000 CronJobs (BenchmarkStateScrape10k and
// BenchmarkStateScrape10kAllFields).
//
// It writes the Prometheus text format (0.0.4) straight to the response, gzip-compressed when the client
// accepts it, as kube-state-metrics does, instead of through client_golang's registry: a registry builds,
// checks and sorts a protobuf message per series on every scrape (at 10,000 CronJobs about 300 ms, 93 MB and
// 2.1 million allocations per scrape here), which is why these series are not on /metrics. Only the replica
// that leads (Start runs) serves series, so that a query over all replicas sees each CronJob once; the
// others answer with an empty body. A failed cache read answers 500 and is logged.
type State struct {
	source      CronJobSource
	countActive ActiveCounter // nil: MetricActive is the length of status.active (CountActiveWith)
	log         logr.Logger
	leading     atomic.Bool
	// nextRuns holds the next run time of each CronJob computed by the last scrape, by UID and
	// resourceVersion: between two scrapes most CronJobs do not change, and the time depends on the
	// CronJob alone (nextRunTime), so a scrape computes it only for those that did.
	nextRuns atomic.Pointer[nextRunMemo]
}

// NewState returns the state endpoint over source, logging scrape errors to log; it serves series only
// between Start and the end of its context (while the replica leads).
func NewState(source CronJobSource, log logr.Logger) *State {
	return &State{source: source, log: log}
}

// CachedCronJobs reads the CronJobs of c without copying them: from the informer's store when c exposes
// it (the manager's cache watching all namespaces), else through List without deep copies. List would copy
// each CronJob's struct (1.7 KB) into the list on every scrape.
func CachedCronJobs(c cache.Cache) CronJobSource {
	return func(ctx context.Context) ([]*cronjobv1.CronJob, error) {
		inf, err := c.GetInformer(ctx, &cronjobv1.CronJob{})
		if err != nil {
			return nil, err
		}
		if s, ok := inf.(interface{ GetStore() toolscache.Store }); ok {
			objs := s.GetStore().List()
			out := make([]*cronjobv1.CronJob, 0, len(objs))
			for _, o := range objs {
				if cj, ok := o.(*cronjobv1.CronJob); ok {
					out = append(out, cj)
				}
			}
			return out, nil
		}
		return listedCronJobs(ctx, c)
	}
}

// listedCronJobs reads the CronJobs of r through List, without deep copies.
func listedCronJobs(ctx context.Context, r client.Reader) ([]*cronjobv1.CronJob, error) {
	var list cronjobv1.CronJobList
	if err := r.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	out := make([]*cronjobv1.CronJob, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

// NeedLeaderElection implements manager.LeaderElectionRunnable: the series are served while this replica
// leads.
func (*State) NeedLeaderElection() bool { return true }

// Start marks this replica as the one that serves the series, until ctx is done.
func (s *State) Start(ctx context.Context) error {
	s.leading.Store(true)
	<-ctx.Done()
	s.leading.Store(false)
	return nil
}

// ServeHTTP implements http.Handler.
func (s *State) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var cronJobs []*cronjobv1.CronJob
	var active map[*cronjobv1.CronJob]int
	if s.leading.Load() {
		ctx, cancel := context.WithTimeout(r.Context(), stateListTimeout)
		defer cancel()
		var err error
		if cronJobs, err = s.source(ctx); err != nil {
			s.log.Error(err, "Reading the cached CronJobs for the state metrics")
			http.Error(w, "reading the cached CronJobs: "+err.Error(), http.StatusInternalServerError)
			return
		}
		active = s.activeBeyondList(ctx, cronJobs)
	}
	w.Header().Set("Content-Type", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	var out io.Writer = w
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		w.Header().Set("Content-Encoding", "gzip")
		gz, _ := gzip.NewWriterLevel(w, gzip.BestSpeed) // the level is valid
		defer func() { _ = gz.Close() }()
		out = gz
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	// A write error is the client gone: nothing to answer.
	var prev nextRunMemo
	if p := s.nextRuns.Load(); p != nil {
		prev = *p
	}
	next, err := writeState(bw, cronJobs, active, prev)
	if err == nil {
		_ = bw.Flush()
	}
	s.nextRuns.Store(&next)
}

// acceptsGzip reports whether an Accept-Encoding header lists gzip (with any quality but 0).
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		v, ok := strings.CutPrefix(strings.TrimSpace(params), "q=")
		if !ok {
			return true
		}
		q, err := strconv.ParseFloat(v, 64)
		return err != nil || q > 0
	}
	return false
}

// stateRow is what a scrape derives from one CronJob before it writes the families.
type stateRow struct {
	cj          *cronjobv1.CronJob
	active      int // active Jobs: len(status.active), or the count of a full one (CountActiveWith)
	next        time.Time
	hasNext     bool
	ready       metav1.ConditionStatus
	readyReason string
	healthy     *metav1.Condition // the Healthy condition, when the CronJob has one
}

// writeState writes the state families of cronJobs in the text format, the CronJobs of each family sorted
// by namespace and name; active holds the active Jobs counted of the CronJobs whose status.active is full.
// It allocates per scrape, not per series. prev is the next run times of the scrape before (nil for
// none); it returns this scrape's, for the next.
func writeState(w *bufio.Writer, cronJobs []*cronjobv1.CronJob, active map[*cronjobv1.CronJob]int, prev nextRunMemo) (nextRunMemo, error) {
	rows := make([]stateRow, len(cronJobs))
	schedules := scheduleMemo{}
	next := make(nextRunMemo, len(cronJobs))
	for i, cj := range cronJobs {
		row := stateRow{cj: cj, active: len(cj.Status.Active), ready: metav1.ConditionUnknown}
		if n, ok := active[cj]; ok {
			row.active = n
		}
		row.next, row.hasNext = next.nextRunTime(cj, prev, schedules)
		if cond := meta.FindStatusCondition(cj.Status.Conditions, cronjobv1.ConditionReady); cond != nil {
			row.ready, row.readyReason = cond.Status, cond.Reason
		}
		row.healthy = meta.FindStatusCondition(cj.Status.Conditions, cronjobv1.ConditionHealthy)
		rows[i] = row
	}
	slices.SortFunc(rows, func(a, b stateRow) int {
		if c := strings.Compare(a.cj.Namespace, b.cj.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.cj.Name, b.cj.Name)
	})
	buf := make([]byte, 0, 512)
	samples := make([]stateSample, 0, 3)
	for fi := range stateFamilies {
		f := &stateFamilies[fi]
		buf = append(buf[:0], "# HELP "...)
		buf = append(buf, f.name...)
		buf = append(buf, ' ')
		buf = append(buf, f.help...)
		buf = append(buf, "\n# TYPE "...)
		buf = append(buf, f.name...)
		buf = append(buf, " gauge\n"...)
		if _, err := w.Write(buf); err != nil {
			return next, err
		}
		for i := range rows {
			samples = rows[i].appendSeries(samples[:0], f.name)
			for _, s := range samples {
				buf = appendSample(buf[:0], f, rows[i].cj, s)
				if _, err := w.Write(buf); err != nil {
					return next, err
				}
			}
		}
	}
	return next, nil
}

// stateSample is one series of a family for one CronJob: its value and its extra label values.
type stateSample struct {
	value float64
	extra [3]string
}

// appendSeries appends the samples of family name for the row's CronJob to dst (none when the value is
// absent).
func (r *stateRow) appendSeries(dst []stateSample, name string) []stateSample {
	cj := r.cj
	var t *metav1.Time
	switch name {
	case MetricCronJobInfo:
		return append(dst, stateSample{value: 1, extra: [3]string{scheduleLabel(cj), ptr.Deref(cj.Spec.TimeZone, ""), string(cj.Spec.ConcurrencyPolicy)}})
	case MetricCronJobCreated:
		return append(dst, stateSample{value: unixSeconds(cj.CreationTimestamp.Time)})
	case MetricNextScheduleTime:
		if !r.hasNext {
			return dst
		}
		return append(dst, stateSample{value: unixSeconds(r.next)})
	case MetricLastScheduleTime:
		t = cj.Status.LastScheduleTime
	case MetricLastSuccessfulTime:
		t = cj.Status.LastSuccessfulTime
	case MetricLastFailureTime:
		t = cj.Status.LastFailureTime
	case MetricActive:
		return append(dst, stateSample{value: float64(r.active)})
	case MetricQueued:
		return append(dst, stateSample{value: float64(len(cj.Status.Queued))})
	case MetricSuspend:
		return append(dst, stateSample{value: boolValue(ptr.Deref(cj.Spec.Suspend, false))})
	case MetricCondition:
		for _, s := range []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown} {
			dst = append(dst, stateSample{value: boolValue(s == r.ready), extra: [3]string{cronjobv1.ConditionReady, lowerStatus(s), r.readyReason}})
		}
		if h := r.healthy; h != nil {
			for _, s := range []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown} {
				dst = append(dst, stateSample{value: boolValue(s == h.Status), extra: [3]string{cronjobv1.ConditionHealthy, lowerStatus(s), h.Reason}})
			}
		}
		return dst
	case MetricRunTimeout:
		return appendSeconds(dst, cj.Spec.RunTimeoutSeconds)
	case MetricStartTimeout:
		return appendSeconds(dst, cj.Spec.StartTimeoutSeconds)
	case MetricSuccessDeadline:
		return appendSeconds(dst, cj.Spec.SuccessDeadlineSeconds)
	case MetricPaused:
		_, annotated := cj.Annotations[cronjobv1.PausedAtAnnotation]
		return append(dst, stateSample{value: boolValue(annotated && ptr.Deref(cj.Spec.Suspend, false))})
	case MetricConsecutiveFailures:
		return append(dst, stateSample{value: float64(cj.Status.ConsecutiveFailures)})
	case MetricSucceededRuns:
		return append(dst, stateSample{value: float64(cj.Status.SucceededRuns)})
	case MetricFailedRuns:
		return append(dst, stateSample{value: float64(cj.Status.FailedRuns)})
	default:
		panic(fmt.Sprintf("no state family %q", name))
	}
	if t == nil {
		return dst
	}
	return append(dst, stateSample{value: unixSeconds(t.Time)})
}

// appendSeconds appends a sample of the field's value, or nothing when it is unset.
func appendSeconds(dst []stateSample, seconds *int64) []stateSample {
	if seconds == nil {
		return dst
	}
	return append(dst, stateSample{value: float64(*seconds)})
}

// appendSample appends one line of the text format: name{label="value",...} value, the labels sorted by
// name.
func appendSample(buf []byte, f *stateFamily, cj *cronjobv1.CronJob, s stateSample) []byte {
	buf = append(buf, f.name...)
	for i, l := range f.labels {
		if i == 0 {
			buf = append(buf, '{')
		} else {
			buf = append(buf, ',')
		}
		buf = append(buf, l.name...)
		buf = append(buf, `="`...)
		switch l.index {
		case 0:
			buf = appendLabelValue(buf, cj.Namespace)
		case 1:
			buf = appendLabelValue(buf, cj.Name)
		default:
			buf = appendLabelValue(buf, s.extra[l.index-2])
		}
		buf = append(buf, '"')
	}
	buf = append(buf, "} "...)
	buf = strconv.AppendFloat(buf, s.value, 'f', -1, 64)
	return append(buf, '\n')
}

// appendLabelValue appends v escaped as the text format requires: backslash, double quote and newline.
func appendLabelValue(buf []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			buf = append(buf, `\\`...)
		case '"':
			buf = append(buf, `\"`...)
		case '\n':
			buf = append(buf, `\n`...)
		default:
			buf = append(buf, c)
		}
	}
	return buf
}

// nextRunMemo is the next run time of CronJobs, by UID, with the resourceVersion it was computed for.
type nextRunMemo map[types.UID]nextRun

type nextRun struct {
	resourceVersion string
	at              time.Time
	ok              bool
}

// nextRunTime is schedules.nextRunTime(cj), taken from prev when prev has it for cj's resourceVersion,
// and recorded in m.
func (m nextRunMemo) nextRunTime(cj *cronjobv1.CronJob, prev nextRunMemo, schedules scheduleMemo) (time.Time, bool) {
	n, ok := prev[cj.UID]
	if !ok || n.resourceVersion != cj.ResourceVersion || cj.ResourceVersion == "" {
		n.resourceVersion = cj.ResourceVersion
		n.at, n.ok = schedules.nextRunTime(cj)
	}
	if cj.UID != "" {
		m[cj.UID] = n
	}
	return n.at, n.ok
}

// scheduleMemo holds the schedules parsed during one scrape, by schedule and time zone: CronJobs often
// share a schedule, and parsing (and loading a time zone) is most of a scrape's cost otherwise.
type scheduleMemo map[[2]string]cron.Schedule

// nextRunTime is the first scheduled time after the CronJob's last run, or its creation or last schedule
// edit if later (schedule.EarliestTime): the time the controller starts the next run. It is before now when a run is
// due or was missed. ok is false while suspended, with an invalid schedule, or when it never fires.
func (m scheduleMemo) nextRunTime(cj *cronjobv1.CronJob) (time.Time, bool) {
	if ptr.Deref(cj.Spec.Suspend, false) {
		return time.Time{}, false
	}
	if planned(cj) {
		return plannedNextRunTime(cj)
	}
	key := [2]string{cj.Spec.Schedule, ptr.Deref(cj.Spec.TimeZone, "")}
	sched, seen := m[key]
	if !seen {
		sched, _, _ = schedule.Parse(cj.Spec.Schedule, cj.Spec.TimeZone)
		m[key] = sched // nil for an invalid schedule or time zone
	}
	if sched == nil {
		return time.Time{}, false
	}
	earliest := schedule.EarliestTime(cj)
	next := schedule.Next(sched, earliest, earliest)
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

// planned reports whether cj uses a field that makes its times more than one schedule's: spec.schedules,
// spec.calendars, spec.activeWindow or spec.suspendUntil. Such CronJobs are not memoised.
func planned(cj *cronjobv1.CronJob) bool {
	s := &cj.Spec
	return len(s.Schedules) > 0 || len(s.Calendars) > 0 || s.ActiveWindow != nil || s.SuspendUntil != nil
}

// plannedNextRunTime is nextRunTime for a planned CronJob, by the scheduler's own math
// (schedule.ForScheduler) except the calendars, which a scrape does not read: it counts from the newest
// time a calendar excluded (status.lastExcludedTime) when that is later, and the controller records that
// time when it passes, so an excluded time is not shown as due for longer than a reconcile.
func plannedNextRunTime(cj *cronjobv1.CronJob) (time.Time, bool) {
	c := *cj
	c.Spec.Calendars = nil
	sched, _, err := schedule.ForScheduler(&c, nil)
	if err != nil {
		return time.Time{}, false
	}
	earliest := schedule.EarliestTime(cj)
	if ex := cj.Status.LastExcludedTime; ex != nil && ex.After(earliest) {
		earliest = ex.Time
	}
	next := schedule.Next(sched, earliest, earliest)
	return next, !next.IsZero()
}

// scheduleLabel is the schedule label of the info series: spec.schedule, or the entries of spec.schedules
// joined by "; ", each followed by its own time zone in brackets when it has one.
func scheduleLabel(cj *cronjobv1.CronJob) string {
	if len(cj.Spec.Schedules) == 0 {
		return cj.Spec.Schedule
	}
	parts := make([]string, len(cj.Spec.Schedules))
	for i, e := range cj.Spec.Schedules {
		parts[i] = e.Schedule
		if e.TimeZone != nil {
			parts[i] += " (" + *e.TimeZone + ")"
		}
	}
	return strings.Join(parts, "; ")
}
