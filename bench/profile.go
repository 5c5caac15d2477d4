package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/measure"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/rig"
)

// profiler captures CPU profiles of the first seconds of a measured window (-profile): kube-apiserver's,
// through its /debug/pprof with the harness's admin credentials, and ours', from the pprof endpoint the
// rig serves when asked (rig.Rig.Profile). The peer serves none (it runs without secure serving); what its
// requests cost shows in kube-apiserver's profile of its phase. Profiles go to dir as
// <scenario>-<controller>-<repetition>-{kube-apiserver,controller}.pprof, for `go tool pprof`.
type profiler struct {
	seconds int
	dir     string
	// apiserver is the harness's HTTP client (admin credentials) and apiserverURL its pprof base URL.
	apiserver    *http.Client
	apiserverURL string
	logf         func(format string, args ...any)
	wg           sync.WaitGroup
}

func newProfiler(seconds int, dir string, harness *rest.Config, logf func(string, ...any)) (*profiler, error) {
	hc, err := rest.HTTPClientFor(harness)
	if err != nil {
		return nil, err
	}
	return &profiler{seconds: seconds, dir: dir, apiserver: hc, apiserverURL: strings.TrimSuffix(harness.Host, "/") + "/debug/pprof", logf: logf}, nil
}

// capture profiles from `from` for the profiler's seconds, in the background; wait waits for every
// capture started. A failed capture is logged, never fatal: the figures of the phase do not depend on it.
func (pr *profiler) capture(ctx context.Context, from time.Time, name string, proc *rig.Process) {
	if pr == nil {
		return
	}
	get := func(part string, hc *http.Client, base string) {
		defer pr.wg.Done()
		if err := measure.SleepUntil(ctx, from); err != nil {
			return
		}
		err := fetchProfile(ctx, hc, base+"/profile?seconds="+strconv.Itoa(pr.seconds), filepath.Join(pr.dir, name+"-"+part+".pprof"))
		if err != nil {
			pr.logf("profile %s of %s: %v", part, name, err)
		}
	}
	pr.wg.Add(1)
	go get("kube-apiserver", pr.apiserver, pr.apiserverURL)
	if proc.PprofURL != "" {
		pr.wg.Add(1)
		go get("controller", http.DefaultClient, proc.PprofURL)
	}
}

// fetchProfile writes the body of GET url to path.
func fetchProfile(ctx context.Context, hc *http.Client, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func (pr *profiler) wait() {
	if pr != nil {
		pr.wg.Wait()
	}
}
