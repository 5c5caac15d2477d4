package rig

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Scraped is one response of a Prometheus endpoint.
type Scraped struct {
	// Body is the exposition text, decompressed.
	Body []byte
	// Duration is from sending the request to reading the last byte of the response (decompression not
	// included).
	Duration time.Duration
	// WireBytes is the size of the body as sent: gzip-compressed when the endpoint compresses.
	WireBytes int64
}

// Scrape GETs a Prometheus endpoint as Prometheus does (gzip accepted) with http.DefaultClient. It fails
// on a status other than 200 OK, and when a gzip body does not decompress.
func Scrape(ctx context.Context, url string) (Scraped, error) {
	return scrape(ctx, http.DefaultClient, url)
}

// scrape is Scrape with the client hc. It asks for gzip itself, so that Go's transport leaves the body as
// sent and WireBytes counts what crossed the wire; it decompresses the body afterwards.
func scrape(ctx context.Context, hc *http.Client, url string) (Scraped, error) {
	var s Scraped
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return s, err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return s, fmt.Errorf("GET %s: %w", url, err)
	}
	s.Duration, s.WireBytes, s.Body = time.Since(start), int64(len(raw)), raw
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return s, fmt.Errorf("GET %s: %w", url, err)
		}
		if s.Body, err = io.ReadAll(zr); err != nil {
			return s, fmt.Errorf("GET %s: %w", url, err)
		}
	}
	return s, nil
}

// HeapInUse scrapes go_memstats_heap_inuse_bytes from a Prometheus endpoint.
func HeapInUse(ctx context.Context, url string) (int64, error) {
	s, err := Scrape(ctx, url)
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(s.Body), "\n") {
		if v, ok := strings.CutPrefix(line, "go_memstats_heap_inuse_bytes "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int64(f), err
		}
	}
	return 0, fmt.Errorf("no go_memstats_heap_inuse_bytes at %s", url)
}
