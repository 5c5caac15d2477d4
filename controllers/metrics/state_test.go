package metrics

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// leadingStateMetrics is the state endpoint over the fixture's client, as served by the leader, and its
// URL; it stops with the test.
func leadingStateMetrics(t *testing.T, c client.Reader) (*State, string) {
	t.Helper()
	s := NewState(func(ctx context.Context) ([]*cronjobv1.CronJob, error) { return listedCronJobs(ctx, c) }, logr.Discard())
	s.leading.Store(true)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + StatePath
}

// scrapeState GETs url with the given Accept-Encoding (Go's transport would otherwise ask for gzip and
// decode it unseen) and returns the status, the Content-Encoding and the parsed families.
func scrapeState(t *testing.T, url, acceptEncoding string) (int, string, map[string]*dto.MetricFamily) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", acceptEncoding)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var body io.Reader = resp.Body
	if enc := resp.Header.Get("Content-Encoding"); enc == "gzip" {
		gz, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		body = gz
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode == http.StatusOK && ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type: got %q, want the text format 0.0.4", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(body)
	if err != nil {
		t.Fatalf("parsing the state metrics: %v", err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Encoding"), families
}

func seriesCount(families map[string]*dto.MetricFamily) int {
	n := 0
	for _, f := range families {
		n += len(f.GetMetric())
	}
	return n
}

// TestStateMetrics checks the per-CronJob series of a scrape over the cache (here a fake client): the times
// of the status, the next scheduled time (in the past when a run is overdue, absent while suspended), the
// active Jobs, suspend, and the Ready condition as three series; the same with and without gzip.
func TestStateMetrics(t *testing.T) {
	ready := metav1.Condition{Type: cronjobv1.ConditionReady, Status: metav1.ConditionTrue, Reason: cronjobv1.ReasonScheduled, LastTransitionTime: metav1.NewTime(PriorHour)}
	healthy := metav1.Condition{Type: cronjobv1.ConditionHealthy, Status: metav1.ConditionFalse, Reason: cronjobv1.ReasonNoRecentSuccess, LastTransitionTime: metav1.NewTime(PriorHour)}
	hourly := Hourly().TimeZone("Europe/Berlin").LastScheduleTime(PriorHour).LastSuccessfulTime(PriorHour.Add(time.Minute)).
		LastFailureTime(PriorHour.Add(-59 * time.Minute)).Active(RunningJob(PriorHour)).Condition(ready).Condition(healthy).
		RunTimeoutSeconds(600).SuccessDeadlineSeconds(7200).ConsecutiveFailures(2)
	hourly.Status.SucceededRuns, hourly.Status.FailedRuns = 5, 3
	f := FakeClient(nil, interceptor.Funcs{},
		CronJobOf(hourly),
		CronJobOf(builders.MakeCronJob("paused", Namespace).Schedule("*/5 * * * *").Forbid().Suspend().
			Annotation(cronjobv1.PausedAtAnnotation, "2026-03-02T08:00:00Z").ConsecutiveFailures(4).
			UID("paused-uid").CreationTimestamp(CreationTime).Generation(1)),
	)
	_, url := leadingStateMetrics(t, f)
	unix := func(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }
	want := `
# HELP cronjob_operator_cronjob_status_active Number of active Jobs: the length of status.active, or, when that list is full (100), every active Job of the CronJob.
# TYPE cronjob_operator_cronjob_status_active gauge
cronjob_operator_cronjob_status_active{cronjob="hourly",namespace="ns"} 1
cronjob_operator_cronjob_status_active{cronjob="paused",namespace="ns"} 0
# HELP cronjob_operator_cronjob_status_queued Number of runs waiting under concurrencyPolicy Enqueue (status.queued).
# TYPE cronjob_operator_cronjob_status_queued gauge
cronjob_operator_cronjob_status_queued{cronjob="hourly",namespace="ns"} 0
cronjob_operator_cronjob_status_queued{cronjob="paused",namespace="ns"} 0
# HELP cronjob_operator_cronjob_spec_suspend 1 when spec.suspend is true, else 0.
# TYPE cronjob_operator_cronjob_spec_suspend gauge
cronjob_operator_cronjob_spec_suspend{cronjob="hourly",namespace="ns"} 0
cronjob_operator_cronjob_spec_suspend{cronjob="paused",namespace="ns"} 1
# HELP cronjob_operator_cronjob_status_condition The CronJob's conditions, Ready and (with spec.successDeadlineSeconds) Healthy: 1 on the series of the current status (true, false or unknown), 0 on the others.
# TYPE cronjob_operator_cronjob_status_condition gauge
cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hourly",namespace="ns",reason="NoRecentSuccess",status="false"} 1
cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hourly",namespace="ns",reason="NoRecentSuccess",status="true"} 0
cronjob_operator_cronjob_status_condition{condition="Healthy",cronjob="hourly",namespace="ns",reason="NoRecentSuccess",status="unknown"} 0
cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="hourly",namespace="ns",reason="Scheduled",status="false"} 0
cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="hourly",namespace="ns",reason="Scheduled",status="true"} 1
cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="hourly",namespace="ns",reason="Scheduled",status="unknown"} 0
cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="paused",namespace="ns",reason="",status="false"} 0
cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="paused",namespace="ns",reason="",status="true"} 0
cronjob_operator_cronjob_status_condition{condition="Ready",cronjob="paused",namespace="ns",reason="",status="unknown"} 1
# HELP cronjob_operator_cronjob_info Information about the CronJob; the value is 1.
# TYPE cronjob_operator_cronjob_info gauge
cronjob_operator_cronjob_info{concurrency_policy="Allow",cronjob="hourly",namespace="ns",schedule="0 * * * *",time_zone="Europe/Berlin"} 1
cronjob_operator_cronjob_info{concurrency_policy="Forbid",cronjob="paused",namespace="ns",schedule="*/5 * * * *",time_zone=""} 1
# HELP cronjob_operator_cronjob_next_schedule_time The first scheduled time after the last run (or the creation or last schedule edit), in unix seconds: in the past when a run is due or was missed, as kube_cronjob_next_schedule_time. Absent while suspended or when the schedule is invalid or never fires.
# TYPE cronjob_operator_cronjob_next_schedule_time gauge
cronjob_operator_cronjob_next_schedule_time{cronjob="hourly",namespace="ns"} ` + unix(TopOfTheHour) + `
# HELP cronjob_operator_cronjob_status_last_schedule_time status.lastScheduleTime: the scheduled time of the last run started, in unix seconds.
# TYPE cronjob_operator_cronjob_status_last_schedule_time gauge
cronjob_operator_cronjob_status_last_schedule_time{cronjob="hourly",namespace="ns"} ` + unix(PriorHour) + `
# HELP cronjob_operator_cronjob_status_last_successful_time status.lastSuccessfulTime: when the last successful Job completed, in unix seconds.
# TYPE cronjob_operator_cronjob_status_last_successful_time gauge
cronjob_operator_cronjob_status_last_successful_time{cronjob="hourly",namespace="ns"} ` + unix(PriorHour.Add(time.Minute)) + `
# HELP cronjob_operator_cronjob_status_last_failure_time status.lastFailureTime: when the last Job failed, in unix seconds.
# TYPE cronjob_operator_cronjob_status_last_failure_time gauge
cronjob_operator_cronjob_status_last_failure_time{cronjob="hourly",namespace="ns"} ` + unix(PriorHour.Add(-59*time.Minute)) + `
# HELP cronjob_operator_cronjob_created Creation time of the CronJob, in unix seconds.
# TYPE cronjob_operator_cronjob_created gauge
cronjob_operator_cronjob_created{cronjob="hourly",namespace="ns"} ` + unix(CreationTime) + `
cronjob_operator_cronjob_created{cronjob="paused",namespace="ns"} ` + unix(CreationTime) + `
# HELP cronjob_operator_cronjob_spec_run_timeout_seconds spec.runTimeoutSeconds, in seconds. Absent when unset.
# TYPE cronjob_operator_cronjob_spec_run_timeout_seconds gauge
cronjob_operator_cronjob_spec_run_timeout_seconds{cronjob="hourly",namespace="ns"} 600
# HELP cronjob_operator_cronjob_spec_success_deadline_seconds spec.successDeadlineSeconds (the dead-man's switch), in seconds. Absent when unset.
# TYPE cronjob_operator_cronjob_spec_success_deadline_seconds gauge
cronjob_operator_cronjob_spec_success_deadline_seconds{cronjob="hourly",namespace="ns"} 7200
# HELP cronjob_operator_cronjob_paused 1 when the controller paused the CronJob after spec.pauseAfterFailures failed runs in a row (spec.suspend true and the paused-at annotation), else 0.
# TYPE cronjob_operator_cronjob_paused gauge
cronjob_operator_cronjob_paused{cronjob="hourly",namespace="ns"} 0
cronjob_operator_cronjob_paused{cronjob="paused",namespace="ns"} 1
# HELP cronjob_operator_cronjob_status_consecutive_failures status.consecutiveFailures: failed runs in a row since the last success or resume.
# TYPE cronjob_operator_cronjob_status_consecutive_failures gauge
cronjob_operator_cronjob_status_consecutive_failures{cronjob="hourly",namespace="ns"} 2
cronjob_operator_cronjob_status_consecutive_failures{cronjob="paused",namespace="ns"} 4
# HELP cronjob_operator_cronjob_status_succeeded_runs status.succeededRuns: runs that succeeded since the controller first tracked the CronJob.
# TYPE cronjob_operator_cronjob_status_succeeded_runs gauge
cronjob_operator_cronjob_status_succeeded_runs{cronjob="hourly",namespace="ns"} 5
cronjob_operator_cronjob_status_succeeded_runs{cronjob="paused",namespace="ns"} 0
# HELP cronjob_operator_cronjob_status_failed_runs status.failedRuns: runs that failed (Failed, TimedOut, NeverStarted) since the controller first tracked the CronJob.
# TYPE cronjob_operator_cronjob_status_failed_runs gauge
cronjob_operator_cronjob_status_failed_runs{cronjob="hourly",namespace="ns"} 3
cronjob_operator_cronjob_status_failed_runs{cronjob="paused",namespace="ns"} 0
`

	if err := testutil.ScrapeAndCompare(url, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	plainCode, plainEnc, plain := scrapeState(t, url, "identity")
	gzCode, gzEnc, gzipped := scrapeState(t, url, "gzip, deflate")
	if plainCode != http.StatusOK || gzCode != http.StatusOK || plainEnc != "" || gzEnc != "gzip" {
		t.Errorf("status and encoding: plain %d %q, gzip %d %q; want 200 \"\" and 200 \"gzip\"", plainCode, plainEnc, gzCode, gzEnc)
	}
	if diff := cmp.Diff(plain, gzipped, cmp.Comparer(func(a, b *dto.MetricFamily) bool { return a.String() == b.String() })); diff != "" {
		t.Errorf("gzip changes the series (-plain +gzip):\n%s", diff)
	}
	// 16 series per CronJob, 22 with the timeouts and the dead-man's switch set (README "Monitoring" sizes
	// a scrape from it): hourly sets two of the three fields and has Healthy; paused has no status times.
	if n := seriesCount(plain); n != 21+12 {
		t.Errorf("series: got %d, want 33 (21 for hourly, 12 for paused: suspended, no status times)", n)
	}
}

// TestStateMetricsQueued: the queue length of a CronJob with runs waiting under Enqueue.
func TestStateMetricsQueued(t *testing.T) {
	f := FakeClient(nil, interceptor.Funcs{},
		CronJobOf(Hourly().Enqueue().LastScheduleTime(TopOfTheHour.Add(-3*time.Hour)).Queued(TopOfTheHour.Add(-2*time.Hour), TopOfTheHour.Add(-time.Hour))))
	_, url := leadingStateMetrics(t, f)
	want := `
# HELP cronjob_operator_cronjob_status_queued Number of runs waiting under concurrencyPolicy Enqueue (status.queued).
# TYPE cronjob_operator_cronjob_status_queued gauge
cronjob_operator_cronjob_status_queued{cronjob="hourly",namespace="ns"} 2
`
	if err := testutil.ScrapeAndCompare(url, strings.NewReader(want), MetricQueued); err != nil {
		t.Error(err)
	}
}

// TestStateMetricsPlanned: a CronJob with spec.schedules shows the entries in the info series' schedule
// label, and its next schedule time is that of the union after the last run, or after the newest time a
// calendar excluded (status.lastExcludedTime), which the scrape does not read calendars to know.
func TestStateMetricsPlanned(t *testing.T) {
	f := FakeClient(nil, interceptor.Funcs{},
		CronJobOf(Hourly().Schedules("0 10 * * *", "30 10 * * * @ Europe/Berlin").Calendars("holidays").
			LastScheduleTime(PriorHour).LastExcludedTime(TopOfTheHour)))
	_, url := leadingStateMetrics(t, f)
	// 10:30 in Berlin (CET) is 09:30 UTC: after the last run at 09:00, the union's next time is 09:30; the
	// 10:00 excluded later moves it to the next day's 09:30.
	want := `
# HELP cronjob_operator_cronjob_info Information about the CronJob; the value is 1.
# TYPE cronjob_operator_cronjob_info gauge
cronjob_operator_cronjob_info{concurrency_policy="Allow",cronjob="hourly",namespace="ns",schedule="0 10 * * *; 30 10 * * * (Europe/Berlin)",time_zone=""} 1
# HELP cronjob_operator_cronjob_next_schedule_time The first scheduled time after the last run (or the creation or last schedule edit), in unix seconds: in the past when a run is due or was missed, as kube_cronjob_next_schedule_time. Absent while suspended or when the schedule is invalid or never fires.
# TYPE cronjob_operator_cronjob_next_schedule_time gauge
cronjob_operator_cronjob_next_schedule_time{cronjob="hourly",namespace="ns"} ` + strconv.FormatInt(MustTime("2026-03-03T09:30:00Z").Unix(), 10) + `
`
	if err := testutil.ScrapeAndCompare(url, strings.NewReader(want), MetricCronJobInfo, MetricNextScheduleTime); err != nil {
		t.Error(err)
	}
}

// TestStateMetricsEscapesLabelValues: a schedule, time zone or reason with a quote, a backslash or a
// newline (the webhook rejects such a schedule, but the cache holds what the API server stored) keeps the
// scrape parseable and reads back as it was.
func TestStateMetricsEscapesLabelValues(t *testing.T) {
	schedule, zone, reason := `0 * * * * "x"`, `Etc\UTC`, "two\nlines"
	notReady := metav1.Condition{Type: cronjobv1.ConditionReady, Status: metav1.ConditionFalse, Reason: reason, LastTransitionTime: metav1.NewTime(CreationTime)}
	f := FakeClient(nil, interceptor.Funcs{}, CronJobOf(Hourly().Schedule(schedule).TimeZone(zone).Condition(notReady)))
	_, url := leadingStateMetrics(t, f)
	_, _, families := scrapeState(t, url, "")
	labels := func(name string) []map[string]string {
		var out []map[string]string
		for _, m := range families[name].GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			out = append(out, l)
		}
		return out
	}
	if got := labels(MetricCronJobInfo); len(got) != 1 || got[0]["schedule"] != schedule || got[0]["time_zone"] != zone {
		t.Errorf("info labels: got %v, want schedule %q and time_zone %q", got, schedule, zone)
	}
	for _, l := range labels(MetricCondition) {
		if l["reason"] != reason {
			t.Errorf("condition reason: got %q, want %q", l["reason"], reason)
		}
	}
	if _, ok := families[MetricNextScheduleTime]; ok {
		t.Errorf("next schedule time of an invalid schedule: got %v, want no series", families[MetricNextScheduleTime])
	}
}

// TestStateMetricsWhileLeading: the series are served while Start runs (on the leader only,
// NeedLeaderElection), and the endpoint answers with no series before and after.
func TestStateMetricsWhileLeading(t *testing.T) {
	g := gomega.NewWithT(t)
	f := FakeClient(nil, interceptor.Funcs{}, CronJobOf(nil))
	s, url := leadingStateMetrics(t, f)
	s.leading.Store(false)
	g.Expect(s.NeedLeaderElection()).To(gomega.BeTrue())
	exported := func() int {
		code, _, families := scrapeState(t, url, "gzip")
		g.Expect(code).To(gomega.Equal(http.StatusOK))
		return len(families[MetricCronJobInfo].GetMetric())
	}
	g.Expect(exported()).To(gomega.Equal(0), "a replica that does not lead serves no state")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	g.Eventually(exported).WithTimeout(30 * time.Second).Should(gomega.Equal(1))

	cancel()
	g.Eventually(done).WithTimeout(30 * time.Second).Should(gomega.Receive(gomega.BeNil()))
	g.Expect(exported()).To(gomega.Equal(0), "a replica that no longer leads serves no state")
}

// TestStateMetricsReadError: a failed cache read answers 500 with the cause, not an empty scrape that
// would look like no CronJobs.
func TestStateMetricsReadError(t *testing.T) {
	s := NewState(func(context.Context) ([]*cronjobv1.CronJob, error) { return nil, errors.New("cache not synced") }, logr.Discard())
	s.leading.Store(true)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, StatePath, nil))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "cache not synced") {
		t.Errorf("got %d %q, want 500 with the cause", rec.Code, rec.Body.String())
	}
}

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"":                        false,
		"identity":                false,
		"gzip":                    true,
		"deflate, GZIP":           true,
		"gzip;q=0.5, identity":    true,
		"gzip; q=0":               false,
		"gzip;q=0.000":            false,
		"br, gzip;q=1.0, *;q=0.1": true,
		"x-gzip":                  false,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("acceptsGzip(%q): got %v, want %v", header, got, want)
		}
	}
}

