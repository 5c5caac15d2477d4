package schedule

import (
	"fmt"
	"strconv"
	"strings"
)

// cronField is one of the five fields of a cron schedule, as prepareFields reads it.
type cronField struct {
	name     string
	min, max int
	names    map[string]int // month or weekday names, in lower case
	takes    string         // what it takes, for messages
}

// The indexes of the fields in cronFields.
const (
	minuteField = iota
	hourField
	domField
	monthField
	dowField
)

var cronFields = [5]cronField{
	{name: "minute", min: 0, max: 59, takes: "0-59"},
	{name: "hour", min: 0, max: 23, takes: "0-23"},
	{name: "day-of-month", min: 1, max: 31,
		takes: "1-31, L (the last day of the month), L-n (n days before it, n 1-30), LW (the last weekday) or nW (the weekday nearest day n)"},
	{name: "month", min: 1, max: 12, takes: "1-12 or JAN-DEC",
		names: map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}},
	{name: "day-of-week", min: 0, max: 7,
		takes: "0-7 or SUN-SAT (0 and 7 are Sunday), d#n (the n-th weekday d of the month, n 1-5) or d#L (the last)",
		names: map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}},
}

// misplacedToken is the problem of L, W or # outside the field they belong to.
const misplacedToken = "L, W and # belong to the day fields: L, L-n, LW and nW to the day-of-month field (the third), " +
	"d#n and d#L to the day-of-week field (the fifth), such as \"0 18 L * *\" or \"0 9 * * MON#1\""

// prepareFields readies a five-field schedule for the cron library and returns its problem, if it has one
// the library would explain less precisely ("" if none). Where the library reads a schedule batch/v1
// accepts differently from batch/v1's library (robfig/cron), it keeps batch/v1's reading:
//   - a range that runs backwards ("22-2", "FRI-MON", or "70/8", whose start is past the field's end) is
//     refused, as batch/v1 refuses it; the library would wrap it around (and make nonsense of a start past the
//     end);
//   - a step at least as long as its range ("*/60", "0-5/10") becomes the range's start, the one value
//     batch/v1 gives it; the library refuses it;
//   - "N/s" in the day-of-week field ends at Saturday (6), as in batch/v1; the library would run it to 7,
//     Sunday ("1/2" would add Sunday to Monday, Wednesday and Friday);
//   - the month and day-of-week fields are passed in lower case: the library takes the H of "THU" for a
//     hash expression and refuses the schedule.
//
// It refuses L, W and # in a field or form the library does not take, with what to write instead. A
// descriptor or a schedule of other than five fields comes back unchanged, for the library to explain.
func prepareFields(schedule string) (prepared, problem string) {
	fields := strings.Fields(schedule)
	if len(fields) != 5 || strings.HasPrefix(schedule, "@") {
		return schedule, ""
	}
	for i, value := range fields {
		tokens := strings.FieldsFunc(value, func(r rune) bool { return r == ',' })
		changed := false
		for j, token := range tokens {
			prepared, problem := prepareToken(i, token)
			if problem != "" {
				return "", fmt.Sprintf("the %s field %q: %s", cronFields[i].name, value, problem)
			}
			changed = changed || prepared != token
			tokens[j] = prepared
		}
		if changed {
			fields[i] = strings.Join(tokens, ",")
		}
		if i == monthField || i == dowField {
			fields[i] = strings.ToLower(fields[i])
		}
	}
	return strings.Join(fields, " "), ""
}

// prepareToken is prepareFields for one comma-separated token of field i.
func prepareToken(i int, token string) (prepared, problem string) {
	up := strings.ToUpper(token)
	switch {
	case strings.Contains(up, "#") && i != dowField:
		return "", misplacedToken
	case i == dowField && strings.Contains(up, "#"):
		return token, nthWeekdayProblem(token)
	case i == domField && strings.ContainsAny(up, "LW"):
		return token, monthEndProblem(token)
	case i == dowField && strings.Contains(up, "L"): // no weekday name has an L
		return "", fmt.Sprintf("%q: L in the day-of-week field is written d#L, such as 5#L or FRI#L for the last Friday of the month; "+
			"for the last day of the month put L in the day-of-month field", token)
	case (i == minuteField || i == hourField) && strings.ContainsAny(up, "LW"):
		return "", misplacedToken
	}
	return prepareRange(i, token)
}

// prepareRange is prepareToken for a value, a range or * with an optional step.
func prepareRange(i int, token string) (prepared, problem string) {
	r, ok := readRange(i, token)
	if !ok {
		if (i == monthField || i == dowField) && strings.ContainsAny(strings.ToUpper(token), "LW") {
			return "", misplacedToken
		}
		return token, "" // the library explains
	}
	f := cronFields[i]
	high := f.max
	if i == dowField {
		high = 6
	}
	switch {
	case r.start > r.end && r.start > f.max: // "70-5", "70/8"
		return "", fmt.Sprintf("%q: %d is out of range: the %s field takes %s", token, r.start, f.name, f.takes)
	case r.start > r.end && r.toEnd: // "7/2" in the day-of-week field
		return "", fmt.Sprintf("%q starts at Sunday as 7, the end of the week: write 0/%d to step from Sunday", token, r.step)
	case r.start > r.end && r.start > high: // "7-1" in the day-of-week field
		return "", fmt.Sprintf("the range %q runs backwards: write it from low to high (0-%d; 0 is Sunday too)", token, r.end)
	case r.start > r.end:
		return "", fmt.Sprintf("the range %q runs backwards: write it from low to high, as two ranges if it wraps around (%d-%d,%d-%d)",
			token, r.start, high, f.min, r.end)
	case r.start < f.min || r.end > f.max:
		return token, "" // the library explains
	case r.step > 1 && r.step >= r.end-r.start+1:
		return strconv.Itoa(r.start), ""
	case i == dowField && r.toEnd:
		return fmt.Sprintf("%d-%d/%d", r.start, r.end, r.step), ""
	}
	return token, ""
}

