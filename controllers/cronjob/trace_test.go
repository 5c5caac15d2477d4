package cronjob

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// TestDecisionTrace: at V(1) (--zap-log-level=debug) each reconcile says what it decided and why, with the
// slot, the policy, the verdict and what came of it; at V(0) it says nothing of it.
func TestDecisionTrace(t *testing.T) {
	cases := map[string]struct {
		// spec and status
		cronJob *builders.CronJobWrapper
		// environment
		jobs []*batchv1.Job
		now  time.Time
		// expectations: the decision's line holds each of these
		want []string
	}{
		"Forbid with the 09:00 run active at 10:00:05: held back, with the slot and the outcome": {
			cronJob: Hourly().Forbid().LastScheduleTime(PriorHour).Active(RunningJob(PriorHour)), jobs: []*batchv1.Job{RunningJob(PriorHour)}, now: IsTime,
			want: []string{`"msg"="Decided: the concurrency policy holds the run back (Forbid, or maxActiveJobs under Allow)"`,
				`"policy"="Forbid"`, `"slot"="2026-03-02T10:00:00Z"`, `"verdict"="Skip"`, `"outcome"="Skipped"`, `"active"=1`, `"nextStart"="2026-03-02T11:00:00Z"`},
		},
		"Allow at 10:00:05: admitted and created": {
			cronJob: Hourly().LastScheduleTime(PriorHour), now: IsTime,
			want: []string{`"msg"="Decided: the concurrency policy admits the run"`, `"verdict"="Start"`, `"outcome"="Created"`, `"unmet"=1`},
		},
		"before the hour: nothing due, with the next start": {
			cronJob: Hourly().LastScheduleTime(PriorHour), now: BeforeHour,
			want: []string{`"msg"="Decided: no run is due"`, `"nextStart"="2026-03-02T10:00:00Z"`, `"outcome"=""`},
		},
		"three runs late under missedRunPolicy All: the oldest, as a catch-up": {
			cronJob: Hourly().CatchUp(0).LastScheduleTime(HM(7, 0)), now: IsTime,
			want: []string{`"slot"="2026-03-02T08:00:00Z"`, `"catchUp"=true`, `"droppedOlder"=0`, `"missedRunPolicy"="All"`},
		},
		"Enqueue with 09:00 queued and none active: the head starts, 10:00 queues behind it": {
			cronJob: Hourly().Enqueue().LastScheduleTime(HM(8, 0)).Queued(PriorHour), now: IsTime,
			want: []string{`"msg"="Decided: the run waits in the queue (maxActiveJobs active, or older runs queued)"`,
				`"queuedHead"="2026-03-02T09:00:00Z"`, `"dequeued"="2026-03-02T09:00:00Z"`, `"outcome"="Queued"`},
		},
		"suspended: no run": {
			cronJob: Hourly().Suspend(), now: IsTime,
			want: []string{`"msg"="Decided: no run, the CronJob is suspended"`, `"queuedDropped"=0`},
		},
		"unknown time zone: no run, and why": {
			cronJob: Hourly().TimeZone("Mars/Olympus_Mons"), now: IsTime,
			want: []string{`"msg"="Decided: no run, the schedule cannot be evaluated"`, `"reason"="UnknownTimeZone"`},
		},
		"31 February: no run, never fires": {
			cronJob: Hourly().Schedule("0 0 31 2 *"), now: IsTime,
			want: []string{`"msg"="Decided: no run, the schedule never fires"`},
		},
		"20 s late past a 10 s deadline: missed": {
			cronJob: Hourly().StartingDeadlineSeconds(10).LastScheduleTime(PriorHour), now: TopOfTheHour.Add(20 * time.Second),
			want: []string{`"msg"="Decided: the run is past startingDeadlineSeconds and does not start"`, `"verdict"="Missed"`, `"outcome"="Missed"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := []client.Object{tc.cronJob.Obj()}
			for _, j := range tc.jobs {
				objs = append(objs, j)
			}
			for _, verbosity := range []int{0, 1} {
				f := newFixture(t, tc.now, interceptor.Funcs{}, objs...)
				Traced(t, verbosity, tc.want, func(ctx context.Context) {
					if _, err := f.r.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: Namespace, Name: "hourly"}}); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}