// BenchmarkStateScrape10k is one gzip scrape of the state metrics of 10,000 CronJobs (140,000 series: 14
// each, no last success or failure, none of issue 24's spec fields, no Healthy condition) on 1,440
// distinct daily schedules, over a cache read that copies nothing: parsing, rendering, sorting and
// compression, what a Prometheus scrape costs.
func BenchmarkStateScrape10k(b *testing.B) {
	benchmarkStateScrape(b, func(cj *builders.CronJobWrapper) *builders.CronJobWrapper { return cj })
}

// BenchmarkStateScrape10kAllFields is BenchmarkStateScrape10k with every series a CronJob can have (22
// each, 220,000): the last success and failure, Ready and Healthy, the run and start timeouts and the
// success deadline.
func BenchmarkStateScrape10kAllFields(b *testing.B) {
	ready := metav1.Condition{Type: cronjobv1.ConditionReady, Status: metav1.ConditionTrue, Reason: cronjobv1.ReasonScheduled, LastTransitionTime: metav1.NewTime(PriorHour)}
	healthy := metav1.Condition{Type: cronjobv1.ConditionHealthy, Status: metav1.ConditionTrue, Reason: cronjobv1.ReasonSucceededRecently, LastTransitionTime: metav1.NewTime(PriorHour)}
	benchmarkStateScrape(b, func(cj *builders.CronJobWrapper) *builders.CronJobWrapper {
		return cj.LastSuccessfulTime(PriorHour).LastFailureTime(PriorHour.Add(-time.Hour)).Condition(ready).Condition(healthy).
			RunTimeoutSeconds(3600).StartTimeoutSeconds(300).SuccessDeadlineSeconds(172800).PauseAfterFailures(3).ConsecutiveFailures(1)
	})
}

