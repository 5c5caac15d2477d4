package framework

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCountRuns(t *testing.T) {
	m := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		seen, due []time.Time
		want      RunCounts
	}{
		"every due time once": {
			seen: []time.Time{m(1), m(2), m(3)}, due: []time.Time{m(1), m(2), m(3)},
			want: RunCounts{Due: 3, Started: 3},
		},
		"nothing due, nothing seen": {},
		"a due time without a Job is lost": {
			seen: []time.Time{m(1), m(3)}, due: []time.Time{m(1), m(2), m(3)},
			want: RunCounts{Due: 3, Started: 2, Lost: 1},
		},
		"a time started three times is duplicated twice": {
			seen: []time.Time{m(1), m(2), m(2), m(2)}, due: []time.Time{m(1), m(2)},
			want: RunCounts{Due: 2, Started: 4, Duplicated: 2},
		},
		"a Job for a time not due is unexpected": {
			seen: []time.Time{m(1), m(2), m(9)}, due: []time.Time{m(1), m(2)},
			want: RunCounts{Due: 2, Started: 3, Unexpected: 1},
		},
		"one instant in two locations is one time": {
			seen: []time.Time{m(1).In(berlin)}, due: []time.Time{m(1)},
			want: RunCounts{Due: 1, Started: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, CountRuns(tc.seen, tc.due)); diff != "" {
				t.Errorf("CountRuns (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestStatsOf(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		var ds []time.Duration
		for _, n := range ns {
			ds = append(ds, time.Duration(n)*time.Millisecond)
		}
		return ds
	}
	cases := map[string]struct {
		ds   []time.Duration
		want Stats
	}{
		"none": {},
		"one":  {ds: ms(7), want: Stats{N: 1, P50: 7 * time.Millisecond, P90: 7 * time.Millisecond, Max: 7 * time.Millisecond}},
		"ten, unordered: nearest rank": {
			ds:   ms(10, 1, 9, 2, 8, 3, 7, 4, 6, 5),
			want: Stats{N: 10, P50: 5 * time.Millisecond, P90: 9 * time.Millisecond, Max: 10 * time.Millisecond},
		},
		"three: the median is the middle one": {
			ds:   ms(300, 100, 200),
			want: Stats{N: 3, P50: 200 * time.Millisecond, P90: 300 * time.Millisecond, Max: 300 * time.Millisecond},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, StatsOf(tc.ds)); diff != "" {
				t.Errorf("StatsOf (-want,+got):\n%s", diff)
			}
		})
	}
}
