package plugin

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/calendar"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

func (e *env) nextCommand() *cobra.Command {
	var count int
	cmd := &cobra.Command{
		Use:   "next NAME",
		Short: "Print the next scheduled times of the CronJob NAME, in its time zone",
		Long: `Prints the next scheduled times of the CronJob NAME after now, one per line in RFC 3339 in the CronJob's
time zone (spec.timeZone, UTC when unset), computed by the controller's own schedule math (daylight saving
time rules, @every anchors), over the union of spec.schedules, without the times the CronJob's calendars,
spec.activeWindow and spec.suspendUntil exclude. A suspended CronJob starts none of them until it is resumed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.next(cmd.Context(), cmd, args[0], count)
		},
	}
	// -n is kubectl's --namespace, as in every kubectl command.
	cmd.Flags().IntVarP(&count, "count", "c", 5, "How many scheduled times to print.")
	return cmd
}

// next prints the CronJob's next count scheduled times after the clock's now.
func (e *env) next(ctx context.Context, cmd *cobra.Command, name string, count int) error {
	if count < 1 {
		return fmt.Errorf("--count must be at least 1, not %d", count)
	}
	cj, _, err := e.getCronJob(ctx, name)
	if err != nil {
		return err
	}
	cals, err := e.calendars(ctx, cj)
	if err != nil {
		return err
	}
	runs, loc, err := schedule.NextRuns(cj, cals, e.clk.Now(), count)
	if err != nil {
		return fmt.Errorf("CronJob %s: %w", name, err)
	}
	if ptr.Deref(cj.Spec.Suspend, false) {
		cmd.PrintErrf("CronJob %s is suspended: none of these starts until `kubectl cjo resume %s`\n", name, name)
	}
	if len(runs) == 0 {
		cmd.PrintErrf("CronJob %s has no scheduled time in the next five years (time zone %s)\n", name, loc)
	}
	for _, run := range runs {
		if ptr.Deref(cj.Spec.JitterSeconds, 0) > 0 {
			// The start, after a tab: the scheduled time stays the first field for scripts.
			_, _ = fmt.Fprintf(e.out, "%s\tstarts %s\n", run.Scheduled.Format(time.RFC3339), run.Start.Format(time.RFC3339))
			continue
		}
		_, _ = fmt.Fprintln(e.out, run.Scheduled.Format(time.RFC3339))
	}
	return nil
}

// calendars reads and compiles the CronCalendars of cj.Spec.calendars, as the controller does; a missing one
// is left out, and NextRuns then says it does not exist.
func (e *env) calendars(ctx context.Context, cj *cronjobv1.CronJob) (schedule.Calendars, error) {
	if len(cj.Spec.Calendars) == 0 {
		return nil, nil
	}
	c, ns, err := e.clientAndNamespace()
	if err != nil {
		return nil, err
	}
	cals := make(schedule.Calendars, len(cj.Spec.Calendars))
	for _, name := range cj.Spec.Calendars {
		cal, err := c.GetCalendar(ctx, ns, name)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading CronCalendar %s in namespace %s: %w", name, ns, err)
		}
		compiled, err := calendar.Compile(cal.Spec)
		if err != nil {
			return nil, fmt.Errorf("CronCalendar %s in namespace %s cannot be used: %w", name, ns, err)
		}
		cals[name] = compiled
	}
	return cals, nil
}
