package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/report"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/rig"
	"github.com/cronjob-operator/cronjob-operator/test/oracle"
)

// sizes are the scenario parameters; -mode gives their defaults, flags override them.
type sizes struct {
	scenarios          string
	repetitions        int
	singleMinutes      int
	burstSize          int
	burstMinutes       int
	populationSize     int
	populationMinutely int
	populationMinutes  int
	// populationStart asks for the population's time to start (-population-start).
	populationStart bool
	restartSize     int
	restartDowntime time.Duration
	// controllers are the controllers to run (both by default).
	controllers map[results.Controller]bool
}

// modeDefaults are the values of the size flags per -mode, for the flags not given.
var modeDefaults = map[string]map[string]string{
	// The full run: every scenario at its stated size, two repetitions so that each controller
	// goes first once (how long it takes: bench/README.md).
	"full": {"scenarios": "single,burst,population,restart", "repetitions": "2", "single-minutes": "10",
		"burst-size": "1000", "burst-minutes": "5", "population-size": "10000", "population-minutely": "-1",
		"population-minutes": "30", "restart-size": "1000", "restart-downtime": "10m"},
	// A smoke run, short enough for CI: one measured minute of single and of a 500-CronJob burst per
	// controller.
	"quick": {"scenarios": "single,burst", "repetitions": "1", "single-minutes": "1", "burst-size": "500",
		"burst-minutes": "1", "population-size": "1000", "population-minutely": "-1", "population-minutes": "2",
		"restart-size": "100", "restart-downtime": "1m"},
}

