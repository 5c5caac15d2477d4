package plugin

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/utils/ptr"

	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

func (e *env) nextCommand() *cobra.Command {
	var count int
	cmd := &cobra.Command{
		Use:   "next NAME",
		Short: "Print the next scheduled times of the CronJob NAME, in its time zone",
		Long: `Prints the next scheduled times of the CronJob NAME after now, one per line in RFC 3339 in the CronJob's
time zone (spec.timeZone, UTC when unset), computed by the controller's own schedule math (daylight saving
time rules, @every anchors). A suspended CronJob starts none of them until it is resumed.`,
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
	runs, loc, err := schedule.NextRuns(cj, nil, e.clk.Now(), count)
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