// benchmarkStateScrape scrapes 10,000 CronJobs on 1,440 daily schedules, each as with makes it, and reports
// the series and the gzipped bytes of a scrape beside its time and allocations.
func benchmarkStateScrape(b *testing.B, with func(*builders.CronJobWrapper) *builders.CronJobWrapper) {
	cronJobs := make([]*cronjobv1.CronJob, 0, 10000)
	for i := range 10000 {
		daily := strconv.Itoa(i%60) + " " + strconv.Itoa(i/60%24) + " * * *"
		cronJobs = append(cronJobs, CronJobOf(with(builders.MakeCronJob("cj-"+strconv.Itoa(i), Namespace).Schedule(daily).
			UID(types.UID("uid-"+strconv.Itoa(i))).ResourceVersion("1").
			CreationTimestamp(CreationTime).LastScheduleTime(TopOfTheHour).Generation(1))))
	}
	s := NewState(func(context.Context) ([]*cronjobv1.CronJob, error) { return cronJobs, nil }, logr.Discard())
	s.leading.Store(true)
	plain := httptest.NewRecorder()
	s.ServeHTTP(plain, httptest.NewRequest(http.MethodGet, StatePath, nil))
	series := 0
	for line := range strings.Lines(plain.Body.String()) {
		if !strings.HasPrefix(line, "#") {
			series++
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, StatePath, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
		b.ReportMetric(float64(rec.Body.Len()), "gzip-bytes/scrape")
	}
	b.ReportMetric(float64(series), "series/scrape")
}

// informerCache is a cache whose CronJob informer is inf (or whose GetInformer fails with err), and whose
// List reads list.
type informerCache struct {
	cache.Cache
	inf  cache.Informer
	err  error
	list client.Reader
}

func (c informerCache) GetInformer(context.Context, client.Object, ...cache.InformerGetOption) (cache.Informer, error) {
	return c.inf, c.err
}

func (c informerCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.list.List(ctx, list, opts...)
}

// storeInformer is an informer that exposes its store, as the manager's informers do.
type storeInformer struct {
	cache.Informer
	store toolscache.Store
}

func (i storeInformer) GetStore() toolscache.Store { return i.store }

func TestCachedCronJobsReadTheInformersStore(t *testing.T) {
	a, b := Hourly().Obj(), builders.MakeCronJob("other", "team-b").Obj()
	store := toolscache.NewStore(toolscache.MetaNamespaceKeyFunc)
	for _, o := range []any{a, b, builders.MakeJob("not-a-cronjob", Namespace).Obj()} {
		if err := store.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	names := func(cjs []*cronjobv1.CronJob) []string {
		var out []string
		for _, cj := range cjs {
			out = append(out, cj.Namespace+"/"+cj.Name)
		}
		slices.Sort(out)
		return out
	}

	got, err := CachedCronJobs(informerCache{inf: storeInformer{store: store}})(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{Namespace + "/hourly", "team-b/other"}, names(got)); diff != "" {
		t.Errorf("CronJobs from the store (-want,+got): every CronJob, and nothing else:\n%s", diff)
	}
	if !slices.Contains(got, a) {
		t.Error("the CronJobs are copies: they must be the store's own objects, not copied on every scrape")
	}

	// An informer without a store (a cache of another kind): List, through the cache.
	c := fake.NewClientBuilder().WithScheme(Scheme()).WithObjects(b).Build()
	got, err = CachedCronJobs(informerCache{inf: struct{ cache.Informer }{}, list: c})(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"team-b/other"}, names(got)); diff != "" {
		t.Errorf("CronJobs listed (-want,+got):\n%s", diff)
	}

	// No informer: the scrape fails with the cache's error, rather than exporting an empty state.
	broken := errors.New("no informer")
	if _, err := CachedCronJobs(informerCache{err: broken})(t.Context()); !errors.Is(err, broken) {
		t.Errorf("err = %v, want %v", err, broken)
	}
}

func TestStateMetricsOrderByNamespaceThenName(t *testing.T) {
	// Every scrape of the same state is the same text, series sorted by namespace, then name: a diff of two
	// scrapes shows what changed, not a new order.
	var objs []client.Object
	for _, k := range [][2]string{{"team-b", "alpha"}, {"team-a", "zeta"}, {"team-a", "beta"}} {
		objs = append(objs, builders.MakeCronJob(k[1], k[0]).Schedule("0 * * * *").UID(types.UID("uid-"+k[1])).Obj())
	}
	c := fake.NewClientBuilder().WithScheme(Scheme()).WithObjects(objs...).Build()
	s, _ := leadingStateMetrics(t, c)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, StatePath, nil))
	var order []string
	for line := range strings.Lines(rec.Body.String()) {
		if rest, ok := strings.CutPrefix(line, "cronjob_operator_cronjob_status_active{"); ok {
			order = append(order, rest[:strings.IndexByte(rest, '}')])
		}
	}
	want := []string{`cronjob="beta",namespace="team-a"`, `cronjob="zeta",namespace="team-a"`, `cronjob="alpha",namespace="team-b"`}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("order of the series (-want,+got):\n%s", diff)
	}
}

