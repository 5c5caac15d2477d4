package plugin

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
)

// backfillOptions are the flags of `backfill`.
type backfillOptions struct {
	from, to    string
	parallelism int32
	run         runOptions
}

func (e *env) backfillCommand() *cobra.Command {
	var o backfillOptions
	cmd := &cobra.Command{
		Use:   "backfill NAME --from TIME --to TIME",
		Short: "Run every scheduled time of the CronJob NAME in a past range (creates a CronJobRun with spec.range)",
		Long: `Creates a CronJobRun of the CronJob NAME that backfills every scheduled time (slot) from --from to --to,
both included: the times of its schedule (or the union of its schedules) in its time zone, inside its active
window, that its calendars do not exclude. Each slot runs once, oldest first, at most --parallelism at a
time, as a Job with the slot's own name, so a slot that ran already (the scheduled run, or another
backfill) is reported as skipped and not run again. Before creating the run, the command counts the slots
with the controller's schedule math and prints the first and the last; a range with no slot, more than 1000
or ending in the future fails before anything is created. -p gives parameter values to every slot's Job.
With --wait the command prints the progress as it changes, waits until every slot has ended, lists the
failed slots, and fails unless the run Succeeded.`,
		Example: `  kubectl cjo backfill nightly-report --from 2026-03-01T00:00:00+01:00 --to 2026-03-07T23:59:59+01:00
  kubectl cjo backfill hourly-sync --from 2026-03-02T00:00:00Z --to 2026-03-02T12:00:00Z --parallelism 4 --wait`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.backfill(cmd.Context(), args[0], o)
		},
	}
	cmd.Flags().StringVar(&o.from, "from", "", "The first instant of the range, included (RFC 3339, such as 2026-03-01T00:00:00+01:00). Required.")
	cmd.Flags().StringVar(&o.to, "to", "", "The last instant of the range, included (RFC 3339); not in the future. Required.")
	cmd.Flags().Int32Var(&o.parallelism, "parallelism", 1, "How many slots' Jobs may run at once, 1 to 20.")
	cmd.Flags().BoolVar(&o.run.ignoreConcurrency, "ignore-concurrency", false, "Bound the backfill by --parallelism alone, whatever the CronJob's concurrencyPolicy and maxActiveJobs say (spec.concurrencyPolicy Ignore).")
	cmd.Flags().BoolVar(&o.run.wait, "wait", false, "Print the progress and wait until every slot has ended; fail unless the run Succeeded.")
	cmd.Flags().DurationVar(&o.run.timeout, "timeout", 6*time.Hour, "With --wait, how long to wait at most.")
	cmd.Flags().StringArrayVarP(&o.run.parameters, "parameter", "p", nil, "A value of a parameter of the CronJob for every slot's Job, NAME=VALUE; repeat for several.")
	_ = cmd.MarkFlagRequired("from")
	_ = cmd.MarkFlagRequired("to")
	return cmd
}

