package plugin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/parameters"
)

// runOptions are the flags of `run`.
type runOptions struct {
	scheduledTime     string
	ignoreConcurrency bool
	wait              bool
	timeout           time.Duration
	// parameters are the -p NAME=VALUE flags, in their order.
	parameters []string
}

func (e *env) runCommand() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run NAME",
		Short: "Run the CronJob NAME now, or for a past scheduled time (creates a CronJobRun)",
		Long: `Creates a CronJobRun of the CronJob NAME and prints its name. The controller creates the run's Job from
the CronJob's jobTemplate, through the CronJob's concurrencyPolicy unless --ignore-concurrency is given.
With --scheduled-time the run is a backfill of that past scheduled time: its Job gets that time's name, so
it never duplicates the scheduled run of the same time (if that Job exists, the run reports it).
With -p NAME=VALUE (repeatable) the run gives a value to a parameter of the CronJob (spec.parameters): its
Job's containers get it as the environment variable NAME; parameters not given get their defaults. A name
the CronJob does not declare, or a value outside the parameter's enum or not matching its pattern, fails
before the CronJobRun is created.
With --wait the command waits until the run has finished and fails unless it Succeeded.`,
		Example: `  kubectl cjo run nightly-report
  kubectl cjo run nightly-report -p DATE=2026-01-01 -p MODE=full
  kubectl cjo run nightly-report --scheduled-time 2026-03-01T03:00:00+01:00 --wait`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.run(cmd.Context(), args[0], o)
		},
	}
	cmd.Flags().StringVar(&o.scheduledTime, "scheduled-time", "", "Run for this past scheduled time (RFC 3339, such as 2026-03-01T03:00:00Z): a backfill. Unset: now.")
	cmd.Flags().BoolVar(&o.ignoreConcurrency, "ignore-concurrency", false, "Start the run whatever the CronJob's concurrencyPolicy and maxActiveJobs say (spec.concurrencyPolicy Ignore).")
	cmd.Flags().BoolVar(&o.wait, "wait", false, "Wait until the run has finished (Succeeded, Failed or Rejected); fail unless it Succeeded.")
	cmd.Flags().DurationVar(&o.timeout, "timeout", time.Hour, "With --wait, how long to wait at most.")
	cmd.Flags().StringArrayVarP(&o.parameters, "parameter", "p", nil, "A value of a parameter of the CronJob, NAME=VALUE (the value may hold '=' and ','); repeat for several.")
	return cmd
}

// run creates the CronJobRun, prints its name, and with o.wait waits for its end.
func (e *env) run(ctx context.Context, name string, o runOptions) error {
	c, ns, err := e.clientAndNamespace()
	if err != nil {
		return err
	}
	run := &cronjobv1.CronJobRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: name + "-"},
		Spec:       cronjobv1.CronJobRunSpec{CronJobName: name},
	}
	if o.scheduledTime != "" {
		t, err := time.Parse(time.RFC3339, o.scheduledTime)
		if err != nil {
			return fmt.Errorf("--scheduled-time %q is not an RFC 3339 time such as 2026-03-01T03:00:00Z: %w", o.scheduledTime, err)
		}
		run.Spec.ScheduledTime = &metav1.Time{Time: t}
	}
	if o.ignoreConcurrency {
		run.Spec.ConcurrencyPolicy = cronjobv1.RunIgnoreConcurrency
	}
	if run.Spec.Parameters, err = parseParameters(o.parameters); err != nil {
		return err
	}
	if err := checkParameters(ctx, c, ns, name, run.Spec.Parameters); err != nil {
		return err
	}
	if run, err = c.CreateRun(ctx, run); err != nil {
		return fmt.Errorf("creating a CronJobRun of CronJob %s in namespace %s: %w", name, ns, err)
	}
	_, _ = fmt.Fprintf(e.out, "cronjobrun.batch.cronjob-operator.dev/%s created\n", run.Name)
	if !o.wait {
		return nil
	}
	return e.waitForRun(ctx, c, run, o.timeout)
}

