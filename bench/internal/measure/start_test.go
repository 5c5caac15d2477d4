package measure

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// oursMetrics is an excerpt of ours' /metrics: controller-runtime's workqueue metrics, its priority queue's
// depth by priority, and a second controller's queue.
const oursMetrics = `# HELP workqueue_adds_total Total number of adds handled by workqueue
# TYPE workqueue_adds_total counter
workqueue_adds_total{controller="cronjob-operator",name="cronjob-operator"} 100012
workqueue_adds_total{controller="cronjobrun",name="cronjobrun"} 5
# HELP workqueue_depth Current depth of workqueue by workqueue and priority
# TYPE workqueue_depth gauge
workqueue_depth{controller="cronjob-operator",name="cronjob-operator",priority="-100"} 30
workqueue_depth{controller="cronjob-operator",name="cronjob-operator",priority="0"} 2
workqueue_depth{controller="cronjobrun",name="cronjobrun",priority=""} 7
# TYPE workqueue_queue_duration_seconds histogram
workqueue_queue_duration_seconds_bucket{controller="cronjob-operator",name="cronjob-operator",le="1e-08"} 0
workqueue_queue_duration_seconds_sum{controller="cronjob-operator",name="cronjob-operator"} 12.5
workqueue_queue_duration_seconds_count{controller="cronjob-operator",name="cronjob-operator"} 99980
workqueue_queue_duration_seconds_count{controller="cronjobrun",name="cronjobrun"} 5
go_memstats_heap_inuse_bytes 4.2e+07
`

// peerMetrics is an excerpt of kube-controller-manager's /metrics (component-base's workqueue metrics,
// [BETA] in their help), with a timestamp on one sample.
const peerMetrics = `# HELP workqueue_adds_total [BETA] Total number of adds handled by workqueue
# TYPE workqueue_adds_total counter
workqueue_adds_total{name="DynamicServingCertificateController"} 1
workqueue_adds_total{name="cronjob"} 2000 1764849600000
# TYPE workqueue_depth gauge
workqueue_depth{name="cronjob"} 0
workqueue_queue_duration_seconds_count{name="cronjob"} 1999
`

func TestParseQueue(t *testing.T) {
	cases := map[string]struct {
		text, queue string
		// expectations
		want      QueueSample
		wantFound bool
		wantErr   bool
	}{
		"ours: the depth summed over priorities, the other controller's queue left out": {
			text: oursMetrics, queue: "cronjob-operator",
			want: QueueSample{Adds: 100012, Depth: 32, Gets: 99980}, wantFound: true,
		},
		"the peer, a timestamp ignored": {
			text: peerMetrics, queue: "cronjob",
			want: QueueSample{Adds: 2000, Gets: 1999}, wantFound: true,
		},
		"no such queue yet: not found": {text: peerMetrics, queue: "cronjob-operator"},
		"an escaped quote and a comma in a label value": {
			text:  `workqueue_adds_total{other="a\"b,c",name="cronjob"} 3` + "\n",
			queue: "cronjob", want: QueueSample{Adds: 3}, wantFound: true,
		},
		"an unterminated label value fails":    {text: `workqueue_depth{name="cronjob} 3`, queue: "cronjob", wantErr: true},
		"a value that is no number fails":      {text: `workqueue_depth{name="cronjob"} many`, queue: "cronjob", wantErr: true},
		"other metrics' odd lines are skipped": {text: "weird_metric{{{ x\nworkqueue_adds_total{name=\"cronjob\"} 1", queue: "cronjob", want: QueueSample{Adds: 1}, wantFound: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, found, err := ParseQueue([]byte(tc.text), tc.queue)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseQueue error = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if found != tc.wantFound {
				t.Errorf("found = %v, want %v", found, tc.wantFound)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseQueue (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestStartWatch(t *testing.T) {
	type sample struct {
		at time.Duration
		q  QueueSample
	}
	cases := map[string]struct {
		cronJobs int
		samples  []sample
		// expectations
		wantSynced, wantReconciled time.Duration
		wantDone                   bool
	}{
		"the list queued, workers start, the queue drains": {
			cronJobs: 1000,
			samples: []sample{
				{100 * time.Millisecond, QueueSample{}},
				{200 * time.Millisecond, QueueSample{Adds: 600, Depth: 600}},
				{300 * time.Millisecond, QueueSample{Adds: 1000, Depth: 1000}},
				{400 * time.Millisecond, QueueSample{Adds: 1000, Depth: 900, Gets: 100}},
				{500 * time.Millisecond, QueueSample{Adds: 1000, Depth: 400, Gets: 600}},
				{600 * time.Millisecond, QueueSample{Adds: 1003, Depth: 0, Gets: 1003}},
				{700 * time.Millisecond, QueueSample{Adds: 1010, Depth: 0, Gets: 1010}},
			},
			wantSynced: 400 * time.Millisecond, wantReconciled: 600 * time.Millisecond, wantDone: true,
		},
		"empty between adds, fewer adds than CronJobs: not done": {
			cronJobs: 1000,
			samples: []sample{
				{100 * time.Millisecond, QueueSample{Adds: 10, Depth: 0, Gets: 10}},
				{200 * time.Millisecond, QueueSample{Adds: 999, Depth: 0, Gets: 999}},
			},
			wantSynced: 100 * time.Millisecond,
		},
		"adds reached but CronJobs still queued: not done": {
			cronJobs:   1000,
			samples:    []sample{{time.Second, QueueSample{Adds: 1200, Depth: 1, Gets: 1199}}},
			wantSynced: time.Second,
		},
		"all at once in one sample": {
			cronJobs:   5,
			samples:    []sample{{2 * time.Second, QueueSample{Adds: 5, Gets: 5}}},
			wantSynced: 2 * time.Second, wantReconciled: 2 * time.Second, wantDone: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := StartWatch{CronJobs: tc.cronJobs}
			var done bool
			for _, s := range tc.samples {
				done = w.Observe(s.at, s.q)
			}
			if done != tc.wantDone || w.CachesSynced != tc.wantSynced || w.Reconciled != tc.wantReconciled {
				t.Errorf("after the samples: done %v, synced %s, reconciled %s; want %v, %s, %s",
					done, w.CachesSynced, w.Reconciled, tc.wantDone, tc.wantSynced, tc.wantReconciled)
			}
		})
	}
}
