package schedule

import (
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	cron "github.com/netresearch/go-cron"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// MaxMissedTimes is how many unmet scheduled times may pile up before the controller warns with
// TooManyMissedTimes. It matches batch/v1 CronJob. The most recent time still runs.
const MaxMissedTimes = 100

// RequeuePadding is added to the time until the next scheduled run when the controller asks to be requeued.
// The check that a run is due is exact (now >= scheduled time), so a timer that fires early only costs one
// more short requeue; the padding is kept small to keep the start skew small. batch/v1 pads by 100 ms.
const RequeuePadding = 10 * time.Millisecond

// cronParser parses the standard five-field format and descriptors (@hourly, @every 90m, ...), the formats
// batch/v1 CronJob accepts, and the month-end and weekday-of-the-month tokens (L, L-n, LW, nW in the
// day-of-month field; d#n, d#L in the day-of-week field), which batch/v1 refuses. DowOrDom keeps batch/v1's
// day matching: when both day fields are restricted, either may match (the library's default is both).
// Without a minimum for @every, Parse's own bounds give the message for "@every 0s" too.
var cronParser = cron.MustNewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor |
	cron.DowOrDom | cron.DomL | cron.DomW | cron.DowNth | cron.DowLast).WithMinEveryInterval(0)

// minEvery and maxEvery bound the interval of an "@every" schedule. Below a minute two runs could get the
// same Job name and one would be lost (batch/v1 accepts such schedules); above five years the interval
// arithmetic could overflow, and no cron schedule looks further ahead either.
const (
	minEvery = time.Minute
	maxEvery = 5 * 365 * 24 * time.Hour
)

