package webhooks

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// FuzzParseAndNext checks, for any schedule string: parsing never panics; admission accepts exactly what the
// controller can parse; what parses has strictly
// increasing next times; the Job name is deterministic and fits 63 characters; and the most recent time
// found is a real scheduled time no later than now.
func FuzzParseAndNext(f *testing.F) {
	for _, seed := range []string{
		"* * * * *", "*/5 * * * *", "30 6-16/4 * * 1-5", "0 0 31 2 *", "@hourly", "@every 90m", "@every 1s",
		"@every -5m", "@every 0s", "@every 99999999h", "0-59/0 * * * *", "*/0 * * * *", "60 * * * *",
		"1-0 * * * *", "0 0 0 * *", "TZ=UTC * * * * *", "CRON_TZ= * * * * *", "@", "@every", "? ? ? ? ?",
		"0 0 * * 7", "0 0 L * *", "5/ * * * *", "/5 * * * *", "1-2-3 * * * *", "99999999999999999999 * * * *",
		"0 0 29 2 *", "0 0 * * MON-FRI", "0 0 1 JAN-DEC/3 *", "", " ", "\t* * * * *\n",
		// The month-end and weekday-of-the-month tokens (issue 25), valid and not.
		"0 18 L * *", "0 0 L-3 * *", "0 0 LW * *", "0 0 15W * *", "0 9 * * MON#1", "0 9 * * 5#L", "0 0 L,15W * *",
		"30 2 L * MON#2", "0 0 L-31 * *", "0 0 1-LW * *", "0 0 * * 1#6", "0 0 L/2 * *", "0 0 W * *", "0 0 * * #1",
	} {
		f.Add(seed)
	}
	now := MustTime("2026-03-02T10:00:00Z")
	admit := &CronJobCustomValidator{Clock: clocktesting.NewFakePassiveClock(now)}
	f.Fuzz(func(t *testing.T, expr string) {
		sched, _, err := schedule.Parse(expr, ptr.To("Europe/Berlin"))
		cj := &cronjobv1.CronJob{Spec: cronjobv1.CronJobSpec{Schedule: expr, TimeZone: ptr.To("Europe/Berlin")}}
		if _, aerr := admit.ValidateCreate(context.Background(), cj); (aerr == nil) != (err == nil) {
			t.Fatalf("schedule %q: admission error %v, but the controller's parse error %v", expr, aerr, err)
		}
		if err != nil {
			return
		}
		prev := now
		for range 5 {
			next := schedule.Next(sched, now, prev)
			if next.IsZero() {
				break
			}
			if !next.After(prev) {
				t.Fatalf("schedule %q: next time %s is not after %s", expr, next, prev)
			}
			name := jobs.Name(string(make([]byte, cronjobv1.MaxNameLength)), next)
			if len(name) > 63 || name != jobs.Name(string(make([]byte, cronjobv1.MaxNameLength)), next) {
				t.Fatalf("schedule %q: job name %q is longer than 63 characters or not deterministic", expr, name)
			}
			prev = next
		}
		later := now.Add(90 * 24 * time.Hour)
		got, count := schedule.MostRecent(sched, now, now, later)
		if got.IsZero() {
			return
		}
		if got.After(later) || !got.After(now) || count < 1 {
			t.Fatalf("schedule %q: most recent %s (count %d) is outside (%s, %s]", expr, got, count, now, later)
		}
		if next := schedule.Next(sched, now, got); !next.IsZero() && !next.After(later) {
			t.Fatalf("schedule %q: most recent %s is not the latest: %s is also <= %s", expr, got, next, later)
		}
	})
}