// cronRange is a token of a field as robfig/cron reads it: the values from start to end, every step-th.
type cronRange struct {
	start, end, step int
	toEnd            bool // "N/s": a value with a step, which runs to the end of the field
}

// readRange reads a value, a range or * (or ?) with an optional step of field i as robfig/cron reads them:
// "*" and "N/s" end at the end of the field (Saturday, 6, in the day-of-week field). ok is false if the token
// is none of them.
func readRange(i int, token string) (r cronRange, ok bool) {
	f := cronFields[i]
	rangeAndStep := strings.Split(token, "/")
	lowAndHigh := strings.Split(rangeAndStep[0], "-")
	if len(rangeAndStep) > 2 {
		return r, false
	}
	r = cronRange{start: f.min, end: f.max, step: 1}
	if i == dowField {
		r.end = 6
	}
	if len(rangeAndStep) == 2 {
		s, err := strconv.Atoi(rangeAndStep[1])
		if err != nil || s < 1 {
			return r, false
		}
		r.step = s
	}
	if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
		return r, true
	}
	if r.start, ok = f.value(lowAndHigh[0]); !ok || len(lowAndHigh) > 2 {
		return r, false
	}
	switch {
	case len(lowAndHigh) == 2:
		r.end, ok = f.value(lowAndHigh[1])
	case len(rangeAndStep) == 2:
		r.toEnd = true
	default:
		r.end = r.start
	}
	return r, ok
}

// value parses a number or a name of the field; ok is false if it is neither (negative numbers included).
func (f cronField) value(s string) (int, bool) {
	if v, ok := f.names[strings.ToLower(s)]; ok {
		return v, true
	}
	v, err := strconv.Atoi(s)
	return v, err == nil && v >= 0
}

// monthEndProblem is the problem of a day-of-month token with an L or a W, "" if it is L, L-n (n 1-30), LW or
// nW (n 1-31).
func monthEndProblem(token string) string {
	up := strings.ToUpper(token)
	switch {
	case up == "L" || up == "LW":
		return ""
	case strings.HasPrefix(up, "L-"):
		if n, err := strconv.Atoi(up[2:]); err == nil && n >= 1 && n <= 30 {
			return ""
		}
		return fmt.Sprintf("%q: L-n counts n days back from the last day of the month, n from 1 to 30: L-1 is the day before the last day", token)
	case strings.HasSuffix(up, "W") && !strings.HasPrefix(up, "L"):
		n, err := strconv.Atoi(up[:len(up)-1])
		switch {
		case err == nil && n >= 1 && n <= 31:
			return ""
		case err == nil:
			return fmt.Sprintf("%q: nW takes a day n from 1 to 31: 15W is the weekday nearest the 15th", token)
		}
		return fmt.Sprintf("%q: nW takes a single day, not a range, a step or *: write 1W,15W for the weekdays nearest the 1st and the 15th", token)
	}
	return fmt.Sprintf("%q is not a month-end token: write L (the last day of the month), L-n (n days before it, n 1-30), "+
		"LW (the last weekday) or nW (the weekday nearest day n), each on its own between commas", token)
}

// nthWeekdayProblem is the problem of a day-of-week token with a #, "" if it is d#n (n 1-5) or d#L with d
// one weekday (0-7 or SUN-SAT).
func nthWeekdayProblem(token string) string {
	weekday, nth, _ := strings.Cut(token, "#")
	d, ok := cronFields[dowField].value(weekday)
	if !ok || d > 7 {
		return fmt.Sprintf("%q: d#n takes one weekday before the # (0-7 or SUN-SAT), not a range, a list or *: write MON#1,FRI#1 for the first Monday and the first Friday", token)
	}
	if n, err := strconv.Atoi(nth); strings.EqualFold(nth, "L") || err == nil && n >= 1 && n <= 5 {
		return ""
	}
	return fmt.Sprintf("%q: the occurrence after the # is 1 to 5 or L: %s#1 is the first of that weekday in the month, %s#L the last (no month has a sixth)",
		token, weekday, weekday)
}

// libraryProblem is the problem of a schedule the cron library refused with err (prepared from schedule by
// prepareFields): for five fields, the first field it refuses on its own, with the library's reason and what
// the field takes; else the reason and the two forms of a schedule.
func libraryProblem(schedule, prepared string, err error) string {
	fields, preparedFields := strings.Fields(schedule), strings.Fields(prepared)
	if len(fields) == 5 && len(preparedFields) == 5 && !strings.HasPrefix(schedule, "@") {
		for i, value := range preparedFields {
			probe := []string{"0", "0", "*", "*", "*"}
			probe[i] = value
			if _, perr := cronParser.Parse(strings.Join(probe, " ")); perr != nil {
				reason := perr.Error()
				if strings.Contains(reason, "option") { // H: a hash expression, which needs a parser option
					reason = "H is not a value"
				}
				return fmt.Sprintf("the %s field %q: %s; it takes %s, as values, ranges (a-b), * and steps (*/n, a-b/n), between commas",
					cronFields[i].name, fields[i], reason, cronFields[i].takes)
			}
		}
	}
	return fmt.Sprintf("%v; use five fields (minute hour day-of-month month day-of-week) or a descriptor such as @hourly", err)
}