// Error is a user error in spec.schedule or spec.timeZone; Reason is the event and condition reason.
type Error struct {
	Reason  string
	Message string
	// Field is the path of the field at fault when it is not spec.schedule or spec.timeZone
	// (spec.schedules[1].timeZone, ...); empty otherwise.
	Field string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// locations holds the time zones loaded so far, by name (*time.Location values). time.LoadLocation
// reads and parses the zone's file on every call; every reconcile and every scrape of the state metrics
// parses a schedule, so a zone is loaded once per process instead. Only zones that loaded are kept, so the
// map is bounded by the zone database, whatever names the CronJobs give.
var locations sync.Map

// loadLocation is time.LoadLocation, cached in locations.
func loadLocation(name string) (*time.Location, error) {
	if l, ok := locations.Load(name); ok {
		return l.(*time.Location), nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	locations.Store(name, l)
	return l, nil
}

// Parse parses spec.schedule in the time zone spec.timeZone (UTC when nil) and returns the schedule
// and its location. It never panics: a panic of the cron library on a malformed string becomes an error.
// Errors are *Error with Reason UnparseableSchedule or UnknownTimeZone and a message that says
// what to fix.
func Parse(schedule string, timeZone *string) (sched cron.Schedule, loc *time.Location, err error) {
	loc = time.UTC
	if tz := ptr.Deref(timeZone, ""); tz != "" {
		l, lerr := loadLocation(tz)
		if lerr != nil || strings.EqualFold(tz, "local") {
			return nil, nil, &Error{Reason: cronjobv1.ReasonUnknownTimeZone,
				Message: fmt.Sprintf("spec.timeZone %q is not a known IANA time zone: use a name such as \"Europe/Berlin\" or leave it unset for UTC", tz)}
		}
		loc = l
	}
	trimmed := strings.TrimSpace(schedule)
	if strings.Contains(trimmed, "TZ=") {
		return nil, nil, &Error{Reason: cronjobv1.ReasonUnparseableSchedule,
			Message: fmt.Sprintf("spec.schedule %q must not contain TZ= or CRON_TZ=: remove the prefix and set spec.timeZone instead", schedule)}
	}
	defer func() {
		if r := recover(); r != nil {
			sched, loc = nil, nil
			err = &Error{Reason: cronjobv1.ReasonUnparseableSchedule,
				Message: fmt.Sprintf("spec.schedule %q is malformed (%v): use five fields (minute hour day-of-month month day-of-week) or a descriptor such as @hourly", schedule, r)}
		}
	}()
	prepared, problem := prepareFields(trimmed)
	var s cron.Schedule
	if problem == "" {
		var perr error
		if s, perr = cronParser.Parse(prepared); perr != nil {
			problem = libraryProblem(trimmed, prepared, perr)
		}
	}
	if problem != "" {
		return nil, nil, &Error{Reason: cronjobv1.ReasonUnparseableSchedule,
			Message: fmt.Sprintf("spec.schedule %q is not a valid cron schedule: %s", schedule, problem)}
	}
	if every, ok := s.(cron.ConstantDelaySchedule); ok && (every.Delay < minEvery || every.Delay > maxEvery) {
		return nil, nil, &Error{Reason: cronjobv1.ReasonUnparseableSchedule,
			Message: fmt.Sprintf("spec.schedule %q: the @every interval must be between %v and %v (Job names carry the scheduled minute, so two runs in one minute would share a name)", schedule, minEvery, maxEvery)}
	}
	if spec, ok := s.(*cron.SpecSchedule); ok {
		// The parser defaults to time.Local, which would make the result depend on the machine.
		spec.Location = loc
		if loc != time.UTC {
			return dstSchedule{spec: spec, fixedTime: hasFixedTime(trimmed, spec)}, loc, nil
		}
	}
	return s, loc, nil
}

// MostRecent returns the latest scheduled time in (since, now] and how many scheduled times
// that window holds. The count is exact up to MaxMissedTimes+1; any larger count is reported as
// MaxMissedTimes+1. anchor is the time an @every schedule counts its intervals from (the last scheduled
// time, or the CronJob's creation); since must not be before anchor. A zero time means no scheduled time
// in the window.
//
// The cost is bounded whatever the downtime: at most MaxMissedTimes+1 steps forward, then a backward
// search with doubling windows. Unlike batch/v1, which estimates the most recent time from the gap between
// two runs once many were missed, the result is exact for irregular schedules too.
func MostRecent(sched cron.Schedule, anchor, since, now time.Time) (time.Time, int) {
	if !now.After(since) {
		return time.Time{}, 0
	}
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		return mostRecentEvery(every.Delay, anchor, since, now)
	}
	t := sched.Next(since)
	if t.IsZero() || t.After(now) {
		return time.Time{}, 0
	}
	count := 1
	for ; count <= MaxMissedTimes; count++ {
		n := sched.Next(t)
		if n.IsZero() || n.After(now) {
			return t, count
		}
		t = n
	}
	// More than MaxMissedTimes: t is a known scheduled time <= now. Search back from now for the latest.
	for w := time.Minute; ; w *= 2 {
		from := now.Add(-w)
		if !from.After(t) {
			from = t
		}
		n := sched.Next(from)
		if !n.IsZero() && !n.After(now) {
			for m := sched.Next(n); !m.IsZero() && !m.After(now); m = sched.Next(n) {
				n = m
			}
			return n, count
		}
		if from.Equal(t) {
			return t, count
		}
	}
}

// mostRecentEvery is MostRecent for "@every <delay>": the scheduled times are anchor + k*delay
// for k >= 1, so they never drift. This differs from batch/v1, which restarts the interval at
// now - startingDeadlineSeconds and so can skip runs.
func mostRecentEvery(delay time.Duration, anchor, since, now time.Time) (time.Time, int) {
	if delay <= 0 || !now.After(anchor) {
		return time.Time{}, 0
	}
	kMax := int64(now.Sub(anchor) / delay)
	kMin := int64(since.Sub(anchor)/delay) + 1
	if kMax < kMin {
		return time.Time{}, 0
	}
	count := min(kMax-kMin+1, MaxMissedTimes+1)
	return anchor.Add(time.Duration(kMax) * delay), int(count)
}

// Next returns the first scheduled time strictly after `after`, or the zero time when the
// schedule has none in the next five years (the limit of the cron library). anchor is as for
// MostRecent.
func Next(sched cron.Schedule, anchor, after time.Time) time.Time {
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		if every.Delay <= 0 {
			return time.Time{}
		}
		if after.Before(anchor) {
			return anchor.Add(every.Delay)
		}
		return anchor.Add(time.Duration(int64(after.Sub(anchor)/every.Delay)+1) * every.Delay)
	}
	return sched.Next(after)
}

// Plan is what the schedule says about one reconcile: which run is due, what was missed, and when to
// look again.
type Plan struct {
	// Scheduled is the most recent unmet scheduled time within the starting deadline whose start time (the
	// scheduled time plus its jitter) has come; zero if none is due.
	Scheduled time.Time
	// Missed is the most recent unmet scheduled time that is past the starting deadline; it is set only
	// when Scheduled is zero, and such a run is not started (MissSchedule).
	Missed time.Time
	// Unmet is the number of due unmet scheduled times within the deadline, exact up to MaxMissedTimes+1.
	Unmet int
	// Next is the first scheduled time whose start has not come yet: after now (and after the last
	// scheduled time), or a scheduled time before now whose jitter has not passed. Zero if the schedule
	// never fires again.
	Next time.Time
	// NextStart is when the run scheduled at Next starts: Next plus its jitter. Zero with Next.
	NextStart time.Time
	// Since is the start of the window of due runs (exclusive): the last scheduled time, or now minus the
	// starting deadline if that is later.
	Since time.Time
}

