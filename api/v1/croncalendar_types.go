package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Bounds of a CronCalendar.
const (
	// MaxCalendarDates is the most entries of spec.excludeDates.
	MaxCalendarDates = 1000
	// MaxCalendarRanges is the most entries of spec.excludeRanges.
	MaxCalendarRanges = 100
	// MaxCalendarSchedules is the most entries of spec.excludeSchedules.
	MaxCalendarSchedules = 20
	// MaxCalendarHolidaySets is the most entries of spec.holidays.
	MaxCalendarHolidaySets = 10
	// MaxCalendarsPerCronJob is the most calendars spec.calendars of a CronJob lists.
	MaxCalendarsPerCronJob = 10
)

// CronCalendarSpec says which scheduled times of the CronJobs that list the calendar start no Job. A
// scheduled time is excluded when its instant, read in spec.timeZone, falls on an excluded date, in an
// excluded range, on a minute an excluded schedule matches, or on a public holiday of a listed country or
// region. An excluded time is not a missed run: it is reported once (ExcludedByCalendar event,
// runs_excluded_total) and skipped by status.nextScheduleTime and kubectl cjo next.
type CronCalendarSpec struct {
	// timeZone is the IANA time zone the calendar's dates, ranges and schedules are read in, such as
	// "Europe/Berlin"; UTC when unset (the same rule and checks as a CronJob's spec.timeZone). A CronJob in
	// another zone is excluded by the calendar's days: a run at 20:00 in New York on 24 December is 02:00
	// on 25 December in Berlin, and a Berlin calendar that excludes 25 December excludes it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self.split('/').all(p, p.matches('^[A-Za-z._+0-9-]{1,14}$') && p != '.' && p != '..' && !p.startsWith('-'))",message="timeZone must be an IANA time zone name such as 'Europe/Berlin': path elements of 1 to 14 letters, digits, '.', '_', '+' or '-', no leading '/', no '.' or '..' element, none starting with '-'"
	// +kubebuilder:validation:XValidation:rule="self.lowerAscii() != 'local'",message="timeZone must name an explicit IANA time zone such as 'Europe/Berlin', not Local"
	// +optional
	TimeZone *string `json:"timeZone,omitempty"`

	// excludeDates are whole days (YYYY-MM-DD, in timeZone) on which no run starts. At most 1000.
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=10
	// +kubebuilder:validation:items:Pattern=`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`
	// +listType=set
	// +optional
	ExcludeDates []string `json:"excludeDates,omitempty"`

	// excludeRanges are spans of wall time (in timeZone) in which no run starts. At most 100.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	ExcludeRanges []CalendarRange `json:"excludeRanges,omitempty"`

	// excludeSchedules are cron expressions (five fields, read in timeZone) of minutes on which no run
	// starts: a scheduled time is excluded when the schedule matches its minute. "* 16-23 * * FRI" is a
	// change freeze every Friday from 16:00 to midnight. Descriptors and @every are refused: they name
	// instants, not spans. At most 20.
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	// +listType=atomic
	// +optional
	ExcludeSchedules []string `json:"excludeSchedules,omitempty"`

	// holidays are the public holidays of countries or regions, from the holiday tables compiled into the
	// operator (github.com/rickar/cal/v2; nothing is downloaded at run time): a scheduled time on such a
	// holiday, or on the weekday the country observes it on, starts no Job. At most 10.
	// +kubebuilder:validation:MaxItems=10
	// +listType=atomic
	// +optional
	Holidays []HolidaySet `json:"holidays,omitempty"`
}

// CalendarRange is a span of wall time in the calendar's time zone.
// +kubebuilder:validation:XValidation:rule="self.start <= self.end",message="excludeRanges: start must not be after end"
type CalendarRange struct {
	// start is the first excluded moment: a date (YYYY-MM-DD, from its midnight) or a wall time
	// (YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS).
	// +kubebuilder:validation:MaxLength=19
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?)?$`
	// +required
	Start string `json:"start"`
	// end is the end of the span: a date excludes that whole day (2026-12-24 to 2026-12-26 is three days),
	// a wall time is the first moment no longer excluded.
	// +kubebuilder:validation:MaxLength=19
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?)?$`
	// +required
	End string `json:"end"`
}

// HolidaySet names the public holidays of a country, or of one of its regions.
type HolidaySet struct {
	// country is the ISO 3166-1 alpha-2 code, such as "DE" or "US".
	// +kubebuilder:validation:Pattern=`^[A-Z]{2}$`
	// +required
	Country string `json:"country"`
	// region is the subdivision, as the holiday tables name it (such as "BY" for Bavaria); its holidays
	// are the country's and the region's own. Unset: the country's national holidays.
	// +kubebuilder:validation:Pattern=`^[A-Z0-9]{1,3}$`
	// +optional
	Region string `json:"region,omitempty"`
}

// CronCalendar excludes scheduled times of the CronJobs of its namespace that list it in spec.calendars:
// dates, ranges, schedules and public holidays. Namespaced, so one tenant's calendar cannot stop another's
// runs; a CronJob can only list calendars of its own namespace. Editing a calendar re-plans every CronJob
// that lists it, with no surprise run (a time it no longer excludes that is already past does not start).
// It has no status: the admission webhook refuses an entry it cannot use (an unknown time zone, country or
// region, an unparseable schedule, a date that does not exist), and a CronJob whose calendar is missing
// starts no run (Ready False, CalendarNotFound). batch/v1 has no such resource.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=cjcal,categories=all
// +kubebuilder:printcolumn:name="TimeZone",type=string,JSONPath=`.spec.timeZone`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CronCalendar struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what the calendar excludes.
	// +required
	Spec CronCalendarSpec `json:"spec"`
}

// CronCalendarList is a list of CronCalendars.
// +kubebuilder:object:root=true
type CronCalendarList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronCalendar `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CronCalendar{}, &CronCalendarList{})
}
