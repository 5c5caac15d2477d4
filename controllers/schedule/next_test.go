package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/utils/ptr"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// With jitter, each run starts at its scheduled time plus the delay the controller computes for it.
func TestNextScheduleTimesWithJitter(t *testing.T) {
	runs, _, err := NextRuns(Hourly().JitterSeconds(600).LastScheduleTime(PriorHour).Obj(), nil, IsTime, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []NextRun{
		{Scheduled: TopOfTheHour.Add(time.Hour), Start: TopOfTheHour.Add(time.Hour + JitterDelay("cj-uid", 600, TopOfTheHour.Add(time.Hour), TopOfTheHour.Add(2*time.Hour)))},
		{Scheduled: TopOfTheHour.Add(2 * time.Hour), Start: TopOfTheHour.Add(2*time.Hour + JitterDelay("cj-uid", 600, TopOfTheHour.Add(2*time.Hour), TopOfTheHour.Add(3*time.Hour)))},
	}
	if diff := cmp.Diff(want, runs); diff != "" {
		t.Errorf("runs (-want,+got):\n%s", diff)
	}
	if runs[0].Start.Equal(runs[0].Scheduled) && runs[1].Start.Equal(runs[1].Scheduled) {
		t.Error("neither run is delayed: the case needs a jitter that moves at least one")
	}
}

func TestNextScheduleTimes(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		// spec and status
		cronJob func() *builders.CronJobWrapper
		// environment
		after time.Time
		n     int
		// expectations
		want    []string // RFC 3339 in the CronJob's zone
		wantLoc *time.Location
		wantErr string
	}{
		"hourly, UTC": {
			cronJob: Hourly, after: IsTime, n: 3,
			want: []string{"2026-03-02T11:00:00Z", "2026-03-02T12:00:00Z", "2026-03-02T13:00:00Z"}, wantLoc: time.UTC,
		},
		"on a scheduled time, strictly after it": {
			cronJob: Hourly, after: TopOfTheHour, n: 1,
			want: []string{"2026-03-02T11:00:00Z"}, wantLoc: time.UTC,
		},
		"02:30 in Berlin over the spring jump: once, at the jump": {
			cronJob: func() *builders.CronJobWrapper { return Hourly().Schedule("30 2 * * *").TimeZone("Europe/Berlin") },
			after:   time.Date(2026, time.March, 27, 12, 0, 0, 0, time.UTC), n: 3,
			want: []string{"2026-03-28T02:30:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"}, wantLoc: berlin,
		},
		"@every 90m counts from the last run": {
			cronJob: func() *builders.CronJobWrapper { return Hourly().Schedule("@every 90m").LastScheduleTime(HM(9, 15)) },
			after:   IsTime, n: 2,
			want: []string{"2026-03-02T10:45:00Z", "2026-03-02T12:15:00Z"}, wantLoc: time.UTC,
		},
		"a schedule that never fires": {
			cronJob: func() *builders.CronJobWrapper { return Hourly().Schedule("0 0 31 2 *") },
			after:   IsTime, n: 5, wantLoc: time.UTC,
		},
		"n 0": {cronJob: Hourly, after: IsTime, n: 0, wantLoc: time.UTC},
		"an unparseable schedule": {
			cronJob: func() *builders.CronJobWrapper { return Hourly().Schedule("every hour") },
			after:   IsTime, n: 5, wantErr: "is not a valid cron schedule",
		},
		"an unknown time zone": {
			cronJob: func() *builders.CronJobWrapper { return Hourly().TimeZone("Mars/Olympus_Mons") },
			after:   IsTime, n: 5, wantErr: "is not a known IANA time zone",
		},
	}
	for caseName, tc := range cases {
		t.Run(caseName, func(t *testing.T) {
			runs, loc, err := NextRuns(tc.cronJob().Obj(), nil, tc.after, tc.n)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, run := range runs {
				if !run.Start.Equal(run.Scheduled) {
					t.Errorf("run %s starts at %s: no jitter, so it should start at its scheduled time", run.Scheduled, run.Start)
				}
				got = append(got, run.Scheduled.Format(time.RFC3339))
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("times (-want,+got):\n%s", diff)
			}
			if loc.String() != tc.wantLoc.String() {
				t.Errorf("location = %v, want %v", loc, tc.wantLoc)
			}
		})
	}
}

func TestIsScheduledTime(t *testing.T) {
	cases := map[string]struct {
		// spec
		schedule string
		timeZone *string
		// history: the last scheduled time (@every counts from it)
		anchor time.Time
		// environment
		at time.Time
		// expectations
		want bool
	}{
		"@every 90m from 09:15, one interval after: scheduled": {
			schedule: "@every 90m", anchor: HM(9, 15), at: HM(10, 45), want: true,
		},
		"@every 90m from 09:15, one interval before: scheduled": {
			schedule: "@every 90m", anchor: HM(9, 15), at: HM(7, 45), want: true,
		},
		"@every 90m from 09:15, between two: not scheduled": {
			schedule: "@every 90m", anchor: HM(9, 15), at: HM(10, 0),
		},
		"@every 90m from 09:15, a second after one: not scheduled": {
			schedule: "@every 90m", anchor: HM(9, 15), at: HM(10, 45).Add(time.Second),
		},
		"hourly, on the hour: scheduled": {
			schedule: "0 * * * *", anchor: PriorHour, at: TopOfTheHour, want: true,
		},
		"hourly, the run before the anchor: scheduled": {
			schedule: "0 * * * *", anchor: TopOfTheHour, at: PriorHour, want: true,
		},
		"hourly, a nanosecond after the hour: not scheduled": {
			schedule: "0 * * * *", anchor: PriorHour, at: TopOfTheHour.Add(time.Nanosecond),
		},
		"hourly, a nanosecond before the hour: not scheduled": {
			schedule: "0 * * * *", anchor: PriorHour, at: TopOfTheHour.Add(-time.Nanosecond),
		},
		"02:30 in Berlin on the day of the spring jump: scheduled at the jump, 03:00 CEST": {
			schedule: "30 2 * * *", timeZone: ptr.To("Europe/Berlin"), anchor: MustTime("2026-03-28T01:30:00Z"),
			at: MustTime("2026-03-29T01:00:00Z"), want: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IsScheduledTime(mustParse(t, tc.schedule, tc.timeZone), tc.anchor, tc.at); got != tc.want {
				t.Errorf("IsScheduledTime(%q from %s, %s) = %v, want %v", tc.schedule, tc.anchor, tc.at, got, tc.want)
			}
		})
	}
}
