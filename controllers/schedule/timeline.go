package schedule

import (
	"errors"
	"fmt"
	"strings"
	"time"

	cron "github.com/netresearch/go-cron"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// Exclusion is a CronCalendar as the schedule math sees it: whether an instant is excluded, and why (a
// short human reason, such as "2026-12-25 is a holiday in DE: Christmas Day").
type Exclusion interface {
	Excluded(t time.Time) (bool, string)
}

// Calendars are the compiled CronCalendars a CronJob lists, by name. A name missing from the map is a
// calendar that does not exist (CalendarNotFound).
type Calendars map[string]Exclusion

// MaxExcludedInARow bounds how many scheduled times in a row the exclusions may drop while looking for the
// next one that runs: a minutely schedule under a calendar that excludes 70 days in a row stops there, and
// its next time is reported as none (a week of minutes is 10,080; 100,800 is 70 days). Admission cannot
// see such a calendar coming, so the bound keeps every reconcile's cost bounded instead.
const MaxExcludedInARow = 100800

// ForCronJob returns the scheduled times of cj as one schedule, and the time zone its Jobs' scheduled-at
// annotations are written in (spec.timeZone, UTC when unset):
//   - spec.schedule, or the union of spec.schedules (each in its own time zone, an instant of two of them
//     once);
//   - without the times the calendars of spec.calendars exclude (cals holds them by name; a name it lacks
//     is an error with reason CalendarNotFound) and those outside spec.activeWindow.
//
// spec.suspendUntil is not applied here (see ForScheduler): a backfill runs while the CronJob is
// suspended. A CronJob with none of these fields gets exactly what Parse returns, so its times, and the
// cost of computing them, are those of before the fields existed. An @every schedule with any of them
// counts its intervals from EarliestTime(cj), as Next does with that anchor.
//
// Errors are *Error, as Parse's, with messages that name the field (spec.schedules[1].timeZone, ...).
func ForCronJob(cj *cronjobv1.CronJob, cals Calendars) (cron.Schedule, *time.Location, error) {
	if len(cj.Spec.Schedules) == 0 && len(cj.Spec.Calendars) == 0 && cj.Spec.ActiveWindow == nil {
		return Parse(cj.Spec.Schedule, cj.Spec.TimeZone)
	}
	loc, err := specLocation(cj.Spec.TimeZone)
	if err != nil {
		return nil, nil, err
	}
	var sched cron.Schedule
	if len(cj.Spec.Schedules) == 0 {
		s, _, err := Parse(cj.Spec.Schedule, cj.Spec.TimeZone)
		if err != nil {
			return nil, nil, err
		}
		if every, ok := s.(cron.ConstantDelaySchedule); ok {
			s = anchoredEvery{anchor: EarliestTime(cj), delay: every.Delay}
		}
		sched = s
	} else {
		members := make(union, 0, len(cj.Spec.Schedules))
		for i, e := range cj.Spec.Schedules {
			s, err := parseEntry(i, e, cj.Spec.TimeZone)
			if err != nil {
				return nil, nil, err
			}
			members = append(members, s)
		}
		sched = members
		if len(members) == 1 {
			sched = members[0]
		}
	}
	f := filtered{inner: sched}
	if w := cj.Spec.ActiveWindow; w != nil {
		f.notBefore, f.notAfter = timeOf(w.NotBefore), timeOf(w.NotAfter)
	}
	for _, name := range cj.Spec.Calendars {
		c, ok := cals[name]
		if !ok || c == nil {
			return nil, nil, &Error{Reason: cronjobv1.ReasonCalendarNotFound, Field: "spec.calendars",
				Message: fmt.Sprintf("spec.calendars: CronCalendar %q does not exist in namespace %s: create it, or remove it from spec.calendars (no run starts while a listed calendar is missing)", name, cj.Namespace)}
		}
		f.calendars = append(f.calendars, namedExclusion{name: name, Exclusion: c})
	}
	return f, loc, nil
}

// ForScheduler is ForCronJob plus spec.suspendUntil: no time before it. It is what the controller starts
// runs from, and what status.nextScheduleTime and kubectl cjo next show.
func ForScheduler(cj *cronjobv1.CronJob, cals Calendars) (cron.Schedule, *time.Location, error) {
	sched, loc, err := ForCronJob(cj, cals)
	if err != nil || cj.Spec.SuspendUntil == nil {
		return sched, loc, err
	}
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		sched = anchoredEvery{anchor: EarliestTime(cj), delay: every.Delay}
	}
	f, ok := sched.(filtered)
	if !ok {
		f = filtered{inner: sched}
	}
	f.suspendUntil = cj.Spec.SuspendUntil.Time
	return f, loc, nil
}

// specLocation loads spec.timeZone (UTC when unset) with Parse's checks.
func specLocation(tz *string) (*time.Location, error) {
	_, loc, err := Parse("@hourly", tz)
	return loc, err
}

// parseEntry parses spec.schedules[i] in its time zone, or spec.timeZone, with messages that name the entry.
func parseEntry(i int, e cronjobv1.ScheduleEntry, specTZ *string) (cron.Schedule, error) {
	tz, tzField := specTZ, "spec.timeZone"
	if e.TimeZone != nil {
		tz, tzField = e.TimeZone, fmt.Sprintf("spec.schedules[%d].timeZone", i)
	}
	entry := fmt.Sprintf("spec.schedules[%d].schedule", i)
	if strings.HasPrefix(strings.TrimSpace(e.Schedule), "@every") {
		return nil, &Error{Reason: cronjobv1.ReasonUnparseableSchedule, Field: entry,
			Message: fmt.Sprintf("%s %q: @every is not allowed in spec.schedules, its intervals count from the last run, which schedules cannot share; use spec.schedule for an @every schedule", entry, e.Schedule)}
	}
	s, _, err := Parse(e.Schedule, tz)
	if err != nil {
		if se, ok := errors.AsType[*Error](err); ok {
			msg := strings.Replace(se.Message, "spec.schedule ", entry+" ", 1)
			msg = strings.Replace(msg, "spec.timeZone ", tzField+" ", 1)
			path := entry
			if se.Reason == cronjobv1.ReasonUnknownTimeZone {
				path = tzField
			}
			return nil, &Error{Reason: se.Reason, Message: msg, Field: path}
		}
		return nil, err
	}
	return s, nil
}

