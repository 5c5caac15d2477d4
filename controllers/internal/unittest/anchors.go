package unittest

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// Namespace is the namespace of the unit tests' objects.
const Namespace = "ns"

// The fixed instants of the unit tables, in UTC. 2026-03-02 is a Monday.
var (
	// TopOfTheHour is 10:00, the scheduled time of the run that "hourly" is due for.
	TopOfTheHour = MustTime("2026-03-02T10:00:00Z")
	// CreationTime is when "hourly" was created, an hour before TopOfTheHour; PriorHour is the same
	// instant as the run before.
	CreationTime = TopOfTheHour.Add(-time.Hour)
	PriorHour    = HM(9, 0)
	// BeforeHour is 09:59: not time yet.
	BeforeHour = HM(9, 59)
	// IsTime is 10:00:05: the 10:00 run is 5 s late.
	IsTime = TopOfTheHour.Add(5 * time.Second)
	// MinLate is 10:01: the 10:00 run is a minute late.
	MinLate = TopOfTheHour.Add(time.Minute)
	// WeekLate is 10:01 a week later: 169 runs missed.
	WeekLate = TopOfTheHour.Add(7*24*time.Hour + time.Minute)
)

// MustTime parses an RFC 3339 instant, or panics.
func MustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// HM is hh:mm on Monday 2026-03-02, UTC.
func HM(hour, minute int) time.Time {
	return time.Date(2026, time.March, 2, hour, minute, 0, 0, time.UTC)
}

// Hourly is the CronJob of the matrix and of the reconcile tests: "hourly", schedule "0 * * * *", policy
// Allow, created at CreationTime (09:00), generation 1, with the UID the API server would have given it.
func Hourly() *builders.CronJobWrapper {
	return builders.MakeCronJob("hourly", Namespace).Schedule("0 * * * *").
		ConcurrencyPolicy(cronjobv1.AllowConcurrent).JobLabel("app", "hourly").
		UID("cj-uid").CreationTimestamp(CreationTime).Generation(1)
}

// TimePtr is t as the *metav1.Time of a status field.
func TimePtr(t time.Time) *metav1.Time { return ptr.To(metav1.NewTime(t)) }