// waitForRun reads the run every e.poll until it has finished, prints how it ended and returns an error
// unless it Succeeded. For a range backfill it prints the progress whenever it changes, and at the end the
// failed slots.
func (e *env) waitForRun(ctx context.Context, c Client, run *cronjobv1.CronJobRun, timeout time.Duration) error {
	printed := ""
	err := wait.PollUntilContextTimeout(ctx, e.poll, timeout, true, func(ctx context.Context) (bool, error) {
		read, err := c.GetRun(ctx, run.Namespace, run.Name)
		if err != nil {
			return false, fmt.Errorf("reading CronJobRun %s: %w", run.Name, err)
		}
		run = read
		if line := progressLine(run); line != "" && line != printed {
			_, _ = fmt.Fprintln(e.out, line)
			printed = line
		}
		switch run.Status.Phase {
		case cronjobv1.RunSucceeded, cronjobv1.RunFailed, cronjobv1.RunRejected:
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for CronJobRun %s (phase %q): %w", run.Name, run.Status.Phase, err)
	}
	msg := ""
	if cond := meta.FindStatusCondition(run.Status.Conditions, cronjobv1.ConditionReady); cond != nil && cond.Message != "" {
		msg = ": " + cond.Message
	}
	if b := run.Status.Backfill; b != nil {
		_, _ = fmt.Fprintf(e.out, "cronjobrun.batch.cronjob-operator.dev/%s %s%s\n", run.Name, run.Status.Phase, msg)
		for _, slot := range b.FailedSlots {
			_, _ = fmt.Fprintf(e.out, "failed slot %s\tjob %s\t%s\n", slot.ScheduledTime.UTC().Format(time.RFC3339), slot.JobName, slot.Reason)
		}
		if n := int(b.Failed) - len(b.FailedSlots); n > 0 {
			_, _ = fmt.Fprintf(e.out, "and %d more failed slots\n", n)
		}
	} else {
		_, _ = fmt.Fprintf(e.out, "cronjobrun.batch.cronjob-operator.dev/%s %s (job %q)%s\n", run.Name, run.Status.Phase, run.Status.JobName, msg)
	}
	if run.Status.Phase != cronjobv1.RunSucceeded {
		return fmt.Errorf("CronJobRun %s is %s", run.Name, run.Status.Phase)
	}
	return nil
}

// parseParameters turns the -p NAME=VALUE flags into spec.parameters, in their order. A flag without '=' or
// a name given twice is an error.
func parseParameters(flags []string) ([]cronjobv1.ParameterValue, error) {
	var values []cronjobv1.ParameterValue
	seen := map[string]bool{}
	for _, f := range flags {
		name, value, ok := strings.Cut(f, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("-p %q is not NAME=VALUE, such as -p DATE=2026-01-01", f)
		}
		if seen[name] {
			return nil, fmt.Errorf("-p %s is given twice: give each parameter once", name)
		}
		seen[name] = true
		values = append(values, cronjobv1.ParameterValue{Name: name, Value: value})
	}
	return values, nil
}

// checkParameters checks the values against the parameters the CronJob declares (parameters.Check, as
// admission does) and returns an error naming each -p that does not fit. Without values it reads nothing;
// when the CronJob cannot be read, it leaves the check to admission and the controller.
func checkParameters(ctx context.Context, c Client, ns, name string, values []cronjobv1.ParameterValue) error {
	if len(values) == 0 {
		return nil
	}
	cj, err := c.GetCronJob(ctx, ns, name)
	if err != nil {
		return nil //nolint:nilerr // admission warns about a missing CronJob; the controller checks the values
	}
	return parameterErrors(cj, ns, values)
}

// parameterErrors is checkParameters once the CronJob cj is read.
func parameterErrors(cj *cronjobv1.CronJob, ns string, values []cronjobv1.ParameterValue) error {
	name := cj.Name
	var msgs []string
	for _, v := range values {
		for _, e := range parameters.Check(cj, []cronjobv1.ParameterValue{v}) {
			msgs = append(msgs, fmt.Sprintf("-p %s=%s: %s", v.Name, v.Value, e.Detail))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("CronJob %s in namespace %s does not take these values: %s", name, ns, strings.Join(msgs, "; "))
}
