package rig

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestScrape(t *testing.T) {
	text := "# TYPE go_memstats_heap_inuse_bytes gauge\ngo_memstats_heap_inuse_bytes 4.2e+07\n" + strings.Repeat("# padding\n", 1000)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("Accept-Encoding = %q, want gzip", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(gz.Bytes())
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(text)) })
	mux.HandleFunc("/forbidden", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusForbidden) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()

	cases := map[string]struct {
		path      string
		wantBytes int
	}{
		"gzip: counted as sent, read decompressed": {path: "/gzip", wantBytes: gz.Len()},
		"uncompressed": {path: "/plain", wantBytes: len(text)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := Scrape(ctx, srv.URL+tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if string(s.Body) != text || s.WireBytes != int64(tc.wantBytes) || s.Duration <= 0 {
				t.Errorf("Scrape: body of %d bytes (want the text's %d), %d on the wire (want %d), duration %s (want > 0)",
					len(s.Body), len(text), s.WireBytes, tc.wantBytes, s.Duration)
			}
		})
	}
	if h, err := HeapInUse(ctx, srv.URL+"/gzip"); err != nil || h != 42e6 {
		t.Errorf("HeapInUse = %d, %v; want 42000000", h, err)
	}
	if _, err := Scrape(ctx, srv.URL+"/forbidden"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("Scrape of a 403: got %v, want an error naming the status", err)
	}
}