// A scrape reuses the next scheduled time of a CronJob that did not change since the scrape before, and
// computes it again for one whose status moved on: after the run at 10:00 is recorded, the series says
// 11:00, not the 10:00 of the scrape before.
func TestStateMetricsNextScheduleTimeFollowsTheStatus(t *testing.T) {
	f := FakeClient(nil, interceptor.Funcs{}, CronJobOf(Hourly().LastScheduleTime(PriorHour)))
	_, url := leadingStateMetrics(t, f)
	nextOf := func() float64 {
		t.Helper()
		_, _, families := scrapeState(t, url, "gzip")
		f := families["cronjob_operator_cronjob_next_schedule_time"]
		if f == nil || len(f.GetMetric()) != 1 {
			t.Fatalf("next_schedule_time: %v, want one series", f)
		}
		return f.GetMetric()[0].GetGauge().GetValue()
	}
	for range 2 {
		if got, want := nextOf(), float64(TopOfTheHour.Unix()); got != want {
			t.Fatalf("before the run: next = %v, want %v (10:00)", got, want)
		}
	}
	var cj cronjobv1.CronJob
	if err := f.Get(t.Context(), client.ObjectKey{Namespace: Namespace, Name: "hourly"}, &cj); err != nil {
		t.Fatal(err)
	}
	cj.Status.LastScheduleTime = &metav1.Time{Time: TopOfTheHour}
	if err := f.Status().Update(t.Context(), &cj); err != nil {
		t.Fatal(err)
	}
	if got, want := nextOf(), float64(TopOfTheHour.Add(time.Hour).Unix()); got != want {
		t.Errorf("after the run: next = %v, want %v (11:00)", got, want)
	}
}
