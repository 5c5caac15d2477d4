// Package controllers is the one wiring path of the operator: Setup builds the CronJob and CronJobRun
// controllers (packages cronjob and cronjobrun), the field indexes, the event recorder, the metrics and the
// admission webhooks into a manager made with CacheOptions, for main.go, the test framework and the local
// cluster alike. The decisions live in the packages below it; nothing here decides anything.
package controllers
