package plugin

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// suspendCommand is `suspend NAME` (suspend true) or `resume NAME` (false).
func (e *env) suspendCommand(suspend bool) *cobra.Command {
	use, short, done := "resume NAME", "Resume the CronJob NAME (spec.suspend=false), also one paused after failures: the first run is the first scheduled time after now", "resumed"
	if suspend {
		use, short, done = "suspend NAME", "Suspend the CronJob NAME (spec.suspend=true): no new runs start; active Jobs go on", "suspended"
	}
	long := short + "."
	if !suspend {
		long += `

A CronJob the controller paused after spec.pauseAfterFailures failed runs in a row (annotation
batch.cronjob-operator.dev/paused-at) is resumed the same way: the controller then removes the
annotation and restarts status.consecutiveFailures at 0. No run due while it was suspended starts.`
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.setSuspend(cmd.Context(), args[0], suspend); err != nil {
				return err
			}
			_, _ = fmt.Fprintf(e.out, "cronjob.batch.cronjob-operator.dev/%s %s\n", args[0], done)
			return nil
		},
	}
}

// setSuspend sets spec.suspend with a merge patch (no read, no conflict with other writers).
func (e *env) setSuspend(ctx context.Context, name string, suspend bool) error {
	c, ns, err := e.clientAndNamespace()
	if err != nil {
		return err
	}
	patch := fmt.Appendf(nil, `{"spec":{"suspend":%t}}`, suspend)
	if err := c.PatchCronJob(ctx, ns, name, patch); err != nil {
		return fmt.Errorf("patching spec.suspend of CronJob %s in namespace %s: %w", name, ns, err)
	}
	return nil
}
