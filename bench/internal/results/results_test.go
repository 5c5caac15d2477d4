package results

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPercentile(t *testing.T) {
	cases := map[string]struct {
		ds   []time.Duration
		p    float64
		want time.Duration
	}{
		"empty is 0":                          {ds: nil, p: 50, want: 0},
		"one value, p50":                      {ds: millis(7), p: 50, want: 7 * time.Millisecond},
		"one value, p100":                     {ds: millis(7), p: 100, want: 7 * time.Millisecond},
		"even count, p50 is the lower":        {ds: millis(40, 10, 30, 20), p: 50, want: 20 * time.Millisecond},
		"p100 is the maximum":                 {ds: millis(40, 10, 30, 20), p: 100, want: 40 * time.Millisecond},
		"p99 of ten is the maximum":           {ds: millis(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), p: 99, want: 10 * time.Millisecond},
		"p90 of ten is the ninth":             {ds: millis(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), p: 90, want: 9 * time.Millisecond},
		"negative skews sort before the zero": {ds: millis(0, -5, 3), p: 1, want: -5 * time.Millisecond},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := append([]time.Duration(nil), tc.ds...)
			if got := Percentile(tc.ds, tc.p); got != tc.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tc.ds, tc.p, got, tc.want)
			}
			if diff := cmp.Diff(in, tc.ds); diff != "" {
				t.Errorf("Percentile modified its input (-before,+after):\n%s", diff)
			}
		})
	}
}

func TestPercentileOfByteCounts(t *testing.T) {
	sizes := []int64{3 << 20, 1 << 20, 2 << 20}
	if got := Percentile(sizes, 50); got != 2<<20 {
		t.Errorf("Percentile(%v, 50) = %d, want the middle one, %d", sizes, got, 2<<20)
	}
	if got := Percentile(sizes, 100); got != 3<<20 {
		t.Errorf("Percentile(%v, 100) = %d, want the largest, %d", sizes, got, 3<<20)
	}
	if got := Percentile([]int64(nil), 50); got != 0 {
		t.Errorf("Percentile of no sizes = %d, want 0", got)
	}
}

// millis returns the durations of vs milliseconds.
func millis(vs ...float64) []time.Duration {
	ds := make([]time.Duration, len(vs))
	for i, v := range vs {
		ds[i] = time.Duration(v * float64(time.Millisecond))
	}
	return ds
}
