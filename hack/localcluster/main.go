//go:build unix

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/go-logr/logr/funcr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/cronjob-operator/cronjob-operator/test/cluster"
)

// options are the command-line flags of localcluster.
type options struct {
	assets      string        // directory with kube-apiserver, etcd, kubectl and cluster.Binaries
	crds        string        // directory of CRD manifests installed at start
	samples     string        // directory of objects created at start
	manager     string        // manager binary
	kubeconfig  string        // where the admin kubeconfig is written
	logs        string        // where the components' logs are written
	healthAddr  string        // manager's --health-probe-bind-address
	stopTimeout time.Duration // how long the manager may take to stop after SIGTERM
	managerArgs []string      // extra manager flags, after --
}

func main() {
	os.Exit(run(parseFlags(os.Args[1:])))
}

// parseFlags parses args with a FlagSet of its own: envtest's imports register -kubeconfig on the global one.
func parseFlags(args []string) options {
	var o options
	fs := flag.NewFlagSet("localcluster", flag.ExitOnError)
	fs.StringVar(&o.assets, "assets", filepath.Join("bin", "k8s", "1.37.2-linux-"+runtime.GOARCH),
		"directory with kube-apiserver, etcd, kubectl, kube-controller-manager, kube-scheduler and kwok (KUBEBUILDER_ASSETS, if set, wins)")
	fs.StringVar(&o.crds, "crds", filepath.Join("config", "crd", "bases"), "directory of CRDs to install")
	fs.StringVar(&o.samples, "samples", filepath.Join("config", "samples"), "directory of objects to create")
	fs.StringVar(&o.manager, "manager", filepath.Join("bin", "manager"), "manager binary to run")
	fs.StringVar(&o.kubeconfig, "write-kubeconfig", filepath.Join("bin", "local", "kubeconfig"),
		"file to write the admin kubeconfig to; removed at exit")
	fs.StringVar(&o.logs, "logs", filepath.Join("bin", "local", "logs"),
		"directory of the logs of kube-controller-manager, kube-scheduler and kwok; emptied at start")
	fs.StringVar(&o.healthAddr, "health-probe-bind-address", ":8081", "passed to the manager; readiness is polled there")
	fs.DurationVar(&o.stopTimeout, "stop-timeout", 15*time.Second, "time the manager gets to stop before SIGKILL")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags] [-- manager flags...]\n", fs.Name())
		fs.PrintDefaults()
	}
	_ = fs.Parse(args)
	o.managerArgs = fs.Args()
	return o
}

// run starts the control plane, creates the samples, runs the manager until it exits or a signal arrives, and
// tears everything down. It returns the exit code of the process.
func run(o options) int {
	// Catch signals first, so that none can end us between starting a process and arranging to stop it.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// envtest logs through controller-runtime's logger; show its messages among ours.
	ctrllog.SetLogger(funcr.New(func(prefix, args string) { logf("%s %s", prefix, args) }, funcr.Options{}))

	logf("starting kube-apiserver and etcd from %s", o.assets)
	crds, err := cluster.StoredVersionOnlyCRDs(o.crds)
	if err != nil {
		logf("%v", err)
		return 1
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: o.assets,
		CRDs:                  crds,
	}
	// Stop even after a failed Start: it may have left kube-apiserver or etcd running.
	defer stopControlPlane(env)
	cfg, err := env.Start()
	if err != nil {
		logf("starting control plane: %v", err)
		return 1
	}
	if err := writeKubeconfig(env, o.kubeconfig); err != nil {
		logf("%v", err)
		return 1
	}
	defer removeFile(o.kubeconfig)
	if err := os.RemoveAll(o.logs); err != nil {
		logf("%v", err)
		return 1
	}
	if err := os.MkdirAll(o.logs, 0o755); err != nil {
		logf("%v", err)
		return 1
	}
	logf("starting kube-controller-manager, kube-scheduler and kwok (a simulated node); logs in %s", o.logs)
	start := time.Now()
	nodes, err := cluster.Start(context.Background(), env, cluster.Options{Assets: assetsDir(o), Dir: o.logs, Log: logf})
	if err != nil {
		logf("%v", err)
		return 1
	}
	// Before the control plane (deferred earlier, so it runs later): the components need it to stop cleanly.
	defer nodes.Stop()
	logf("node %s is Ready after %.1f s", cluster.NodeName, time.Since(start).Seconds())
	if err := createSamples(cfg, o.samples); err != nil {
		logf("%v", err)
		return 1
	}
	if sig, ok := pending(sigs); ok {
		logf("received %s before the manager started", sig)
		return 0
	}

	logf("starting %s %v", o.manager, managerArgs(o))
	m, err := cluster.StartProcessTo("manager", o.manager, managerArgs(o), os.Stderr)
	if err != nil {
		logf("%v", err)
		return 1
	}
	ready := waitReady(o.healthAddr, m.Done())
	failed := nodes.Exited()
	for {
		select {
		case ok := <-ready:
			ready = nil
			if !ok {
				logf("manager not ready at %s/readyz yet; carrying on", o.healthAddr)
			}
			printBanner(o)
		case <-m.Done():
			if m.Err() == nil {
				logf("manager exited: exit status 0")
			} else {
				logf("manager exited: %v", m.Err())
			}
			return m.ExitCode()
		case err := <-failed:
			logf("%v; stopping the manager", err)
			m.Stop(o.stopTimeout, sigs)
			return 1
		case sig := <-sigs:
			logf("received %s, stopping the manager", sig)
			if !m.Stop(o.stopTimeout, sigs) {
				logf("the manager did not stop in time (or a second signal came): killed it")
			} else {
				logf("manager stopped")
			}
			return 0
		}
	}
}

// assetsDir is where the binaries are: KUBEBUILDER_ASSETS when set (envtest reads it too), else -assets.
func assetsDir(o options) string {
	if dir, ok := os.LookupEnv("KUBEBUILDER_ASSETS"); ok && dir != "" {
		return dir
	}
	return o.assets
}

// managerArgs are the flags the manager is run with: the local kubeconfig, no leader election, no metrics.
func managerArgs(o options) []string {
	return append([]string{
		"--kubeconfig", o.kubeconfig,
		"--leader-elect=false",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=" + o.healthAddr,
	}, o.managerArgs...)
}

// stopControlPlane stops kube-apiserver and etcd and removes their temporary directories.
func stopControlPlane(env *envtest.Environment) {
	logf("stopping kube-apiserver and etcd")
	if err := env.Stop(); err != nil {
		logf("stopping control plane: %v", err)
	}
}

// pending returns a signal that has arrived, if any, without waiting.
func pending(sigs <-chan os.Signal) (os.Signal, bool) {
	select {
	case sig := <-sigs:
		return sig, true
	default:
		return nil, false
	}
}

func removeFile(path string) {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		logf("removing %s: %v", path, err)
	}
}

// logf prints a line of localcluster's own to stderr, set apart from the manager's log.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "localcluster: "+format+"\n", args...)
}