// DelayFunc is the jitter of the run scheduled at a time (see JitterDelay); nil means none.
type DelayFunc func(scheduled time.Time) time.Duration

// PlanRun computes the Plan at `now` for a CronJob whose last scheduled time (or creation time, if it
// never ran) is `earliest`, with an optional starting deadline in seconds and the jitter of each run
// (delay; nil for none). Matches batch/v1 without jitter: the run to start is the most recent unmet
// scheduled time in (max(earliest, now - deadline), now]. With jitter, a scheduled time is due once its
// delay has passed too; the deadline still counts from the scheduled time. A clock that went backwards (now
// before earliest) gives no run and a Next after earliest.
func PlanRun(sched cron.Schedule, earliest, now time.Time, deadlineSeconds *int64, delay DelayFunc) Plan {
	var plan Plan
	since := earliest
	if deadline, ok := StartingDeadline(deadlineSeconds); ok {
		// A run exactly startingDeadlineSeconds late still starts, as in batch/v1: the window is closed
		// at its start, and the cron library's Next is strictly after its argument.
		if d := now.Add(-deadline - time.Nanosecond); d.After(since) {
			since = d
		}
	}
	plan.Since = since
	after := now
	if earliest.After(after) {
		after = earliest
	}
	plan.Next = Next(sched, earliest, after)
	plan.Scheduled, plan.Unmet = MostRecent(sched, earliest, since, now)
	if !plan.Scheduled.IsZero() && delay != nil && now.Before(plan.Scheduled.Add(delay(plan.Scheduled))) {
		// Its jitter has not passed: it is the next run. The one before it, if unmet, is due: a delay is
		// always shorter than the interval to the next scheduled time (JitterDelay).
		plan.Next = plan.Scheduled
		plan.Scheduled, plan.Unmet = MostRecent(sched, earliest, since, plan.Scheduled.Add(-time.Nanosecond))
	}
	if plan.Scheduled.IsZero() && since.After(earliest) {
		plan.Missed, _ = MostRecent(sched, earliest, earliest, since)
	}
	if !plan.Next.IsZero() {
		plan.NextStart = plan.Next
		if delay != nil {
			plan.NextStart = plan.Next.Add(delay(plan.Next))
		}
	}
	return plan
}

// StartingDeadline is spec.startingDeadlineSeconds as a duration; ok is false when there is none. A
// deadline longer than time.Duration can hold (292 years) is no deadline: multiplying it would overflow and
// put the window's start in the future (batch/v1 has that overflow).
func StartingDeadline(deadlineSeconds *int64) (time.Duration, bool) {
	if deadlineSeconds == nil || *deadlineSeconds > int64(math.MaxInt64/time.Second) {
		return 0, false
	}
	return time.Duration(*deadlineSeconds) * time.Second, true
}

// RunDelay is the jitter of the CronJob's run scheduled at `scheduled` (JitterDelay, with the interval to
// the next scheduled time; anchor as for Next): what the controller waits after the scheduled
// time, and what kubectl cjo next shows. 0 without spec.jitterSeconds.
func RunDelay(cj *cronjobv1.CronJob, sched cron.Schedule, anchor, scheduled time.Time) time.Duration {
	jitter := ptr.Deref(cj.Spec.JitterSeconds, 0)
	if jitter <= 0 {
		return 0
	}
	return JitterDelay(string(cj.UID), jitter, scheduled, Next(sched, anchor, scheduled))
}

