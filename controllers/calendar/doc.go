// Package calendar compiles CronCalendars (api/v1 CronCalendarSpec) into what the schedule math asks of
// them: whether an instant is excluded, and why. It is pure (no clock, no API calls) but for Load, which
// reads a CronJob's calendars through the client it is given. The public holidays
// come from the tables of github.com/rickar/cal/v2 compiled into the binary (holidays_gen.go, written by
// hack/holidaysgen); nothing is downloaded at run time.
package calendar

//go:generate go run ../../hack/holidaysgen holidays_gen.go
