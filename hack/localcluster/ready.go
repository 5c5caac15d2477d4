//go:build unix

package main

import (
	"context"
	"net"
	"net/http"
	"time"
)

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
