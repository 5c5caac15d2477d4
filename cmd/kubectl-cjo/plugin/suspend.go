package plugin

import (
	"context"
	"fmt"
	"time"

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
annotation and restarts status.consecutiveFailures at 0. No run due while it was suspended starts.
Resume also clears spec.suspendUntil.`
	} else {
		long += `

With --until TIME (RFC 3339, such as 2026-12-27T08:00:00+01:00) it sets spec.suspendUntil instead: no
scheduled time before TIME starts a run, and scheduling resumes by itself at TIME with no surprise run
(the first run is the first scheduled time at or after it). It also sets spec.suspend=false, so that a
CronJob suspended (or paused after failures) before resumes at TIME too.`
	}
	var until string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if until != "" {
				t, err := time.Parse(time.RFC3339, until)
				if err != nil {
					return fmt.Errorf("--until %q is not an RFC 3339 time: write it as 2026-12-27T08:00:00+01:00 or 2026-12-27T07:00:00Z", until)
				}
				if now := e.clk.Now(); !t.After(now) {
					return fmt.Errorf("--until %s is not in the future (now is %s): give a later time, or use resume", t.Format(time.RFC3339), now.In(t.Location()).Format(time.RFC3339))
				}
				if err := e.patchSpec(cmd.Context(), args[0], "spec.suspendUntil", fmt.Appendf(nil, `{"spec":{"suspend":false,"suspendUntil":%q}}`, t.UTC().Format(time.RFC3339))); err != nil {
					return err
				}
				_, _ = fmt.Fprintf(e.out, "cronjob.batch.cronjob-operator.dev/%s suspended until %s\n", args[0], t.Format(time.RFC3339))
				return nil
			}
			if err := e.setSuspend(cmd.Context(), args[0], suspend); err != nil {
				return err
			}
			_, _ = fmt.Fprintf(e.out, "cronjob.batch.cronjob-operator.dev/%s %s\n", args[0], done)
			return nil
		},
	}
	if suspend {
		cmd.Flags().StringVar(&until, "until", "", "suspend until this time (RFC 3339) by setting spec.suspendUntil; scheduling resumes by itself then")
	}
	return cmd
}

// setSuspend sets spec.suspend with a merge patch (no read, no conflict with other writers); resume
// clears spec.suspendUntil too.
func (e *env) setSuspend(ctx context.Context, name string, suspend bool) error {
	patch := fmt.Appendf(nil, `{"spec":{"suspend":%t}}`, suspend)
	if !suspend {
		patch = []byte(`{"spec":{"suspend":false,"suspendUntil":null}}`)
	}
	return e.patchSpec(ctx, name, "spec.suspend", patch)
}

// patchSpec applies a merge patch to the CronJob NAME; field names what it changes, for the error.
func (e *env) patchSpec(ctx context.Context, name, field string, patch []byte) error {
	c, ns, err := e.clientAndNamespace()
	if err != nil {
		return err
	}
	if err := c.PatchCronJob(ctx, ns, name, patch); err != nil {
		return fmt.Errorf("patching %s of CronJob %s in namespace %s: %w", field, name, ns, err)
	}
	return nil
}
