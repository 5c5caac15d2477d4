package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
)

// plan returns the scenario named name and its phases: for each repetition, ours and the peer, in an
// order that alternates so that a drift of the machine over the run falls on both alike.
func plan(name string, sz sizes) (results.Scenario, []phase, error) {
	var (
		sc       = results.Scenario{Name: name}
		template = phase{scenario: name, tail: 30 * time.Second}
	)
	switch name {
	case "single":
		sc.Description = fmt.Sprintf("One minutely CronJob, %d scheduled minutes measured.", sz.singleMinutes)
		template.cronJobs = minutely("single", 1)
		template.minutes = sz.singleMinutes
	case "burst":
		sc.Description = fmt.Sprintf("%d minutely CronJobs, all due on the same minute, %d scheduled minutes measured.",
			sz.burstSize, sz.burstMinutes)
		template.cronJobs = minutely("burst", sz.burstSize)
		template.minutes = sz.burstMinutes
		template.throughput = true
	case "population":
		mix, err := populationMix(sz.populationSize, sz.populationMinutely)
		if err != nil {
			return sc, nil, err
		}
		sc.Description = fmt.Sprintf("%d CronJobs: %d minutely (%s %%), %d hourly and %d daily, spread over the "+
			"minutes of the hour and the day; %d scheduled minutes measured.", sz.populationSize, mix.minutely,
			strconv.FormatFloat(float64(mix.minutely)*100/float64(max(sz.populationSize, 1)), 'f', -1, 64),
			mix.hourly, mix.daily, sz.populationMinutes)
		if sz.populationStart {
			sc.Description += " Then the controller is stopped at 10 s past a minute and started again at once with " +
				"its CronJobs present: the time to start."
		}
		template.cronJobs = population(sz.populationSize, mix.minutely)
		template.minutes = sz.populationMinutes
		template.measureStart = sz.populationStart
	case "restart":
		sc.Description = fmt.Sprintf("%d minutely CronJobs; after one run the controller is stopped for %s and "+
			"started again. Skew here is from the restart to the Job of each CronJob's most recent missed run; "+
			"due = CronJobs.", sz.restartSize, sz.restartDowntime)
		template.cronJobs = minutely("restart", sz.restartSize)
		template.downtime = sz.restartDowntime
	default:
		return sc, nil, fmt.Errorf("unknown scenario %q: use single, burst, population or restart", name)
	}
	if sz.repetitions < 1 {
		return sc, nil, fmt.Errorf("-repetitions must be at least 1")
	}
	if template.downtime == 0 && template.minutes < 1 {
		return sc, nil, fmt.Errorf("%s: measure at least one minute", name)
	}
	var phases []phase
	for rep := range sz.repetitions {
		order := []results.Controller{results.Ours, results.Peer}
		if rep%2 == 1 {
			order = []results.Controller{results.Peer, results.Ours}
		}
		for _, c := range order {
			if sz.controllers != nil && !sz.controllers[c] {
				continue
			}
			p := template
			p.controller, p.repetition = c, rep
			phases = append(phases, p)
		}
	}
	return sc, phases, nil
}

// minutely returns n minutely CronJobs named <prefix>-<i>.
func minutely(prefix string, n int) []cronJobSpec {
	out := make([]cronJobSpec, n)
	for i := range out {
		out[i] = cronJobSpec{name: fmt.Sprintf("%s-%05d", prefix, i), schedule: "* * * * *"}
	}
	return out
}

// mix is how many CronJobs of a population have each kind of schedule.
type mix struct{ minutely, hourly, daily int }

// populationMix returns the mix of a population of n CronJobs: minutely of them minutely, or when minutely
// is negative (-population-minutely's default) 1 % of n, rounded down; the rest alternately hourly and
// daily, as population lays them out (the hourly ones one more when the rest is odd). It fails when
// minutely is more than n.
func populationMix(n, minutely int) (mix, error) {
	if minutely < 0 {
		minutely = n / 100
	}
	if minutely > n {
		return mix{}, fmt.Errorf("-population-minutely=%d is more than -population-size=%d", minutely, n)
	}
	rest := n - minutely
	return mix{minutely: minutely, hourly: (rest + 1) / 2, daily: rest / 2}, nil
}

// population returns n CronJobs: minutelyCount minutely ones, then alternately hourly and daily ones, the
// k-th of each kind at minute k mod 60 (the daily ones of hour k/60 mod 24), so every minute of the hour
// has as many hourly runs due as any other.
func population(n, minutelyCount int) []cronJobSpec {
	out := minutely("pop", min(n, minutelyCount))
	for i := len(out); i < n; i++ {
		k := (i - minutelyCount) / 2
		s := fmt.Sprintf("%d * * * *", k%60)
		if (i-minutelyCount)%2 == 1 {
			s = fmt.Sprintf("%d %d * * *", k%60, (k/60)%24)
		}
		out = append(out, cronJobSpec{name: fmt.Sprintf("pop-%05d", i), schedule: s})
	}
	return out
}

// scheme knows the Kubernetes types and ours.
func scheme() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := cronjobv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}

// machine describes this host from /proc.
func machine() results.Machine {
	m := results.Machine{CPUs: runtime.NumCPU()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		_ = f.Close()
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %f kB", &kb); err == nil {
			m.MemoryGiB = kb / (1 << 20)
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// versions names what ran: the Go toolchain, our commit, and the Kubernetes binaries' own --version.
func versions(kcm, assets string) map[string]string {
	v := map[string]string{"go": runtime.Version()}
	if out, err := exec.Command("git", "describe", "--always", "--dirty").Output(); err == nil {
		v["ours"] = strings.TrimSpace(string(out))
	}
	for name, bin := range map[string]string{"kube-controller-manager": kcm, "kube-apiserver": assets + "/kube-apiserver", "etcd": assets + "/etcd"} {
		if out, err := exec.Command(bin, "--version").Output(); err == nil {
			v[name] = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
		}
	}
	return v
}