// OldestCatchUp is the run that missedRunPolicy All starts next: the oldest of the last `limit` unmet
// scheduled times in (since, newest], where newest is the most recent due one (Plan.Scheduled). dropped
// is how many older unmet times are beyond the limit and never start, exact up to MaxMissedTimes+1 (a
// larger number is reported as MaxMissedTimes+1). anchor is as for MostRecent.
//
// The cost is bounded by the limit, not by the downtime: a backward search with doubling windows finds a
// window ending at newest that holds at least `limit` times, then one walk forward through it.
func OldestCatchUp(sched cron.Schedule, anchor, since, newest time.Time, limit int) (oldest time.Time, dropped int) {
	if limit < 1 {
		limit = 1
	}
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		if every.Delay <= 0 || !newest.After(since) {
			return time.Time{}, 0
		}
		kMax := int64(newest.Sub(anchor) / every.Delay)
		kMin := max(int64(since.Sub(anchor)/every.Delay)+1, 1)
		if kMax < kMin {
			return time.Time{}, 0
		}
		k := max(kMin, kMax-int64(limit)+1)
		return anchor.Add(time.Duration(k) * every.Delay), int(min(k-kMin, MaxMissedTimes+1))
	}
	for w := time.Minute; ; w *= 2 {
		from := newest.Add(-w)
		if !from.After(since) {
			from = since
		}
		// The times in (from, newest], the last `limit` of them in a ring.
		ring := make([]time.Time, 0, limit)
		n := 0
		for t := sched.Next(from); !t.IsZero() && !t.After(newest); t = sched.Next(t) {
			if len(ring) < limit {
				ring = append(ring, t)
			} else {
				ring[n%limit] = t
			}
			n++
		}
		if n >= limit || from.Equal(since) {
			if n == 0 {
				return time.Time{}, 0
			}
			oldest = ring[0]
			if n > limit {
				oldest = ring[n%limit]
			}
			_, older := MostRecent(sched, anchor, since, from)
			return oldest, min(older+max(n-limit, 0), MaxMissedTimes+1)
		}
	}
}

// JitterDelay is the delay of the run scheduled at `scheduled` for a CronJob with this UID and
// spec.jitterSeconds: a hash (FNV-64a) of the UID and the scheduled time, in whole seconds below
// jitterSeconds (whole seconds, because status times have a resolution of a second). It is the same on
// every replica and after a restart, and differs between CronJobs that share a schedule. It is kept at
// least a second shorter than the interval to the next scheduled time (next; zero if none), so that runs
// keep their order and a run never starts after the next one is due whatever the schedule; admission
// rejects a jitter that the shortest interval would cut (ShortestInterval).
func JitterDelay(uid string, jitterSeconds int32, scheduled, next time.Time) time.Duration {
	if jitterSeconds <= 0 {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(uid))
	_, _ = h.Write([]byte(strconv.FormatInt(scheduled.Unix(), 10)))
	d := time.Duration(h.Sum64()%uint64(jitterSeconds)) * time.Second
	if !next.IsZero() {
		if gap := next.Sub(scheduled).Truncate(time.Second) - time.Second; d > gap {
			d = max(gap, 0)
		}
	}
	return d
}

// ShortestInterval is the shortest interval between two consecutive scheduled times from `from` on: the
// interval of an @every schedule, else the shortest of the next year's intervals, looking at most at
// shortestIntervalRuns of them (a year holds every pattern of the minute, hour, day and month fields that
// can make an interval short, and both of a year's DST changes). Zero if the schedule has fewer than two
// times in the next five years.
func ShortestInterval(sched cron.Schedule, from time.Time) time.Duration {
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		return every.Delay
	}
	end := from.AddDate(1, 0, 0)
	var shortest time.Duration
	prev := sched.Next(from)
	for i := 0; i < shortestIntervalRuns && !prev.IsZero(); i++ {
		t := sched.Next(prev)
		if t.IsZero() {
			break
		}
		if d := t.Sub(prev); shortest == 0 || d < shortest {
			shortest = d
		}
		if t.After(end) {
			break
		}
		prev = t
	}
	return shortest
}

// shortestIntervalRuns bounds the walk of ShortestInterval (a minutely schedule has 525,600 times a year;
// its shortest interval shows in the first two).
const shortestIntervalRuns = 10000

// RequeueAfter returns how long to wait until the next scheduled time, plus RequeuePadding; never negative.
// ok is false when there is no next time.
func RequeueAfter(next, now time.Time) (d time.Duration, ok bool) {
	if next.IsZero() {
		return 0, false
	}
	d = max(next.Sub(now), 0)
	return d + RequeuePadding, true
}

// PastDeadline reports whether a run scheduled at `scheduled` is more than deadlineSeconds late at now; a
// run exactly at its deadline is not (as PlanRun). No deadline, or one longer than time.Duration holds,
// is never past.
func PastDeadline(scheduled, now time.Time, deadlineSeconds *int64) bool {
	deadline, ok := StartingDeadline(deadlineSeconds)
	return ok && now.Sub(scheduled) > deadline
}
