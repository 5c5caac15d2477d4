// Package schedule is the pure schedule math of a CronJob: it parses spec.schedule in spec.timeZone, finds
// the scheduled times that are due, missed or next, applies daylight saving time rules and jitter, and
// plans one reconcile (PlanRun). Every function takes `now` as an argument: nothing here reads a clock,
// talks to an API server or keeps state, so the controller, the admission webhook, the state metrics and
// kubectl-cjo compute the same times.
package schedule
