package hostile

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// MemoryLimit is the manager container's memory limit in the shipped manifests (config/manager/manager.yaml,
// limits.memory 256Mi). The process gets it as MEMORY_LIMIT, as the Deployment's downward API gives it, so
// its Go soft limit is the same as in a cluster; a peak RSS above it is what the kernel would OOM-kill.
const MemoryLimit = 256 << 20

// managerProcess is bin/manager run against the suite's control plane as the shipped Deployment runs it
// (default client rate limits, no webhooks: the suite serves those itself), watched from outside: its
// peak RSS from /proc, its Go heap and client requests from its /metrics.
type managerProcess struct {
	cmd        *exec.Cmd
	metricsURL string
	done       chan struct{}

	mu sync.Mutex
	// peakRSS is VmHWM; peakHeap the largest go_memstats_heap_inuse_bytes scraped; requests the last
	// sum of rest_client_requests_total scraped.
	peakRSS, peakHeap, requests int64
	// killed says why the watcher killed the process ("" if it did not); exitErr is how it ended.
	killed  string
	exitErr error
}

// startManager starts binary with the kubeconfig, logging to logPath, waits until it answers /readyz and
// starts watching it. It returns an error if it does not start or is not ready within a minute.
func startManager(ctx context.Context, binary, kubeconfig, logPath string) (*managerProcess, error) {
	metrics, err := freeAddress()
	if err != nil {
		return nil, err
	}
	probes, err := freeAddress()
	if err != nil {
		return nil, err
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, "--kubeconfig="+kubeconfig, "--leader-elect=false",
		"--metrics-bind-address="+metrics, "--metrics-secure=false", "--health-probe-bind-address="+probes)
	cmd.Env = append(withoutEnv(os.Environ(), "GOMEMLIMIT"), "MEMORY_LIMIT="+strconv.Itoa(MemoryLimit))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("starting %s: %w", binary, err)
	}
	m := &managerProcess{cmd: cmd, metricsURL: "http://" + metrics + "/metrics", done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		m.mu.Lock()
		m.exitErr = err
		m.mu.Unlock()
		_ = log.Close()
		close(m.done)
	}()
	go m.watch()
	readyCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		if resp, err := http.Get("http://" + probes + "/readyz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return m, nil
			}
		}
		select {
		case <-m.done:
			return nil, fmt.Errorf("the manager exited before it was ready: %v (log %s)", m.exitErr, logPath)
		case <-readyCtx.Done():
			m.Stop()
			return nil, fmt.Errorf("the manager was not ready within a minute (log %s)", logPath)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// watch samples the peak RSS every 200 ms and the metrics every 2 s until the process ends; it kills the
// process, as the kernel would the container, once its peak RSS passes MemoryLimit.
func (m *managerProcess) watch() {
	rss := time.NewTicker(200 * time.Millisecond)
	defer rss.Stop()
	scrape := time.NewTicker(2 * time.Second)
	defer scrape.Stop()
	for {
		select {
		case <-m.done:
			return
		case <-rss.C:
			peak, err := peakRSS(m.cmd.Process.Pid)
			if err != nil {
				continue
			}
			m.mu.Lock()
			m.peakRSS = max(m.peakRSS, peak)
			if peak > MemoryLimit && m.killed == "" {
				m.killed = fmt.Sprintf("peak RSS %s passed the limit of %s", mib(peak), mib(MemoryLimit))
				_ = m.cmd.Process.Kill()
			}
			m.mu.Unlock()
		case <-scrape.C:
			m.scrape()
		}
	}
}

// scrape reads the Go heap in use and the client's request count from the manager's /metrics.
func (m *managerProcess) scrape() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.metricsURL, nil)
	if err != nil {
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer func() { _ = resp.Body.Close() }()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return
	}
	var requests float64
	for _, s := range families["rest_client_requests_total"].GetMetric() {
		requests += s.GetCounter().GetValue()
	}
	var heap float64
	for _, s := range families["go_memstats_heap_inuse_bytes"].GetMetric() {
		heap = s.GetGauge().GetValue()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.peakHeap = max(m.peakHeap, int64(heap))
	m.requests = max(m.requests, int64(requests))
}

// Figures returns the peak RSS, the peak heap and the requests seen so far, taking a last sample while the
// process runs.
func (m *managerProcess) Figures() (peakRSSBytes, peakHeapBytes, requests int64) {
	if m.Err() == nil {
		m.scrape()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peakRSS, m.peakHeap, m.requests
}

// Err says why the manager is no longer running: killed for its memory, or exited by itself; nil while
// it runs.
func (m *managerProcess) Err() error {
	select {
	case <-m.done:
	default:
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.killed != "" {
		return fmt.Errorf("killed as the container would be: %s", m.killed)
	}
	return fmt.Errorf("the manager exited: %v", m.exitErr)
}

// Stop sends SIGTERM and waits up to 20 s for the process to end, then kills it. Stopping an ended process
// does nothing.
func (m *managerProcess) Stop() {
	select {
	case <-m.done:
		return
	default:
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(20 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
	}
}

// peakRSS reads VmHWM of pid from /proc/<pid>/status, in bytes.
func peakRSS(pid int) (int64, error) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// freeAddress returns a loopback host:port that was free a moment ago.
func freeAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}

// withoutEnv returns env without the variable key.
func withoutEnv(env []string, key string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
