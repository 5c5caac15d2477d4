package rig

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat: 100 on every Linux this runs on.
const clockTicks = 100

// Process is one controller process: its command, its log file, and what /proc says of its cost.
type Process struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	err  error
	// Started is when the process was started (its exec done).
	Started time.Time
	// MetricsURL is ours' Prometheus endpoint (http://127.0.0.1:<port>/metrics), and the peer's when the
	// rig started it with StartServingMetrics (https://127.0.0.1:<port>/metrics); empty otherwise.
	MetricsURL string
	// StateMetricsURL is ours' per-CronJob state endpoint (http://127.0.0.1:<port>/metrics/state); empty
	// for the peer.
	StateMetricsURL string
	// PprofURL is ours' pprof endpoint (http://127.0.0.1:<port>/debug/pprof) when the rig was asked to
	// profile (Rig.Profile); empty otherwise and for the peer.
	PprofURL string
	// queue is the name of the controller's CronJob workqueue in its metrics (QueueName).
	queue string
	// metricsClient reads MetricsURL (nil: http.DefaultClient); for the peer's HTTPS, it trusts the rig's
	// certificate.
	metricsClient *http.Client
	// lastCPU and lastRSS hold the figures /proc gave last, so a process that has exited still reports
	// what it used up to its last sample.
	lastCPU float64
	lastRSS int64
}

// startProcess runs argv with its output appended to logPath.
func startProcess(name, logPath string, argv []string) (*Process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(f, "\n=== %s: %s\n", name, strings.Join(argv, " "))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{name: name, cmd: cmd, log: f, done: make(chan struct{}), Started: time.Now()}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Exited returns an error saying that the process has ended (while it did what `during` says), with its
// exit status and log, or nil while it runs.
func (p *Process) Exited(during string) error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited %s: %v (log: %s)", p.name, during, p.err, p.log.Name())
	default:
		return nil
	}
}

// Stop samples the process's CPU time and peak RSS a last time (CPUSeconds and PeakRSS report them
// afterwards), sends SIGTERM and waits up to timeout for it to exit, then kills it. Stopping a process
// that has exited only closes its log.
func (p *Process) Stop(timeout time.Duration) {
	select {
	case <-p.done:
		_ = p.log.Close()
		return
	default:
	}
	p.sample()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	_ = p.log.Close()
}

// sample reads the process's CPU time and peak RSS from /proc and keeps them.
func (p *Process) sample() {
	if cpu, err := procCPUSeconds(p.cmd.Process.Pid); err == nil {
		p.lastCPU = cpu
	}
	if rss, err := procPeakRSS(p.cmd.Process.Pid); err == nil {
		p.lastRSS = rss
	}
}

// QueueName is the name label of the controller's CronJob workqueue in its workqueue metrics
// (workqueue_adds_total{name=...}).
func (p *Process) QueueName() string { return p.queue }

// ScrapeMetrics scrapes the process's MetricsURL as Scrape does. Errors: there is no MetricsURL, or the
// scrape failed.
func (p *Process) ScrapeMetrics(ctx context.Context) (Scraped, error) {
	if p.MetricsURL == "" {
		return Scraped{}, fmt.Errorf("%s serves no metrics", p.name)
	}
	hc := p.metricsClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return scrape(ctx, hc, p.MetricsURL)
}

// String names the process and its log, for error messages.
func (p *Process) String() string { return fmt.Sprintf("%s (log: %s)", p.name, p.log.Name()) }

// CPUSeconds returns the user+system CPU seconds the process has used so far.
func (p *Process) CPUSeconds() float64 {
	p.sample()
	return p.lastCPU
}

// PeakRSS returns the process's peak resident set size in bytes (VmHWM).
func (p *Process) PeakRSS() int64 {
	p.sample()
	return p.lastRSS
}

// procStat reads /proc/<pid>/stat: the command name (field 2) and the fields after it, so that
// fields[0] is field 3 (state), fields[1] the parent's pid, fields[11] and fields[12] utime and stime.
func procStat(pid int) (comm string, fields []string, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", nil, err
	}
	// The command name may hold spaces and parentheses; the fields after its last ')' do not.
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", nil, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, s)
	}
	fields = strings.Fields(s[end+1:])
	if len(fields) < 13 {
		return "", nil, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, s)
	}
	return s[open+1 : end], fields, nil
}

// procCPUSeconds reads utime+stime of pid from /proc/<pid>/stat.
func procCPUSeconds(pid int) (float64, error) {
	_, fields, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return float64(utime+stime) / clockTicks, nil
}

// procPeakRSS reads VmHWM (kB) of pid from /proc/<pid>/status, in bytes.
func procPeakRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitHTTP polls url until it answers 200 or ctx ends.
func waitHTTP(ctx context.Context, url string, p *Process) error {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if resp, err := http.Get(url); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if err := p.Exited("before " + url + " answered"); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer %s: %w", p.name, url, ctx.Err())
		case <-t.C:
		}
	}
}

// ChildCPUSeconds returns the CPU seconds used so far by this process's children whose executable is
// named one of names (envtest starts kube-apiserver and etcd as children of the bench).
func ChildCPUSeconds(names ...string) float64 {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	total := 0.0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, fields, err := procStat(pid)
		if err != nil || fields[1] != strconv.Itoa(self) || !slices.Contains(names, comm) {
			continue
		}
		if cpu, err := procCPUSeconds(pid); err == nil {
			total += cpu
		}
	}
	return total
}
