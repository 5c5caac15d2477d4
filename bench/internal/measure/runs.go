package measure

import (
	"sort"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cronjob-operator/cronjob-operator/test/oracle"
)

// NextMinute returns the first whole minute at or after t.
func NextMinute(t time.Time) time.Time {
	m := t.Truncate(time.Minute)
	if m.Before(t) {
		m = m.Add(time.Minute)
	}
	return m
}

// ScheduledRun identifies one scheduled run: a CronJob (the owner of its Jobs) and a scheduled time.
type ScheduledRun struct {
	owner types.UID
	at    time.Time
}

// DueRuns returns every run of cronJobs scheduled in [from, to].
func DueRuns(cronJobs map[types.UID]cron.Schedule, from, to time.Time) []ScheduledRun {
	var out []ScheduledRun
	for uid, sched := range cronJobs {
		for t := sched.Next(from.Add(-time.Nanosecond)); !t.After(to); t = sched.Next(t) {
			out = append(out, ScheduledRun{owner: uid, at: t})
		}
	}
	return out
}

// LostAndDuplicates counts the due runs with no Job, and the Jobs beyond the first of a run.
func LostAndDuplicates(due []ScheduledRun, jobs []oracle.ObservedJob) (lost, duplicates int) {
	count := map[ScheduledRun]int{}
	for _, j := range jobs {
		count[ScheduledRun{owner: j.Owner, at: j.ScheduledAt.UTC()}]++
	}
	for _, d := range due {
		switch n := count[ScheduledRun{owner: d.owner, at: d.at.UTC()}]; {
		case n == 0:
			lost++
		case n > 1:
			duplicates += n - 1
		}
	}
	return lost, duplicates
}

// JobsFor returns the Jobs of cronJobs scheduled in [from, to].
func JobsFor(jobs []oracle.ObservedJob, cronJobs map[types.UID]cron.Schedule, from, to time.Time) []oracle.ObservedJob {
	var out []oracle.ObservedJob
	for _, j := range jobs {
		if _, ok := cronJobs[j.Owner]; ok && !j.ScheduledAt.Before(from) && !j.ScheduledAt.After(to) {
			out = append(out, j)
		}
	}
	return out
}

// RunsPerSecond is, averaged over the scheduled minutes, the Jobs of a minute divided by the time from
// that minute to the last of them being observed.
func RunsPerSecond(jobs []oracle.ObservedJob) float64 {
	type minute struct {
		n    int
		last time.Time
	}
	byMinute := map[time.Time]*minute{}
	for _, j := range jobs {
		m := byMinute[j.ScheduledAt]
		if m == nil {
			m = &minute{}
			byMinute[j.ScheduledAt] = m
		}
		m.n++
		if j.Seen.After(m.last) {
			m.last = j.Seen
		}
	}
	keys := make([]time.Time, 0, len(byMinute))
	for k := range byMinute {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Before(keys[j]) })
	sum := 0.0
	for _, k := range keys {
		sum += float64(byMinute[k].n) / byMinute[k].last.Sub(k).Seconds()
	}
	if len(keys) == 0 {
		return 0
	}
	return sum / float64(len(keys))
}