func timeOf(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Time
}

// union is the union of several schedules' times: Next is the earliest of the members' Next, so an
// instant two members share comes once.
type union []cron.Schedule

// Next returns the first time strictly after t of any member, or zero when none has one.
func (u union) Next(t time.Time) time.Time {
	var first time.Time
	for _, s := range u {
		if n := s.Next(t); !n.IsZero() && (first.IsZero() || n.Before(first)) {
			first = n
		}
	}
	return first
}

// anchoredEvery is "@every delay" counted from anchor, as Next computes it, as a schedule of its own, so that
// the exclusions can wrap it: its times are anchor + k*delay for every whole k, before the anchor too.
type anchoredEvery struct {
	anchor time.Time
	delay  time.Duration
}

// Next returns the first anchor + k*delay strictly after t.
func (a anchoredEvery) Next(t time.Time) time.Time {
	if a.delay <= 0 {
		return time.Time{}
	}
	k := int64(t.Sub(a.anchor) / a.delay)
	if t.Before(a.anchor) && t.Sub(a.anchor)%a.delay != 0 {
		k-- // round toward minus infinity
	}
	return a.anchor.Add(time.Duration(k+1) * a.delay)
}

// namedExclusion is a calendar of spec.calendars and its name, for the reason of an excluded time.
type namedExclusion struct {
	name string
	Exclusion
}

// filtered is a schedule without the times outside [notBefore, notAfter], before suspendUntil, and those
// a calendar excludes. Zero bounds are no bounds.
type filtered struct {
	inner               cron.Schedule
	notBefore, notAfter time.Time
	suspendUntil        time.Time
	calendars           []namedExclusion
}

// Next returns the first time of inner strictly after t that no bound or calendar excludes, or zero when
// there is none within the cron library's five years, past notAfter, or after MaxExcludedInARow excluded
// times in a row.
func (f filtered) Next(t time.Time) time.Time {
	t = f.from(t)
	for range MaxExcludedInARow {
		n := f.inner.Next(t)
		if n.IsZero() || (!f.notAfter.IsZero() && n.After(f.notAfter)) {
			return time.Time{}
		}
		if _, excluded := f.excludedBy(n); !excluded {
			return n
		}
		t = n
	}
	return time.Time{}
}

// from moves t to just before the first instant the bounds allow, when it is earlier.
func (f filtered) from(t time.Time) time.Time {
	for _, lower := range []time.Time{f.notBefore, f.suspendUntil} {
		if !lower.IsZero() && t.Before(lower) {
			t = lower.Add(-time.Nanosecond)
		}
	}
	return t
}

// excludedBy returns the reason a calendar excludes t ("calendar NAME: why"), and whether one does.
func (f filtered) excludedBy(t time.Time) (string, bool) {
	for _, c := range f.calendars {
		if ok, why := c.Excluded(t); ok {
			return fmt.Sprintf("calendar %s: %s", c.name, why), true
		}
	}
	return "", false
}

// ExcludedTime is a scheduled time a calendar excluded, and why.
type ExcludedTime struct {
	Time   time.Time
	Reason string
}

// ExcludedBetween returns the scheduled times in (after, until] that the calendars of sched excluded, oldest
// first, at most max of them (the newest ones when there are more), and how many there were in all, exact
// up to MaxMissedTimes+1. The bounds of the active window and suspendUntil are not exclusions: times outside
// them are not scheduled times at all. A schedule without calendars excludes nothing.
func ExcludedBetween(sched cron.Schedule, after, until time.Time, max int) ([]ExcludedTime, int) {
	f, ok := sched.(filtered)
	if !ok || len(f.calendars) == 0 || !until.After(after) {
		return nil, 0
	}
	var out []ExcludedTime
	count := 0
	t := f.from(after)
	for range MaxExcludedInARow {
		n := f.inner.Next(t)
		if n.IsZero() || n.After(until) || (!f.notAfter.IsZero() && n.After(f.notAfter)) {
			break
		}
		if why, excluded := f.excludedBy(n); excluded {
			count++
			out = append(out, ExcludedTime{Time: n, Reason: why})
			if len(out) > max {
				out = out[1:]
			}
			if count > MaxMissedTimes {
				break
			}
		}
		t = n
	}
	return out, count
}

// NextExcluded returns the first scheduled time strictly after t that a calendar of sched excludes, so the
// controller can wake to report it; zero when there is none before the next time that runs (then that
// reconcile reports it) or sched has no calendars.
func NextExcluded(sched cron.Schedule, t time.Time) time.Time {
	f, ok := sched.(filtered)
	if !ok || len(f.calendars) == 0 {
		return time.Time{}
	}
	n := f.inner.Next(f.from(t))
	if n.IsZero() || (!f.notAfter.IsZero() && n.After(f.notAfter)) {
		return time.Time{}
	}
	if _, excluded := f.excludedBy(n); excluded {
		return n
	}
	return time.Time{}
}
