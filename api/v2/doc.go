// Package v2 holds the CronJob API of group batch.cronjob-operator.dev, version v2: v1's CronJob with its
// spec grouped by concern (schedule, concurrency, missedRuns, history, timeouts, health). Every v1 field
// has exactly one place here and the status is v1's, so conversion is lossless both ways
// (cronjob_conversion.go; v1 is the hub). CronJobRun and CronCalendar are served as v1 only.
//
// Leaf types whose shape is the same in both versions (ActiveWindow, Parameter, the status) are v1's Go
// types: they cannot drift apart. A change to one of them in v1 would change v2 too, so v1 changes only by
// adding optional fields (README "API versions").
//
// +kubebuilder:object:generate=true
// +groupName=batch.cronjob-operator.dev
package v2
