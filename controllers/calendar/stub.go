// Package calendar compiles CronCalendars. This file is a stand-in until the package lands: it honours
// excludeDates in UTC only.
package calendar

import (
	"time"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// Calendar is a compiled CronCalendar.
type Calendar struct{ dates map[string]bool }

// Compile compiles spec.
func Compile(spec cronjobv1.CronCalendarSpec) (*Calendar, error) {
	c := &Calendar{dates: map[string]bool{}}
	for _, d := range spec.ExcludeDates {
		c.dates[d] = true
	}
	return c, nil
}

// Excluded reports whether t is excluded.
func (c *Calendar) Excluded(t time.Time) (bool, string) {
	d := t.UTC().Format(time.DateOnly)
	return c.dates[d], "excludeDates " + d
}
