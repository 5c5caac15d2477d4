package schedule

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

// Europe/Berlin in 2026: the clock jumps from 02:00 CET to 03:00 CEST at 2026-03-29T01:00:00Z and falls back
// from 03:00 CEST to 02:00 CET at 2026-10-25T01:00:00Z.
func TestDaylightSavingTime(t *testing.T) {
	cases := map[string]struct {
		// spec
		schedule string
		timeZone string
		// environment
		from time.Time
		// expectations: the next run times after `from`, in UTC
		want []string
	}{
		"run in the skipped hour starts once, at the jump": {
			schedule: "30 2 * * *", timeZone: "Europe/Berlin", from: MustTime("2026-03-28T12:00:00Z"),
			want: []string{"2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"},
		},
		"several runs in the skipped hour start once, at the jump": {
			schedule: "0,15,45 2 * * *", timeZone: "Europe/Berlin", from: MustTime("2026-03-28T12:00:00Z"),
			want: []string{"2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"},
		},
		"run at the first valid minute after the jump is not doubled": {
			schedule: "0 2,3 * * *", timeZone: "Europe/Berlin", from: MustTime("2026-03-28T23:00:00Z"),
			want: []string{"2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"},
		},
		"run in the repeated hour starts once, at its first occurrence": {
			schedule: "30 2 * * *", timeZone: "Europe/Berlin", from: MustTime("2026-10-24T12:00:00Z"),
			want: []string{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"},
		},
		"hourly follows the real clock through the fall back": {
			schedule: "0 * * * *", timeZone: "Europe/Berlin", from: MustTime("2026-10-24T23:30:00Z"),
			want: []string{"2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"},
		},
		"hourly follows the real clock through the jump": {
			schedule: "0 * * * *", timeZone: "Europe/Berlin", from: MustTime("2026-03-28T23:30:00Z"),
			want: []string{"2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z"},
		},
		"run just after the repeated hour starts as usual": {
			schedule: "30 3 * * *", timeZone: "Europe/Berlin", from: MustTime("2026-10-24T12:00:00Z"),
			want: []string{"2026-10-25T02:30:00Z", "2026-10-26T02:30:00Z"},
		},
		"run at the first minute after the repeated hour starts as usual": {
			schedule: "0 3 * * *", timeZone: "Europe/Berlin", from: MustTime("2026-10-24T12:00:00Z"),
			want: []string{"2026-10-25T02:00:00Z", "2026-10-26T02:00:00Z"},
		},
		"run just after the jump starts as usual": {
			schedule: "30 3 * * *", timeZone: "Europe/Berlin", from: MustTime("2026-03-28T12:00:00Z"),
			want: []string{"2026-03-29T01:30:00Z", "2026-03-30T01:30:00Z"},
		},
		"a skipped run on a day of the month the schedule does not match is not started": {
			schedule: "30 2 15 * *", timeZone: "Europe/Berlin", from: MustTime("2026-03-28T12:00:00Z"),
			want: []string{"2026-04-15T00:30:00Z"},
		},
		"both day fields restricted: a skipped run on a matching weekday starts at the jump": {
			// Sunday 29 March matches the day of the week only; Wednesday 1 April matches the day of the month only.
			schedule: "30 2 1 * 0", timeZone: "Europe/Berlin", from: MustTime("2026-03-28T12:00:00Z"),
			want: []string{"2026-03-29T01:00:00Z", "2026-04-01T00:30:00Z", "2026-04-05T00:30:00Z"},
		},
		"@daily in a zone that skips midnight (Santiago) starts once, at the jump": {
			// 2026-09-06 00:00 -04 jumps to 01:00 -03 (04:00Z).
			schedule: "@daily", timeZone: "America/Santiago", from: MustTime("2026-09-05T12:00:00Z"),
			want: []string{"2026-09-06T04:00:00Z", "2026-09-07T03:00:00Z"},
		},
		"a skipped run on a day the schedule does not match is not started": {
			schedule: "30 2 * * 1", timeZone: "Europe/Berlin", from: MustTime("2026-03-28T12:00:00Z"),
			want: []string{"2026-03-30T00:30:00Z"},
		},
		"leap day past the tz database's explicit years does not hang (Go reports a zone ending at 2040-12-31)": {
			schedule: "0 0 29 2 *", timeZone: "Europe/Berlin", from: MustTime("2040-03-01T00:00:00Z"),
			want: []string{"2044-02-28T23:00:00Z"},
		},
		"@daily at midnight is unaffected": {
			schedule: "@daily", timeZone: "Europe/Berlin", from: MustTime("2026-03-28T12:00:00Z"),
			want: []string{"2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z"},
		},
		"time zone with a 30 minute shift (Lord Howe)": {
			schedule: "45 1 * * *", timeZone: "Australia/Lord_Howe", from: MustTime("2026-10-03T12:00:00Z"),
			// 2026-10-04 02:00 +10:30 jumps to 02:30 +11:00 (15:30Z). The cron library alone returns 02:45
			// +11:00 (15:45Z) after the 01:45 run; the run of the next day is 01:45 +11:00.
			want: []string{"2026-10-03T15:15:00Z", "2026-10-04T14:45:00Z"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sched := mustParse(t, tc.schedule, ptr.To(tc.timeZone))
			got := []string{}
			for at := tc.from; len(got) < len(tc.want); {
				at = sched.Next(at)
				if at.IsZero() {
					break
				}
				got = append(got, at.UTC().Format(time.RFC3339))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("next run times (-want,+got):\n%s", diff)
			}
		})
	}
}
