package plugin

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// Factory makes what a command needs to talk to the cluster, once its flags are parsed.
type Factory interface {
	// Client returns a client of the cluster's CronJob API.
	Client() (Client, error)
	// RESTConfig returns the connection to the cluster, for the commands that need more than the CronJob
	// API (migrate).
	RESTConfig() (*rest.Config, error)
	// Namespace returns the namespace the command acts in: -n/--namespace, else the kubeconfig context's,
	// else "default".
	Namespace() (string, error)
	// BindFlags adds the factory's flags (kubectl's connection flags) to the root command.
	BindFlags(cmd *cobra.Command)
}

// kubeconfigFactory is the Factory of kubectl: the kubeconfig of --kubeconfig, $KUBECONFIG or
// ~/.kube/config, with kubectl's overrides (--context, --namespace, --server, --token, ...).
type kubeconfigFactory struct {
	rules     *clientcmd.ClientConfigLoadingRules
	overrides *clientcmd.ConfigOverrides
}

// NewKubeconfigFactory returns the Factory that connects as kubectl does.
func NewKubeconfigFactory() Factory {
	return &kubeconfigFactory{rules: clientcmd.NewDefaultClientConfigLoadingRules(), overrides: &clientcmd.ConfigOverrides{}}
}

func (f *kubeconfigFactory) BindFlags(cmd *cobra.Command) {
	flags := cmd.PersistentFlags()
	flags.StringVar(&f.rules.ExplicitPath, clientcmd.RecommendedConfigPathFlag, "", "Path to the kubeconfig file to use.")
	clientcmd.BindOverrideFlags(f.overrides, flags, clientcmd.RecommendedConfigOverrideFlags(""))
}

func (f *kubeconfigFactory) config() clientcmd.ClientConfig {
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(f.rules, f.overrides)
}

func (f *kubeconfigFactory) Client() (Client, error) {
	cfg, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	return NewClient(cfg)
}

func (f *kubeconfigFactory) RESTConfig() (*rest.Config, error) {
	cfg, err := f.config().ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	cfg.UserAgent = fieldManager
	return cfg, nil
}

func (f *kubeconfigFactory) Namespace() (string, error) {
	ns, _, err := f.config().Namespace()
	return ns, err
}

// env is what every command runs with.
type env struct {
	f   Factory
	clk clock.PassiveClock
	out io.Writer
	// poll is how often `run --wait` reads the run.
	poll time.Duration
}

// NewCommand returns the root command `kubectl cjo` with its subcommands. clk is the clock of `next`
// (nil: the real clock); out receives the commands' output, errOut errors and notes.
func NewCommand(f Factory, clk clock.PassiveClock, out, errOut io.Writer) *cobra.Command {
	return newCommand(f, clk, out, errOut, time.Second)
}

// newCommand is NewCommand with the polling interval of `run --wait`.
func newCommand(f Factory, clk clock.PassiveClock, out, errOut io.Writer, poll time.Duration) *cobra.Command {
	if clk == nil {
		clk = clock.RealClock{}
	}
	e := &env{f: f, clk: clk, out: out, poll: poll}
	root := &cobra.Command{
		Use:          "kubectl-cjo",
		Annotations:  map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl cjo"},
		Short:        "Run, backfill, suspend, resume, look ahead at and look back on CronJobs of cronjob-operator (batch.cronjob-operator.dev)",
		SilenceUsage: true,
	}
	root.SetOut(out)
	root.SetErr(errOut)
	f.BindFlags(root)
	root.AddCommand(e.runCommand(), e.backfillCommand(), e.suspendCommand(true), e.suspendCommand(false), e.nextCommand(), e.historyCommand(), e.migrateCommand(), e.versionCommand())
	return root
}

// clientAndNamespace returns the client and the namespace of the command.
// getCronJob reads the CronJob name of the command's namespace, and returns the namespace with it.
func (e *env) getCronJob(ctx context.Context, name string) (*cronjobv1.CronJob, string, error) {
	c, ns, err := e.clientAndNamespace()
	if err != nil {
		return nil, "", err
	}
	cj, err := c.GetCronJob(ctx, ns, name)
	if err != nil {
		return nil, "", fmt.Errorf("reading CronJob %s in namespace %s: %w", name, ns, err)
	}
	return cj, ns, nil
}

func (e *env) clientAndNamespace() (Client, string, error) {
	c, err := e.f.Client()
	if err != nil {
		return nil, "", err
	}
	ns, err := e.f.Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("reading the namespace: %w", err)
	}
	return c, ns, nil
}
