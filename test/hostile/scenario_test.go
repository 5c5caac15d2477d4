package hostile

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// scenario is the state of one run of the suite: what it created, when, and what it measured.
type scenario struct {
	scale  Scale
	report *Result

	nsA, nsB         string
	oracleA, oracleB *framework.JobOracle
	// forbid is tenant A's Forbid CronJob; catchUp its catch-up CronJobs, last scheduled at anchor.
	forbid  *cronjobv1.CronJob
	catchUp []*cronjobv1.CronJob
	anchor  time.Time
	// minutely are tenant B's CronJobs, measured over the boundaries first to last; manual the CronJob of
	// its manual run, created at runCreated.
	minutely    []*cronjobv1.CronJob
	manual      types.UID
	first, last time.Time
	runCreated  time.Time
	// started is when the manager was started, ready when it answered /readyz.
	started, ready time.Time
	manager        *managerProcess
	// measured is set once the spec has measured at the end of its window; a cleanup then does not
	// measure again (by then the manager is stopped).
	measured bool
}

// step runs one part of the setup, fails the spec with its error and records how long it took.
func (s *scenario) step(name string, do func() error) {
	GinkgoHelper()
	start := time.Now()
	Expect(do()).To(Succeed(), name)
	s.report.Setup[name] = Seconds(time.Since(start))
}

// waitForTenantB returns once every run of tenant B has its Job, the manager has ended, or at deadline.
func (s *scenario) waitForTenantB(ctx context.Context, deadline time.Time) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) && s.manager.Err() == nil {
		if counts, _ := s.tenantB(); counts.Lost == 0 && time.Now().After(s.last) && s.manualRunWait() >= 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// tenantB counts tenant B's Jobs against the runs due from first to last (those come by now) and returns
// their skews.
func (s *scenario) tenantB() (framework.RunCounts, []time.Duration) {
	var due []time.Time
	now := time.Now()
	for t := s.first; !t.After(s.last) && !t.After(now); t = t.Add(time.Minute) {
		due = append(due, t)
	}
	var total framework.RunCounts
	var skews []time.Duration
	for _, cj := range s.minutely {
		var seen []time.Time
		for _, j := range s.oracleB.JobsOf(cj.UID) {
			if j.ScheduledAt.Before(s.first) || j.ScheduledAt.After(s.last) {
				continue // a run of a boundary outside the window: not measured
			}
			seen = append(seen, j.ScheduledAt)
			skews = append(skews, j.Seen.Sub(j.ScheduledAt))
		}
		c := framework.CountRuns(seen, due)
		total.Due += c.Due
		total.Started += c.Started
		total.Lost += c.Lost
		total.Duplicated += c.Duplicated
		total.Unexpected += c.Unexpected
	}
	return total, skews
}

// manualRunWait is from the manual run's creation to the oracle seeing its Job; -1 before that.
func (s *scenario) manualRunWait() time.Duration {
	jobs := s.oracleB.JobsOf(s.manual)
	if len(jobs) == 0 {
		return -1
	}
	return jobs[0].Seen.Sub(s.runCreated)
}

// measure fills the report with what the oracles and the manager's watcher saw. It may run with the
// scenario only partly created (a spec that failed in its setup).
func (s *scenario) measure() {
	if s.measured {
		return
	}
	r := s.report
	r.JobsCreated = 0
	if s.manager != nil {
		r.PeakRSSBytes, r.PeakHeapBytes, r.Requests = s.manager.Figures()
		if err := s.manager.Err(); err != nil {
			r.ManagerEnded = err.Error()
		}
		r.RanFor = Seconds(time.Since(s.ready))
	}
	if s.oracleB != nil && s.first.After(time.Time{}) {
		var skews []time.Duration
		r.TenantB, skews = s.tenantB()
		r.Skew = percentilesOf(skews)
		r.ManualRunWait = Seconds(s.manualRunWait())
		r.JobsCreated += len(s.oracleB.Jobs())
	}
	if s.oracleA != nil {
		s.countCatchUp()
	}
	if r.JobsCreated > 0 {
		r.RequestsPerRun = float64(r.Requests) / float64(r.JobsCreated)
	}
}

// countCatchUp counts tenant A's Jobs: the catch-up Jobs, those for a time already started and those for
// a time not owed, and the runs of the Forbid CronJob started beside its active Job. A catch-up CronJob
// owes the last CatchUpRuns minutes missed when it is first reconciled (after the manager started) and
// every minute since: never a time before, after now, or twice.
func (s *scenario) countCatchUp() {
	r := s.report
	r.CatchUpJobs, r.CatchUpDuplicates, r.CatchUpOutOfRange, r.ForbidBroken = 0, 0, 0, 0
	owed := s.started.Truncate(time.Minute).Add(-time.Duration(s.scale.CatchUpRuns-1) * time.Minute)
	if owed.Before(s.anchor.Add(time.Minute)) {
		owed = s.anchor.Add(time.Minute)
	}
	now := time.Now()
	seen := map[types.UID]map[time.Time]bool{}
	for _, cj := range s.catchUp {
		if cj != nil && cj.UID != "" {
			seen[cj.UID] = map[time.Time]bool{}
		}
	}
	jobs := s.oracleA.Jobs()
	for _, j := range jobs {
		times, ok := seen[j.Owner]
		if !ok {
			continue
		}
		r.CatchUpJobs++
		at := j.ScheduledAt.UTC()
		switch {
		case times[at]:
			r.CatchUpDuplicates++
		case at.Before(owed) || at.After(now) || !at.Equal(at.Truncate(time.Minute)):
			r.CatchUpOutOfRange++
		}
		times[at] = true
	}
	if s.forbid != nil {
		r.ForbidBroken = len(s.oracleA.JobsOf(s.forbid.UID)) - 1
	}
	if s.manager != nil {
		// Every Job of tenant A's namespace but the Forbid CronJob's blocking one is the manager's.
		r.JobsCreated += max(len(jobs)-1, 0)
	}
}
