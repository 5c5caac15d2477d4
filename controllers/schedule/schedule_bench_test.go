package schedule

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// BenchmarkMostRecentScheduleTime measures the missed-run computation after long downtime: the cost is
// bounded (at most MaxMissedTimes+1 steps forward, then a doubling backward search), whatever the gap.
func BenchmarkMostRecentScheduleTime(b *testing.B) {
	cases := map[string]struct {
		schedule string
		timeZone *string
		overdue  time.Duration
	}{
		"hourly, one year overdue":                  {schedule: "0 * * * *", overdue: 365 * 24 * time.Hour},
		"minutely, one year overdue":                {schedule: "* * * * *", overdue: 365 * 24 * time.Hour},
		"irregular 30 6-16/4 * * 1-5, one year":     {schedule: "30 6-16/4 * * 1-5", overdue: 365 * 24 * time.Hour},
		"hourly in Europe/Berlin, one year overdue": {schedule: "5 * * * *", timeZone: ptr.To("Europe/Berlin"), overdue: 365 * 24 * time.Hour},
		"daily 02:30 in Europe/Berlin, one year":    {schedule: "30 2 * * *", timeZone: ptr.To("Europe/Berlin"), overdue: 365 * 24 * time.Hour},
		"@every 7m, one year overdue":               {schedule: "@every 7m", overdue: 365 * 24 * time.Hour},
		"hourly, due now (the common case)":         {schedule: "0 * * * *", overdue: time.Hour},
	}
	for name, bc := range cases {
		b.Run(name, func(b *testing.B) {
			sched, _, err := Parse(bc.schedule, bc.timeZone)
			if err != nil {
				b.Fatal(err)
			}
			since := TopOfTheHour
			now := since.Add(bc.overdue + 30*time.Second)
			b.ReportAllocs()
			for b.Loop() {
				if t, _ := MostRecent(sched, since, since, now); t.IsZero() {
					b.Fatal("no scheduled time found")
				}
			}
		})
	}
}

// BenchmarkParseSchedule measures parsing a schedule with its time zone, done on every reconcile.
func BenchmarkParseSchedule(b *testing.B) {
	cases := map[string]struct {
		schedule string
		timeZone *string
	}{
		"minutely, UTC":                   {schedule: "* * * * *"},
		"30 6-16/4 * * 1-5, UTC":          {schedule: "30 6-16/4 * * 1-5"},
		"30 2 * * *, Europe/Berlin (DST)": {schedule: "30 2 * * *", timeZone: ptr.To("Europe/Berlin")},
		"@every 7m":                       {schedule: "@every 7m"},
	}
	for name, bc := range cases {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Parse(bc.schedule, bc.timeZone); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPlanRun measures the whole per-reconcile schedule decision (missed runs, deadline, next run) for
// a CronJob that ran on time and one a year overdue.
func BenchmarkPlanRun(b *testing.B) {
	sched, _, err := Parse("*/5 * * * *", nil)
	if err != nil {
		b.Fatal(err)
	}
	cases := map[string]time.Duration{
		"due now":          5*time.Minute + time.Second,
		"one year overdue": 365 * 24 * time.Hour,
	}
	for name, overdue := range cases {
		b.Run(name, func(b *testing.B) {
			now := TopOfTheHour.Add(overdue)
			b.ReportAllocs()
			for b.Loop() {
				if p := PlanRun(sched, TopOfTheHour, now, ptr.To[int64](200), nil); p.Next.IsZero() {
					b.Fatal("no next run")
				}
			}
		})
	}
}
