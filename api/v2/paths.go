package v2

import (
	"regexp"
)

// v2Fields maps each v1 spec field whose place differs in v2 to that place (README "API versions").
var v2Fields = map[string]string{
	"schedule":                   "schedule.cron",
	"schedules":                  "schedule.crons",
	"timeZone":                   "schedule.timeZone",
	"calendars":                  "schedule.calendars",
	"activeWindow":               "schedule.activeWindow",
	"jitterSeconds":              "schedule.jitterSeconds",
	"concurrencyPolicy":          "concurrency.policy",
	"maxActiveJobs":              "concurrency.maxActiveJobs",
	"maxQueuedRuns":              "concurrency.maxQueuedRuns",
	"missedRunPolicy":            "missedRuns.policy",
	"startingDeadlineSeconds":    "missedRuns.startingDeadlineSeconds",
	"maxCatchUpRuns":             "missedRuns.maxCatchUpRuns",
	"successfulJobsHistoryLimit": "history.successfulJobs",
	"failedJobsHistoryLimit":     "history.failedJobs",
	"recentRunsLimit":            "history.recentRuns",
	"runTimeoutSeconds":          "timeouts.runSeconds",
	"startTimeoutSeconds":        "timeouts.startSeconds",
	"successDeadlineSeconds":     "health.successDeadlineSeconds",
	"pauseAfterFailures":         "health.pauseAfterFailures",
}

// v1Path matches a v1 spec path in text: what precedes it (not a '.', a letter or a digit, so that a
// spec nested in another path, such as jobTemplate.spec.template.spec, is not taken for the CronJob's),
// the field, an index, and the next field.
var v1Path = regexp.MustCompile(`(^|[^.\w])spec\.([A-Za-z]+)(\[\d+\])?(\.[A-Za-z]+)?`)

// V2Paths rewrites every v1 spec path in text (a field path or a message) to its v2 place:
// "spec.maxQueuedRuns" becomes "spec.concurrency.maxQueuedRuns", "spec.schedules[1].schedule"
// "spec.schedule.crons[1].cron". Paths that are the same in both versions (spec.suspend, spec.jobTemplate,
// spec.parameters, ...), paths that are already v2 and text that names no path are returned as they are.
// The admission webhooks validate the v1 form of a v2 request, and use it so that a v2 user reads the
// fields they wrote.
func V2Paths(text string) string {
	return v1Path.ReplaceAllStringFunc(text, func(m string) string {
		g := v1Path.FindStringSubmatch(m)
		before, field, index, rest := g[1], g[2], g[3], g[4]
		to, ok := v2Fields[field]
		switch {
		case !ok, field == "schedule" && rest != "": // v1's schedule is a string: spec.schedule.x is v2
			return m
		case field == "schedules" && rest == ".schedule":
			rest = ".cron"
		}
		return before + "spec." + to + index + rest
	})
}