func main() {
	var (
		mode, out, assets, manager, kcm, crds string
		controllers                           string
		profileSeconds                        int
		sz                                    sizes
		settings                              results.Settings
		b                                     = &bench{}
	)
	flag.StringVar(&mode, "mode", "full", "quick (a smoke run under 5 minutes) or full (the issue's sizes, two repetitions, about 4 hours): the defaults of the flags below marked (mode)")
	flag.StringVar(&sz.scenarios, "scenarios", "", "(mode) Comma-separated scenarios to run, in order: single, burst, population, restart.")
	flag.IntVar(&sz.repetitions, "repetitions", 0, "(mode) Repetitions of each scenario per controller; the order of the two controllers alternates.")
	flag.IntVar(&sz.singleMinutes, "single-minutes", 0, "(mode) single: scheduled minutes measured of one minutely CronJob.")
	flag.IntVar(&sz.burstSize, "burst-size", 0, "(mode) burst: minutely CronJobs, all due on the same minutes.")
	flag.IntVar(&sz.burstMinutes, "burst-minutes", 0, "(mode) burst: scheduled minutes measured.")
	flag.IntVar(&sz.populationSize, "population-size", 0, "(mode) population: CronJobs; besides the minutely ones, half hourly and half daily, spread over the minutes of the hour and of the day.")
	flag.IntVar(&sz.populationMinutely, "population-minutely", 0, "(mode) population: how many of the CronJobs are minutely; -1 (both modes): 1 % of -population-size, rounded down (100,000 have 1,000).")
	flag.IntVar(&sz.populationMinutes, "population-minutes", 0, "(mode) population: scheduled minutes measured.")
	flag.BoolVar(&sz.populationStart, "population-start", true, "population: after the measured minutes, stop the controller and start it again with its CronJobs present, and measure the start (time until its caches synced and until every CronJob was reconciled, its CPU and peak RSS).")
	flag.IntVar(&sz.restartSize, "restart-size", 0, "(mode) restart: minutely CronJobs.")
	flag.DurationVar(&sz.restartDowntime, "restart-downtime", 0, "(mode) restart: how long the controller is stopped; whole minutes keep the restart 20 s past a minute.")
	flag.Float64Var(&settings.QPS, "qps", 1000, "Client-side QPS limit of both controllers (--kube-api-qps).")
	flag.IntVar(&settings.Burst, "burst", 2000, "Client-side burst of both controllers (--kube-api-burst).")
	flag.IntVar(&settings.OursMaxConcurrentReconciles, "ours-max-concurrent-reconciles", 4, "Ours' --max-concurrent-reconciles (its default is 4).")
	flag.IntVar(&settings.PeerConcurrentSyncs, "peer-concurrent-syncs", 5, "The peer's --concurrent-cron-job-syncs (its default is 5).")
	flag.DurationVar(&b.settle, "settle", 10*time.Second, "Least time between a controller's start and the first minute measured.")
	flag.DurationVar(&b.idleAfter, "idle-after", 10*time.Second, "A controller counts as idle from this long after a due minute to 1 s before the next.")
	flag.StringVar(&out, "out", "bench/results", "Directory the run's results directory is written under.")
	flag.StringVar(&assets, "assets", "bin/k8s/1.37.2-linux-amd64", "Directory of kube-apiserver, etcd and kube-controller-manager (make bench-assets).")
	flag.StringVar(&manager, "manager", "bin/manager", "Ours: the manager binary (make build).")
	flag.StringVar(&kcm, "kube-controller-manager", "", "The peer's binary (default: <assets>/kube-controller-manager).")
	flag.StringVar(&crds, "crds", "config/crd/bases", "Directory of the CronJob CRD.")
	flag.StringVar(&b.oursArgs, "ours-args", "", "Extra flags of ours' manager, space-separated (e.g. --pprof-bind-address=127.0.0.1:6060 --zap-log-level=debug).")
	flag.IntVar(&profileSeconds, "profile", 0, "Seconds of CPU profile to capture at the start of each measured window, of kube-apiserver and of ours (0: none); written to the results directory's work/ (not committed) as <scenario>-<controller>-<repetition>-{kube-apiserver,controller}.pprof.")
	flag.StringVar(&controllers, "controllers", "ours,peer", "Controllers to run: ours,peer, or one of them for tuning (the report then has one column empty).")
	rerender := flag.String("rerender", "", "A results directory whose report.md and skew.png are rewritten from its results.json (after a change of the report's figures or targets); nothing is run.")
	flag.Parse()
	if *rerender != "" {
		if err := report.Rerender(*rerender); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.Exit(1)
		}
		return
	}
	defaults, ok := modeDefaults[mode]
	if !ok {
		fmt.Fprintf(os.Stderr, "bench: unknown -mode %q: use quick or full\n", mode)
		os.Exit(2)
	}
	settings.Flags = map[string]string{}
	flag.Visit(func(f *flag.Flag) { settings.Flags[f.Name] = f.Value.String() })
	name := mode
	for k, v := range defaults {
		if _, given := settings.Flags[k]; given {
			name = "custom"
			continue
		}
		if err := flag.Set(k, v); err != nil {
			panic(err) // modeDefaults is wrong
		}
	}
	sz.controllers = map[results.Controller]bool{}
	for c := range strings.SplitSeq(controllers, ",") {
		c := results.Controller(strings.TrimSpace(c))
		if c != results.Ours && c != results.Peer {
			fmt.Fprintf(os.Stderr, "bench: unknown controller %q in -controllers: use ours, peer or ours,peer\n", c)
			os.Exit(2)
		}
		sz.controllers[c] = true
	}
	if kcm == "" {
		kcm = filepath.Join(assets, "kube-controller-manager")
	}
	settings.Repetitions = sz.repetitions
	// The API server flushes its audit buffer at least every second (audit-log-batch-max-wait).
	b.audit.Flush = 3 * time.Second
	b.logf = func(format string, args ...any) {
		fmt.Printf("%s  %s\n", time.Now().UTC().Format(time.TimeOnly), fmt.Sprintf(format, args...))
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b.profileSeconds = profileSeconds
	if err := runBench(ctx, b, sz, name, settings, out, assets, manager, kcm, crds); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

func runBench(ctx context.Context, b *bench, sz sizes, mode string, settings results.Settings, out, assets, manager, kcm, crds string) error {
	for _, f := range []string{manager, kcm, filepath.Join(assets, "kube-apiserver"), filepath.Join(assets, "etcd")} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("%s is missing: run make bench-assets build (or make bench, which does)", f)
		}
	}
	started := time.Now().UTC()
	dir := filepath.Join(out, started.Format("20060102T150405Z")+"-"+mode)
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	b.logf("bench %s: results in %s", mode, dir)
	cp, err := rig.StartControlPlane(work, assets, crds)
	if err != nil {
		return err
	}
	defer func() { _ = cp.Stop() }()
	b.audit.Log = cp.AuditLog
	cfg := rest.CopyConfig(cp.Harness)
	cfg.QPS, cfg.Burst = -1, 0 // the harness is not rate-limited client-side
	if b.c, err = client.New(cfg, client.Options{Scheme: scheme()}); err != nil {
		return err
	}
	if b.watch, err = oracle.Start(ctx, cfg, metav1.NamespaceAll); err != nil {
		return err
	}
	b.rigs = rig.Rigs(cp, manager, kcm, work, settings)
	b.rigs[results.Ours].ExtraArgs = strings.Fields(b.oursArgs)
	if b.profileSeconds > 0 {
		b.rigs[results.Ours].Profile = true
		if b.prof, err = newProfiler(b.profileSeconds, work, cp.Harness, b.logf); err != nil {
			return err
		}
	}
	run := &results.Run{Started: started, Mode: mode, Machine: machine(), Versions: versions(kcm, assets), Settings: settings}
	// The results are written after every phase, so a failure or Ctrl-C in hour five keeps what was
	// measured (the report then says what is missing).
	save := func() error {
		run.Duration = time.Since(started).Round(time.Second)
		return report.Write(run, dir)
	}
	var plans []results.Scenario
	var phases [][]phase
	for name := range strings.SplitSeq(sz.scenarios, ",") {
		sc, ps, err := plan(strings.TrimSpace(name), sz)
		if err != nil {
			return err
		}
		plans, phases = append(plans, sc), append(phases, ps)
	}
	for i, sc := range plans {
		run.Scenarios = append(run.Scenarios, sc)
		for _, p := range phases[i] {
			res, err := b.run(ctx, p)
			if err != nil {
				err = fmt.Errorf("%s/%s #%d: %w", p.scenario, p.controller, p.repetition, err)
				if len(run.Scenarios[i].Results) > 0 || i > 0 {
					err = errors.Join(err, save())
					b.logf("the results so far are in %s", dir)
				}
				return err
			}
			b.logf("%s/%s #%d: %s", p.scenario, p.controller, p.repetition, summary(res))
			run.Scenarios[i].Results = append(run.Scenarios[i].Results, res)
			if err := save(); err != nil {
				return err
			}
		}
		if sc.Name != "burst" {
			continue
		}
		for rep := range sz.repetitions {
			rate, err := b.measureLimit(ctx, rep, sz.burstSize, settings.OursMaxConcurrentReconciles)
			if err != nil {
				return errors.Join(err, save())
			}
			run.Scenarios[i].LimitRunsPerSecond = append(run.Scenarios[i].LimitRunsPerSecond, rate)
			if err := save(); err != nil {
				return err
			}
		}
	}
	b.logf("bench %s done in %s: %s", mode, run.Duration, filepath.Join(dir, "report.md"))
	return oursCorrect(run)
}

// oursCorrect fails when ours lost or duplicated a run in any scenario: a figure that is a bug, not a
// speed (the peer's are only reported).
func oursCorrect(run *results.Run) error {
	var errs []error
	for _, sc := range run.Scenarios {
		for _, r := range sc.Results {
			if r.Controller == results.Ours && (r.Lost > 0 || r.Duplicates > 0) {
				errs = append(errs, fmt.Errorf("%s #%d: ours lost %d and duplicated %d of %d runs", sc.Name, r.Repetition, r.Lost, r.Duplicates, r.Expected))
			}
		}
	}
	return errors.Join(errs...)
}

// summary is the one-line progress report of a phase.
func summary(r results.Result) string {
	return fmt.Sprintf("%d Jobs (due %d, lost %d, duplicated %d), skew p50 %s p99 %s max %s, %d writes, %.1f CPU s",
		len(r.Skews), r.Expected, r.Lost, r.Duplicates, results.Percentile(r.Skews, 50).Round(time.Millisecond),
		results.Percentile(r.Skews, 99).Round(time.Millisecond), results.Percentile(r.Skews, 100).Round(time.Millisecond),
		r.Writes(), r.CPUSeconds)
}
