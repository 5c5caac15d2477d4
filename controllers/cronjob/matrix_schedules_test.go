package cronjob

import (
	"testing"
	"time"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// TestMatrixNeverFiresAndIrregular pins schedules that never fire (a ScheduleNeverFires warning and a
// False Ready condition, and no requeue instead of a hot loop) and irregular schedules, where the run that
// starts after a long downtime is exactly the most recent scheduled time (batch/v1 estimates it from the gap
// between two runs and can miss it), and the requeue is exactly the next one.
func TestMatrixNeverFiresAndIrregular(t *testing.T) {
	const pad = schedule.RequeuePadding
	scheduled, neverFires := cronjobv1.ReasonScheduled, cronjobv1.ReasonScheduleNeverFires
	at := MustTime
	// "30 6-16/4 * * 1-5" runs at 06:30, 10:30 and 14:30 on weekdays; 2026-05-01 is a Friday.
	sixteen := "30 6-16/4 * * 1-5"
	// "30 10,11,12 * * 1-5" runs at 10:30, 11:30 and 12:30 on weekdays; 2026-03-06 is a Friday.
	hourList := "30 10,11,12 * * 1-5"
	startsAt := func(slot time.Time, requeue time.Duration, events ...string) outcome {
		return outcome{Created: []createdJob{newRun(slot)}, Active: []string{JobName(slot)}, LastSchedule: TimePtr(slot),
			Events: append(events, evCreated), StatusWrites: 1, Ready: scheduled, Requeue: requeue}
	}

	cases := map[string]scenario{
		"31 February, never ran: ScheduleNeverFires, Ready False, no requeue, no error": {
			cronJob: Hourly().Schedule("0 0 31 2 *"), now: IsTime,
			want: outcome{Events: []string{evNeverFires}, StatusWrites: 1, Ready: neverFires},
		},
		"edited to 31 February with a next time published before: status.nextScheduleTime is unset": {
			cronJob: Hourly().Schedule("0 0 31 2 *").LastScheduleTime(PriorHour).NextScheduleTime(TopOfTheHour), now: IsTime,
			want:          outcome{LastSchedule: TimePtr(PriorHour), Events: []string{evNeverFires}, StatusWrites: 1, Ready: neverFires},
			wantNextUnset: true,
		},
		"31 February, second reconcile: no second warning, no status write, no requeue": {
			cronJob: Hourly().Schedule("0 0 31 2 *"), now: IsTime, twice: true,
			want: outcome{Ready: neverFires},
		},
		"30 February, ran before, 10 s deadline: ScheduleNeverFires, no MissSchedule": {
			cronJob: Hourly().Schedule("0 0 30 2 *").StartingDeadlineSeconds(shortDeadline).LastScheduleTime(PriorHour), now: IsTime,
			want: outcome{LastSchedule: TimePtr(PriorHour), Events: []string{evNeverFires}, StatusWrites: 1, Ready: neverFires},
		},
		"31st of 30-day months: ScheduleNeverFires": {
			cronJob: Hourly().Schedule("0 0 31 4,6,9,11 *"), now: IsTime,
			want: outcome{Events: []string{evNeverFires}, StatusWrites: 1, Ready: neverFires},
		},
		"31 February, suspended: no warning, suspension comes first": {
			cronJob: Hourly().Schedule("0 0 31 2 *").Suspend(), now: IsTime,
			want: outcome{Ready: cronjobv1.ReasonSuspended},
		},
		"29 February: requeued for 2028-02-29, almost two years ahead": {
			cronJob: Hourly().Schedule("0 0 29 2 *"), now: IsTime,
			want: outcome{Ready: scheduled, Requeue: at("2028-02-29T00:00:00Z").Sub(IsTime) + pad},
		},

		"30 6-16/4 * * 1-5, ran on a Monday, two months late on a Saturday: TooManyMissedTimes, exactly Friday 14:30 starts": {
			cronJob: Hourly().Schedule(sixteen).LastScheduleTime(HM(6, 30)), now: at("2026-05-02T12:00:00Z"),
			want: startsAt(at("2026-05-01T14:30:00Z"), at("2026-05-04T06:30:00Z").Sub(at("2026-05-02T12:00:00Z"))+pad, evTooMany),
		},
		"30 6-16/4 * * 1-5, two months late, within an 11 days deadline: Friday 14:30 starts, 27 in the deadline are not too many": {
			cronJob: Hourly().Schedule(sixteen).StartingDeadlineSeconds(longDeadline).LastScheduleTime(HM(6, 30)), now: at("2026-05-02T12:00:00Z"),
			want: startsAt(at("2026-05-01T14:30:00Z"), at("2026-05-04T06:30:00Z").Sub(at("2026-05-02T12:00:00Z"))+pad),
		},
		"30 6-16/4 * * 1-5, two months late, past a 2 h deadline: MissSchedule": {
			cronJob: Hourly().Schedule(sixteen).StartingDeadlineSeconds(mediumDeadline).LastScheduleTime(HM(6, 30)), now: at("2026-05-02T12:00:00Z"),
			want: outcome{StatusWrites: 1, LastSchedule: TimePtr(HM(6, 30)), Events: []string{evMissed}, Ready: scheduled,
				Requeue: at("2026-05-04T06:30:00Z").Sub(at("2026-05-02T12:00:00Z")) + pad},
		},
		"30 6-16/4 * * 1-5, ran at 10:30, is time at 14:30: starts, requeued for Tuesday 06:30": {
			cronJob: Hourly().Schedule(sixteen).LastScheduleTime(HM(10, 30)), now: HM(14, 30),
			want: startsAt(HM(14, 30), 16*time.Hour+pad),
		},
		"30 6-16/4 * * 1-5, ran at 10:30, not time at 14:29": {
			cronJob: Hourly().Schedule(sixteen).LastScheduleTime(HM(10, 30)), now: HM(14, 29),
			want: outcome{LastSchedule: TimePtr(HM(10, 30)), Ready: scheduled, Requeue: time.Minute + pad},
		},
		"30 6-16/4 * * 1-5, ran Friday 14:30, Friday evening: requeued for Monday 06:30": {
			cronJob: Hourly().Schedule(sixteen).LastScheduleTime(at("2026-03-06T14:30:00Z")), now: at("2026-03-06T20:00:00Z"),
			want: outcome{LastSchedule: TimePtr(at("2026-03-06T14:30:00Z")), Ready: scheduled,
				Requeue: 2*24*time.Hour + 10*time.Hour + 30*time.Minute + pad},
		},
		"30 10,11,12 * * 1-5, ran Monday 10:30, a week later at 11:00: Monday 10:30 starts, 16 missed are not too many": {
			cronJob: Hourly().Schedule(hourList).LastScheduleTime(HM(10, 30)), now: at("2026-03-09T11:00:00Z"),
			want: startsAt(at("2026-03-09T10:30:00Z"), 30*time.Minute+pad),
		},
		"30 10,11,12 * * 1-5, ran Friday 12:30, Saturday noon: requeued for Monday 10:30": {
			cronJob: Hourly().Schedule(hourList).LastScheduleTime(at("2026-03-06T12:30:00Z")), now: at("2026-03-07T12:00:00Z"),
			want: outcome{LastSchedule: TimePtr(at("2026-03-06T12:30:00Z")), Ready: scheduled,
				Requeue: 24*time.Hour + 22*time.Hour + 30*time.Minute + pad},
		},
		"30 10,11,12 * * 1-5, ran Friday 11:30, Monday 09:00: Friday 12:30 starts late": {
			cronJob: Hourly().Schedule(hourList).LastScheduleTime(at("2026-03-06T11:30:00Z")), now: at("2026-03-09T09:00:00Z"),
			want: startsAt(at("2026-03-06T12:30:00Z"), 90*time.Minute+pad),
		},
		"30 10,11,12 * * 1-5, ran Friday 11:30, Monday 09:00, past a 2 h deadline: MissSchedule": {
			cronJob: Hourly().Schedule(hourList).StartingDeadlineSeconds(mediumDeadline).LastScheduleTime(at("2026-03-06T11:30:00Z")), now: at("2026-03-09T09:00:00Z"),
			want: outcome{StatusWrites: 1, LastSchedule: TimePtr(at("2026-03-06T11:30:00Z")), Events: []string{evMissed}, Ready: scheduled,
				Requeue: 90*time.Minute + pad},
		},
		"0 12 * * 1 (weekly), three years late on a Sunday: TooManyMissedTimes, exactly last Monday's run starts": {
			cronJob: Hourly().Schedule("0 12 * * 1").CreationTimestamp(at("2023-01-01T00:00:00Z")).LastScheduleTime(at("2023-01-02T12:00:00Z")),
			now:     at("2026-03-01T12:00:00Z"),
			want:    startsAt(at("2026-02-23T12:00:00Z"), 24*time.Hour+pad, evTooMany),
		},
		"*/7 * * * * (the :56 to :00 gap is 4 minutes), 10 days late at 10:03: exactly 10:00 starts, requeued for 10:07": {
			cronJob: Hourly().Schedule("*/7 * * * *").CreationTimestamp(at("2026-02-20T00:00:00Z")).LastScheduleTime(at("2026-02-20T00:00:00Z")),
			now:     HM(10, 3),
			want:    startsAt(TopOfTheHour, 4*time.Minute+pad, evTooMany),
		},
		"*/5 * * * *, a week and 2 minutes late: TooManyMissedTimes, exactly the last 5-minute mark starts": {
			cronJob: Hourly().Schedule("*/5 * * * *").LastScheduleTime(TopOfTheHour), now: TopOfTheHour.Add(7*24*time.Hour + 2*time.Minute),
			want: startsAt(TopOfTheHour.Add(7*24*time.Hour), 3*time.Minute+pad, evTooMany),
		},
	}
	for _, p := range []cronjobv1.ConcurrencyPolicy{cronjobv1.AllowConcurrent, cronjobv1.ForbidConcurrent, cronjobv1.ReplaceConcurrent} {
		cases["never ran, is time, not a valid schedule, "+string(p)+": UnparseableSchedule, Ready False, no requeue"] = scenario{
			cronJob: Hourly().ConcurrencyPolicy(p).Schedule("obvious error schedule"), now: IsTime,
			want: outcome{Events: []string{evUnparseable}, StatusWrites: 1, Ready: cronjobv1.ReasonUnparseableSchedule},
		}
	}
	runMatrix(t, cases)
}

// TestMatrixTimeZones pins time zones: the schedule is evaluated in spec.timeZone, in UTC without it, and
// the scheduled-at annotation is written in the CronJob's zone (the Job name, in Unix minutes, has none).
// Daylight saving time follows classic cron: a run in the skipped hour starts once, at the jump; a run in
// the repeated hour starts once, at its first occurrence. A TZ= prefix or an unknown zone is refused.
func TestMatrixTimeZones(t *testing.T) {
	runMatrix(t, timeZoneCases())
}

// TestMatrixTimeZonesIgnoreMachineZone runs the time zone cases with the machine's zone set to
// Pacific/Chatham (+13:45 in March): without spec.timeZone, schedules are still evaluated in UTC.
// It changes time.Local, so it must not run in parallel with other tests.
func TestMatrixTimeZonesIgnoreMachineZone(t *testing.T) {
	chatham, err := time.LoadLocation("Pacific/Chatham")
	if err != nil {
		t.Fatal(err)
	}
	saved := time.Local
	time.Local = chatham
	t.Cleanup(func() { time.Local = saved })
	runMatrix(t, timeZoneCases())
}

func timeZoneCases() map[string]scenario {
	const pad = schedule.RequeuePadding
	scheduled := cronjobv1.ReasonScheduled
	at := MustTime
	berlin, nineDaily := "Europe/Berlin", "0 9 * * *"
	yesterday := at("2026-03-01T12:00:00Z")
	starts := func(slot time.Time, scheduledAt string, requeue time.Duration) outcome {
		return outcome{Created: []createdJob{{Name: JobName(slot), ScheduledAt: scheduledAt}}, Active: []string{JobName(slot)},
			LastSchedule: TimePtr(slot), Events: []string{evCreated}, StatusWrites: 1, Ready: scheduled, Requeue: requeue}
	}
	refused := func(event, reason string) outcome {
		return outcome{Events: []string{event}, StatusWrites: 1, Ready: reason}
	}

	return map[string]scenario{
		"daily 09:00 in Europe/Berlin, is time at 08:00 UTC: starts, scheduled-at in Berlin time": {
			cronJob: Hourly().Schedule(nineDaily).TimeZone(berlin).CreationTimestamp(yesterday), now: HM(8, 0).Add(5 * time.Second),
			want: starts(HM(8, 0), "2026-03-02T09:00:00+01:00", 24*time.Hour-5*time.Second+pad),
		},
		"daily 09:00 without timeZone, 08:00 UTC: not time, the schedule is in UTC": {
			cronJob: Hourly().Schedule(nineDaily).CreationTimestamp(yesterday), now: HM(8, 0).Add(5 * time.Second),
			want: outcome{Ready: scheduled, Requeue: time.Hour - 5*time.Second + pad},
		},
		"daily 09:00 without timeZone, is time at 09:00 UTC: starts, scheduled-at in UTC": {
			cronJob: Hourly().Schedule(nineDaily).CreationTimestamp(yesterday), now: HM(9, 0).Add(5 * time.Second),
			want: starts(HM(9, 0), "2026-03-02T09:00:00Z", 24*time.Hour-5*time.Second+pad),
		},
		"@daily without timeZone, is time at midnight UTC: starts": {
			cronJob: Hourly().Schedule("@daily").CreationTimestamp(yesterday), now: HM(0, 0).Add(5 * time.Second),
			want: starts(HM(0, 0), "2026-03-02T00:00:00Z", 24*time.Hour-5*time.Second+pad),
		},
		"daily 09:00 with an empty timeZone: UTC": {
			cronJob: Hourly().Schedule(nineDaily).TimeZone("").CreationTimestamp(yesterday), now: HM(9, 0).Add(5 * time.Second),
			want: starts(HM(9, 0), "2026-03-02T09:00:00Z", 24*time.Hour-5*time.Second+pad),
		},
		"never ran, not time in America/New_York": {
			cronJob: Hourly().TimeZone("America/New_York"), now: BeforeHour,
			want: outcome{Ready: scheduled, Requeue: time.Minute + pad},
		},
		"never ran, is time in America/New_York: scheduled-at at 05:00 New York time": {
			cronJob: Hourly().TimeZone("America/New_York"), now: IsTime,
			want: starts(TopOfTheHour, "2026-03-02T05:00:00-05:00", time.Hour-5*time.Second+pad),
		},
		"hourly in Asia/Kolkata (+05:30): runs at half past the UTC hour": {
			cronJob: Hourly().TimeZone("Asia/Kolkata"), now: HM(10, 30).Add(5 * time.Second),
			want: starts(HM(10, 30), "2026-03-02T16:00:00+05:30", time.Hour-5*time.Second+pad),
		},
		"02:30 in Europe/Berlin on the day the clock jumps from 02:00 to 03:00: starts once, at the jump": {
			cronJob: Hourly().Schedule("30 2 * * *").TimeZone(berlin).CreationTimestamp(yesterday).LastScheduleTime(at("2026-03-28T01:30:00Z")),
			now:     at("2026-03-29T01:00:05Z"),
			want:    starts(at("2026-03-29T01:00:00Z"), "2026-03-29T03:00:00+02:00", 23*time.Hour+30*time.Minute-5*time.Second+pad),
		},
		"02:30 in Europe/Berlin on the day the clock falls back: starts at the first 02:30": {
			cronJob: Hourly().Schedule("30 2 * * *").TimeZone(berlin).CreationTimestamp(yesterday).LastScheduleTime(at("2026-10-24T00:30:00Z")),
			now:     at("2026-10-25T00:30:05Z"),
			want:    starts(at("2026-10-25T00:30:00Z"), "2026-10-25T02:30:00+02:00", 25*time.Hour-5*time.Second+pad),
		},
		"02:30 in Europe/Berlin on the day the clock falls back, at the second 02:30: nothing": {
			cronJob: Hourly().Schedule("30 2 * * *").TimeZone(berlin).CreationTimestamp(yesterday).LastScheduleTime(at("2026-10-25T00:30:00Z")),
			now:     at("2026-10-25T01:30:05Z"),
			want:    outcome{LastSchedule: TimePtr(at("2026-10-25T00:30:00Z")), Ready: scheduled, Requeue: 24*time.Hour - 5*time.Second + pad},
		},
		"02:30 in Europe/Berlin, a year late, noon on the day the clock jumps: TooManyMissedTimes, exactly the run at the jump starts": {
			cronJob: Hourly().Schedule("30 2 * * *").TimeZone(berlin).CreationTimestamp(at("2025-01-01T00:00:00Z")).LastScheduleTime(at("2025-03-01T01:30:00Z")),
			now:     at("2026-03-29T12:00:00Z"),
			want: func() outcome {
				o := starts(at("2026-03-29T01:00:00Z"), "2026-03-29T03:00:00+02:00", 12*time.Hour+30*time.Minute+pad)
				o.Events = []string{evTooMany, evCreated}
				return o
			}(),
		},
		"02:30 in Europe/Berlin, a year late, noon on the day the clock falls back: exactly the first 02:30 starts": {
			cronJob: Hourly().Schedule("30 2 * * *").TimeZone(berlin).CreationTimestamp(at("2025-01-01T00:00:00Z")).LastScheduleTime(at("2025-03-01T01:30:00Z")),
			now:     at("2026-10-25T12:00:00Z"),
			want: func() outcome {
				o := starts(at("2026-10-25T00:30:00Z"), "2026-10-25T02:30:00+02:00", 13*time.Hour+30*time.Minute+pad)
				o.Events = []string{evTooMany, evCreated}
				return o
			}(),
		},
		"TZ= prefix in the schedule, with a timeZone: UnparseableSchedule, no requeue": {
			cronJob: Hourly().Schedule("TZ=UTC 0 * * * *").TimeZone("America/New_York"), now: IsTime,
			want: refused(evUnparseable, cronjobv1.ReasonUnparseableSchedule),
		},
		"CRON_TZ= prefix in the schedule: UnparseableSchedule, no requeue": {
			cronJob: Hourly().Schedule("CRON_TZ=Europe/Berlin 0 * * * *"), now: IsTime,
			want: refused(evUnparseable, cronjobv1.ReasonUnparseableSchedule),
		},
		"unknown timeZone: UnknownTimeZone, no requeue": {
			cronJob: Hourly().TimeZone("bad timezone"), now: IsTime,
			want: refused(evUnknownZone, cronjobv1.ReasonUnknownTimeZone),
		},
		"timeZone Local (the machine's zone) is refused": {
			cronJob: Hourly().TimeZone("Local"), now: IsTime,
			want: refused(evUnknownZone, cronjobv1.ReasonUnknownTimeZone),
		},
	}
}
