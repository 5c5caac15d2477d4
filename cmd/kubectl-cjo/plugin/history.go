package plugin

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

func (e *env) historyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "history NAME",
		Short: "Print the last runs of the CronJob NAME (status.recentRuns) with their outcome",
		Long: `Prints what the controller recorded of the CronJob NAME's last runs (status.recentRuns): a few header
lines (schedule, state, the run and start timeouts, the run counts, consecutive failures and when the
CronJob pauses, the Healthy condition when
spec.successDeadlineSeconds is set), then one line per run, newest first: its Job, the scheduled time in
the CronJob's time zone, what started it (Schedule, CatchUp, Queue, Manual, Backfill), when it started,
how long it ran (or has been running), its result (Running, Succeeded, Failed, TimedOut, NeverStarted,
Replaced, Deleted) and the reason. The list holds every active run and the newest spec.recentRunsLimit
(default 10) finished ones. It needs only get on cronjobs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.history(cmd.Context(), args[0])
		},
	}
}

// history prints the CronJob's header lines and its recentRuns as a table.
func (e *env) history(ctx context.Context, name string) error {
	cj, ns, err := e.getCronJob(ctx, name)
	if err != nil {
		return err
	}
	loc, err := time.LoadLocation(ptr.Deref(cj.Spec.TimeZone, "UTC"))
	if err != nil {
		loc = time.UTC
	}
	now := e.clk.Now()
	state := "scheduling"
	switch pausedAt, paused := cj.Annotations[cronjobv1.PausedAtAnnotation]; {
	case ptr.Deref(cj.Spec.Suspend, false) && paused:
		state = fmt.Sprintf("paused after failures at %s (kubectl cjo resume %s)", pausedAt, name)
	case ptr.Deref(cj.Spec.Suspend, false):
		state = "suspended"
	case cj.Spec.SuspendUntil != nil && now.Before(cj.Spec.SuspendUntil.Time):
		state = "suspended until " + cj.Spec.SuspendUntil.In(loc).Format(time.RFC3339)
	}
	w := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintf(w, "CronJob:\t%s/%s\n", ns, name)
	_, _ = fmt.Fprintf(w, "Schedule:\t%s\n", scheduleLine(cj, loc))
	if len(cj.Spec.Calendars) > 0 {
		_, _ = fmt.Fprintf(w, "Calendars:\t%s\n", strings.Join(cj.Spec.Calendars, ", "))
	}
	_, _ = fmt.Fprintf(w, "State:\t%s\n", state)
	_, _ = fmt.Fprintf(w, "Timeouts:\trun %s, start %s\n", seconds(cj.Spec.RunTimeoutSeconds), seconds(cj.Spec.StartTimeoutSeconds))
	pause := "never"
	if n := cj.Spec.PauseAfterFailures; n != nil {
		pause = fmt.Sprintf("after %d failed runs in a row", *n)
	}
	_, _ = fmt.Fprintf(w, "Runs:\t%d succeeded, %d failed, %d failed in a row (pause: %s)\n",
		cj.Status.SucceededRuns, cj.Status.FailedRuns, cj.Status.ConsecutiveFailures, pause)
	if h := meta.FindStatusCondition(cj.Status.Conditions, cronjobv1.ConditionHealthy); h != nil {
		_, _ = fmt.Fprintf(w, "Healthy:\t%s (%s): %s\n", h.Status, h.Reason, h.Message)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(cj.Status.RecentRuns) == 0 {
		_, err := fmt.Fprintln(e.out, "\nNo runs recorded yet.")
		return err
	}
	_, _ = fmt.Fprintln(e.out)
	w = tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, "JOB\tSCHEDULED\tTRIGGER\tSTARTED\tDURATION\tRESULT\tREASON")
	for _, r := range cj.Status.RecentRuns {
		scheduled := "-"
		if r.ScheduledTime != nil {
			scheduled = r.ScheduledTime.In(loc).Format(time.RFC3339)
		}
		took := "-"
		switch {
		case r.EndTime != nil:
			took = duration.HumanDuration(r.EndTime.Sub(r.StartTime.Time))
		case r.Result == cronjobv1.RunResultRunning:
			took = duration.HumanDuration(now.Sub(r.StartTime.Time)) + " so far"
		}
		reason := r.Reason
		if reason == "" {
			reason = "-"
		}
		_, _ = fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.JobName, scheduled, r.Trigger,
			r.StartTime.In(loc).Format(time.RFC3339), took, r.Result, reason)
	}
	return w.Flush()
}

// seconds is a timeout field as a duration ("1h0m0s"), or "none" when unset.
func seconds(p *int64) string {
	if p == nil {
		return "none"
	}
	return (time.Duration(*p) * time.Second).String()
}

// scheduleLine is spec.schedule in its zone, or the entries of spec.schedules each in its own, and the
// active window when there is one.
func scheduleLine(cj *cronjobv1.CronJob, loc *time.Location) string {
	line := fmt.Sprintf("%s (%s)", cj.Spec.Schedule, loc)
	if len(cj.Spec.Schedules) > 0 {
		parts := make([]string, len(cj.Spec.Schedules))
		for i, e := range cj.Spec.Schedules {
			parts[i] = fmt.Sprintf("%s (%s)", e.Schedule, ptr.Deref(e.TimeZone, loc.String()))
		}
		line = strings.Join(parts, " and ")
	}
	if w := cj.Spec.ActiveWindow; w != nil {
		from, to := "any time", "no end"
		if w.NotBefore != nil {
			from = w.NotBefore.In(loc).Format(time.RFC3339)
		}
		if w.NotAfter != nil {
			to = w.NotAfter.In(loc).Format(time.RFC3339)
		}
		line += fmt.Sprintf(", from %s to %s", from, to)
	}
	return line
}