// backfill checks the flags, counts the slots when the CronJob can be read, creates the CronJobRun, prints
// its name and the slots, and with --wait follows it to its end.
func (e *env) backfill(ctx context.Context, name string, o backfillOptions) error {
	from, err := time.Parse(time.RFC3339, o.from)
	if err != nil {
		return fmt.Errorf("--from %q is not an RFC 3339 time such as 2026-03-01T00:00:00+01:00: %w", o.from, err)
	}
	to, err := time.Parse(time.RFC3339, o.to)
	if err != nil {
		return fmt.Errorf("--to %q is not an RFC 3339 time such as 2026-03-01T23:59:59+01:00: %w", o.to, err)
	}
	if from.After(to) {
		return fmt.Errorf("--from %s is after --to %s: the range runs from --from to --to", o.from, o.to)
	}
	if now := e.clk.Now(); to.After(now) {
		return fmt.Errorf("--to %s is in the future (now is %s): a backfill runs past scheduled times; give --to now or earlier", o.to, now.Format(time.RFC3339))
	}
	if o.parallelism < 1 || o.parallelism > cronjobv1.MaxBackfillParallelism {
		return fmt.Errorf("--parallelism %d is out of range: give 1 to %d", o.parallelism, cronjobv1.MaxBackfillParallelism)
	}
	c, ns, err := e.clientAndNamespace()
	if err != nil {
		return err
	}
	run := &cronjobv1.CronJobRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: name + "-backfill-"},
		Spec: cronjobv1.CronJobRunSpec{CronJobName: name,
			Range: &cronjobv1.RunRange{From: metav1.NewTime(from), To: metav1.NewTime(to)}},
	}
	if o.parallelism != 1 {
		run.Spec.Parallelism = &o.parallelism
	}
	if o.run.ignoreConcurrency {
		run.Spec.ConcurrencyPolicy = cronjobv1.RunIgnoreConcurrency
	}
	if run.Spec.Parameters, err = parseParameters(o.run.parameters); err != nil {
		return err
	}
	// The CronJob, read once, checks the values and counts the slots; one that cannot be read leaves both
	// to admission and the controller.
	summary := ""
	if cj, err := c.GetCronJob(ctx, ns, name); err == nil {
		if err := parameterErrors(cj, ns, run.Spec.Parameters); err != nil {
			return err
		}
		if summary, err = e.countSlots(ctx, cj, from, to); err != nil {
			return err
		}
	}
	if run, err = c.CreateRun(ctx, run); err != nil {
		return fmt.Errorf("creating a CronJobRun of CronJob %s in namespace %s: %w", name, ns, err)
	}
	_, _ = fmt.Fprintf(e.out, "cronjobrun.batch.cronjob-operator.dev/%s created%s\n", run.Name, summary)
	if !o.run.wait {
		return nil
	}
	return e.waitForRun(ctx, c, run, o.run.timeout)
}

// countSlots counts the CronJob's slots in [from, to] with the controller's schedule math and its
// calendars, and returns " (N slots from FIRST to LAST)" for the output line. A range without a slot or
// with more than MaxBackfillSlots is an error; a calendar that cannot be read gives "" (the webhook and
// the controller count them).
func (e *env) countSlots(ctx context.Context, cj *cronjobv1.CronJob, from, to time.Time) (string, error) {
	name := cj.Name
	cals, err := e.calendars(ctx, cj)
	if err != nil {
		return "", nil //nolint:nilerr // the controller holds the run until the calendar can be read
	}
	sched, loc, err := schedule.ForCronJob(cj, cals)
	if err != nil {
		return "", nil //nolint:nilerr // a missing calendar or a broken schedule: the controller says which
	}
	slots := schedule.Slots(sched, schedule.EarliestTime(cj), from, to, cronjobv1.MaxBackfillSlots+1)
	format := func(t time.Time) string { return t.In(loc).Format(time.RFC3339) }
	switch {
	case len(slots) == 0:
		next := "none in the five years after it"
		if n := schedule.Next(sched, schedule.EarliestTime(cj), to); !n.IsZero() {
			next = format(n)
		}
		return "", fmt.Errorf("CronJob %s has no scheduled time from %s to %s (the next one after it is %s): widen the range",
			name, format(from), format(to), next)
	case len(slots) > cronjobv1.MaxBackfillSlots:
		return "", fmt.Errorf("CronJob %s has more than %d scheduled times from %s to %s: backfill at most %d at once, the first from %s to %s",
			name, cronjobv1.MaxBackfillSlots, format(from), format(to), cronjobv1.MaxBackfillSlots, format(from), format(slots[cronjobv1.MaxBackfillSlots-1]))
	case len(slots) == 1:
		return fmt.Sprintf(" (1 slot: %s)", format(slots[0])), nil
	}
	return fmt.Sprintf(" (%d slots from %s to %s)", len(slots), format(slots[0]), format(slots[len(slots)-1])), nil
}

// progressLine is the progress of a range backfill as `backfill --wait` prints it, "" for other runs.
func progressLine(run *cronjobv1.CronJobRun) string {
	b := run.Status.Backfill
	if b == nil {
		return ""
	}
	return fmt.Sprintf("%d/%d ended: %d succeeded, %d failed, %d skipped; %d running", b.Succeeded+b.Failed+b.Skipped, b.Total,
		b.Succeeded, b.Failed, b.Skipped, b.Running)
}
