package v2

import (
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// Conversion between v1, the hub the controllers work on (cronjobv1.CronJob.Hub), and this version. Every
// field of either version has exactly one place in the other, so both directions are lossless: v1 → v2
// → v1 and v2 → v1 → v2 return the object they started from, metadata and status included
// (FuzzRoundTripV1, FuzzRoundTripV2). No field needs to travel in an annotation; a field added to one
// version only would (README "API versions"). The manager's /convert endpoint serves these for the CRD's
// conversion webhook.

// ConvertTo writes the v1 form of the CronJob into hub, a *cronjobv1.CronJob. It never fails: every v2
// field has its v1 place (the error is the conversion.Convertible signature's).
func (src *CronJob) ConvertTo(hub conversion.Hub) error {
	ToV1(src, hub.(*cronjobv1.CronJob))
	return nil
}

// ConvertFrom sets the CronJob to the v2 form of hub, a *cronjobv1.CronJob. It never fails: every v1 field
// has its v2 place.
func (dst *CronJob) ConvertFrom(hub conversion.Hub) error {
	ToV2(hub.(*cronjobv1.CronJob), dst)
	return nil
}

// ToV2 writes the v2 form of src into dst. dst shares no memory with src. TypeMeta is set to v2.
func ToV2(src *cronjobv1.CronJob, dst *CronJob) {
	in := src.DeepCopy()
	s := in.Spec
	dst.TypeMeta = in.TypeMeta
	dst.APIVersion, dst.Kind = GroupVersion.String(), "CronJob"
	dst.ObjectMeta = in.ObjectMeta
	dst.Status = in.Status
	dst.Spec = CronJobSpec{
		Schedule: Schedule{
			Cron:          s.Schedule,
			Crons:         cronsToV2(s.Schedules),
			TimeZone:      s.TimeZone,
			Calendars:     s.Calendars,
			ActiveWindow:  s.ActiveWindow,
			JitterSeconds: s.JitterSeconds,
		},
		Suspend:      s.Suspend,
		SuspendUntil: s.SuspendUntil,
		Concurrency: Concurrency{
			Policy:        s.ConcurrencyPolicy,
			MaxActiveJobs: s.MaxActiveJobs,
			MaxQueuedRuns: s.MaxQueuedRuns,
		},
		MissedRuns: MissedRuns{
			Policy:                  s.MissedRunPolicy,
			StartingDeadlineSeconds: s.StartingDeadlineSeconds,
			MaxCatchUpRuns:          s.MaxCatchUpRuns,
		},
		History: History{
			SuccessfulJobs: s.SuccessfulJobsHistoryLimit,
			FailedJobs:     s.FailedJobsHistoryLimit,
			RecentRuns:     s.RecentRunsLimit,
		},
		Timeouts: Timeouts{
			RunSeconds:   s.RunTimeoutSeconds,
			StartSeconds: s.StartTimeoutSeconds,
		},
		Health: Health{
			SuccessDeadlineSeconds: s.SuccessDeadlineSeconds,
			PauseAfterFailures:     s.PauseAfterFailures,
		},
		Parameters:  s.Parameters,
		JobTemplate: s.JobTemplate,
	}
}

// ToV1 writes the v1 form of src into dst. dst shares no memory with src. TypeMeta is set to v1.
func ToV1(src *CronJob, dst *cronjobv1.CronJob) {
	in := src.DeepCopy()
	s := in.Spec
	dst.TypeMeta = in.TypeMeta
	dst.APIVersion, dst.Kind = cronjobv1.GroupVersion.String(), "CronJob"
	dst.ObjectMeta = in.ObjectMeta
	dst.Status = in.Status
	dst.Spec = cronjobv1.CronJobSpec{
		Schedule:                   s.Schedule.Cron,
		Schedules:                  cronsToV1(s.Schedule.Crons),
		TimeZone:                   s.Schedule.TimeZone,
		Calendars:                  s.Schedule.Calendars,
		ActiveWindow:               s.Schedule.ActiveWindow,
		JitterSeconds:              s.Schedule.JitterSeconds,
		Suspend:                    s.Suspend,
		SuspendUntil:               s.SuspendUntil,
		ConcurrencyPolicy:          s.Concurrency.Policy,
		MaxActiveJobs:              s.Concurrency.MaxActiveJobs,
		MaxQueuedRuns:              s.Concurrency.MaxQueuedRuns,
		MissedRunPolicy:            s.MissedRuns.Policy,
		StartingDeadlineSeconds:    s.MissedRuns.StartingDeadlineSeconds,
		MaxCatchUpRuns:             s.MissedRuns.MaxCatchUpRuns,
		SuccessfulJobsHistoryLimit: s.History.SuccessfulJobs,
		FailedJobsHistoryLimit:     s.History.FailedJobs,
		RecentRunsLimit:            s.History.RecentRuns,
		RunTimeoutSeconds:          s.Timeouts.RunSeconds,
		StartTimeoutSeconds:        s.Timeouts.StartSeconds,
		SuccessDeadlineSeconds:     s.Health.SuccessDeadlineSeconds,
		PauseAfterFailures:         s.Health.PauseAfterFailures,
		Parameters:                 s.Parameters,
		JobTemplate:                s.JobTemplate,
	}
}

// cronsToV2 keeps nil as nil and an empty list as empty: the two differ in a stored object.
func cronsToV2(in []cronjobv1.ScheduleEntry) []Cron {
	if in == nil {
		return nil
	}
	out := make([]Cron, len(in))
	for i, e := range in {
		out[i] = Cron{Cron: e.Schedule, TimeZone: e.TimeZone}
	}
	return out
}

func cronsToV1(in []Cron) []cronjobv1.ScheduleEntry {
	if in == nil {
		return nil
	}
	out := make([]cronjobv1.ScheduleEntry, len(in))
	for i, e := range in {
		out[i] = cronjobv1.ScheduleEntry{Schedule: e.Cron, TimeZone: e.TimeZone}
	}
	return out
}
