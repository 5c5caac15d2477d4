package cronjob

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/calendar"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// loadPlan reads the CronCalendars of spec.calendars from the cache, compiles them into s.cals, and
// sets s.plan, the digest observeSchedule compares. A calendar that does not exist is left out of s.cals
// (the schedule then reports CalendarNotFound) and enters the digest as missing, so its creation re-plans
// too. A calendar that does not compile is an error of the CronJob (InvalidCalendar).
func (s *syncer) loadPlan(ctx context.Context) *schedule.Error {
	s.cals, s.plan = nil, ""
	spec := &s.cj.Spec
	if len(spec.Schedules) == 0 && len(spec.Calendars) == 0 && spec.ActiveWindow == nil && spec.SuspendUntil == nil {
		return nil
	}
	cals, specs, err := calendar.Load(ctx, s.r.Client, s.cj)
	if err != nil && cals == nil {
		// A calendar could not be read: the plan is unknown, so the one observed stays (nothing starts
		// while the error lasts), and the next read is compared with it.
		if obs := s.cj.Status.ObservedSchedule; obs != nil {
			s.plan = obs.Plan
		}
		return err
	}
	s.cals = cals
	s.plan = planDigest(spec, specs)
	return err
}

// planDigest is status.observedSchedule.plan: two digests (FNV-64a, hex), "<own>-<calendars>", where own
// covers the CronJob's own planning fields (spec.schedules, spec.calendars' names, spec.activeWindow,
// spec.suspendUntil) and calendars the spec of each listed calendar (nil for a missing one). Empty when the
// CronJob uses none of them, so that CronJobs that do not are never re-planned by this field. The two
// halves let observeSchedule tell an edit of the CronJob (which the API server timed) from a change of a
// calendar only (which it did not).
func planDigest(spec *cronjobv1.CronJobSpec, calendars map[string]*cronjobv1.CronCalendarSpec) string {
	if len(spec.Schedules) == 0 && len(spec.Calendars) == 0 && spec.ActiveWindow == nil && spec.SuspendUntil == nil {
		return ""
	}
	type namedSpec struct {
		Name string                      `json:"name"`
		Spec *cronjobv1.CronCalendarSpec `json:"spec"`
	}
	cals := make([]namedSpec, 0, len(calendars))
	for name, cs := range calendars {
		cals = append(cals, namedSpec{name, cs})
	}
	sort.Slice(cals, func(i, j int) bool { return cals[i].Name < cals[j].Name })
	own, _ := json.Marshal(struct {
		Schedules    []cronjobv1.ScheduleEntry `json:"schedules,omitempty"`
		Calendars    []string                  `json:"calendars,omitempty"`
		ActiveWindow *cronjobv1.ActiveWindow   `json:"activeWindow,omitempty"`
		SuspendUntil any                       `json:"suspendUntil,omitempty"`
	}{spec.Schedules, spec.Calendars, spec.ActiveWindow, spec.SuspendUntil})
	specs, _ := json.Marshal(cals)
	return fnvHex(own) + "-" + fnvHex(specs)
}

// fnvHex is the FNV-64a digest of raw, 16 hex digits.
func fnvHex(raw []byte) string {
	h := fnv.New64a()
	_, _ = h.Write(raw)
	return fmt.Sprintf("%016x", h.Sum64())
}

// calendarsOnly reports whether two plan digests (planDigest) differ in their calendars' half only. A
// digest of the earlier one-part form counts as such: the controller cannot tell, and taking the change
// as now never starts a run that was due before it.
func calendarsOnly(old, cur string) bool {
	if old == cur || old == "" || cur == "" {
		return false
	}
	oldOwn, _, twoParts := strings.Cut(old, "-")
	curOwn, _, _ := strings.Cut(cur, "-")
	return !twoParts || oldOwn == curOwn
}

// maxExcludedEvents is how many ExcludedByCalendar events one reconcile emits; when more times were
// excluded at once (after a downtime), one more event says how many were not listed.
const maxExcludedEvents = 10

// reportExcluded reports the scheduled times the calendars excluded since the last one reported, or the
// last run or schedule change if later, up to now: an ExcludedByCalendar event each (the newest
// maxExcludedEvents), runs_excluded_total, and status.lastExcludedTime, so each is reported once. It
// returns when the next excluded time comes, if it comes before the next run (zero otherwise), for the
// requeue to report it then.
func (s *syncer) reportExcluded(d *decision) time.Time {
	if len(s.cj.Spec.Calendars) == 0 || d.sched == nil {
		return time.Time{}
	}
	after := schedule.EarliestTime(s.cj)
	if last := s.cj.Status.LastExcludedTime; last != nil && last.After(after) {
		after = last.Time
	}
	excluded, n := schedule.ExcludedBetween(d.sched, after, s.now, maxExcludedEvents)
	if n > 0 {
		for _, ex := range excluded {
			s.event(corev1.EventTypeNormal, cronjobv1.ReasonExcludedByCalendar, "Schedule",
				"Scheduled time %s excluded by %s: no Job started", ex.Time.In(d.loc).Format(time.RFC3339), ex.Reason)
		}
		if n > len(excluded) {
			s.event(corev1.EventTypeNormal, cronjobv1.ReasonExcludedByCalendar, "Schedule",
				"%s older scheduled times since %s were excluded by calendars too", droppedCount(n-len(excluded)), after.In(d.loc).Format(time.RFC3339))
		}
		s.r.Metrics.RunsExcluded(min(n, schedule.MaxMissedTimes))
		s.cj.Status.LastExcludedTime = ptr.To(metav1.NewTime(excluded[len(excluded)-1].Time))
	}
	return schedule.NextExcluded(d.sched, s.now)
}
