//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// manager is the running manager process.
type manager struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited and err is set
	err  error         // result of cmd.Wait
}

// startManager starts path with args in a process group of its own, its output going to ours.
func startManager(path string, args []string) (*manager, error) {
	cmd := exec.Command(path, args...)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = sysProcAttr()
	logf("starting %s %v", path, args)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting manager: %w", err)
	}
	m := &manager{cmd: cmd, done: make(chan struct{})}
	go func() {
		m.err = cmd.Wait()
		close(m.done)
	}()
	return m, nil
}

// stop sends SIGTERM to the manager's process group and waits for the manager to exit. After timeout, or
// when another signal arrives on sigs, it sends SIGKILL and waits again.
func (m *manager) stop(timeout time.Duration, sigs <-chan os.Signal) {
	m.signal(syscall.SIGTERM)
	select {
	case <-m.done:
		logf("manager stopped")
		return
	case <-time.After(timeout):
		logf("manager still running after %s, killing it", timeout)
	case sig := <-sigs:
		logf("received %s again, killing the manager", sig)
	}
	m.signal(syscall.SIGKILL)
	<-m.done
}

func (m *manager) signal(sig syscall.Signal) {
	// The negative pid addresses the process group, which the manager leads.
	if err := syscall.Kill(-m.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		logf("sending %s to the manager: %v", sig, err)
	}
}

// exitErr is the result of waiting for the manager; valid once done is closed.
func (m *manager) exitErr() error {
	if m.err == nil {
		return errors.New("exit status 0")
	}
	return m.err
}

// exitCode is the manager's exit code, or 128+N when signal N ended it; valid once done is closed.
func (m *manager) exitCode() int {
	var ee *exec.ExitError
	switch {
	case m.err == nil:
		return 0
	case errors.As(m.err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	default:
		return 1
	}
}

// waitReady polls the manager's /readyz at healthAddr and reports on the returned channel: true once it
// answers 200, false after a minute. It reports nothing if the manager exits first, and true at once when
// healthAddr is disabled ("0" or empty).
func waitReady(healthAddr string, exited <-chan struct{}) <-chan bool {
	ready := make(chan bool, 1)
	host, port, err := net.SplitHostPort(healthAddr)
	if err != nil || port == "0" {
		ready <- true
		return ready
	}
	if host == "" {
		host = "127.0.0.1"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/readyz"
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-exited:
				return
			case <-ctx.Done():
				ready <- false
				return
			case <-tick.C:
				if get(ctx, url) == http.StatusOK {
					ready <- true
					return
				}
			}
		}
	}()
	return ready
}

// get returns the status code of a GET of url, or 0 when there is no answer.
func get(ctx context.Context, url string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}
