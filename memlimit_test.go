package main

import "testing"

func TestMemoryLimit(t *testing.T) {
	cases := map[string]struct {
		// environment
		env map[string]string
		// expectations
		want    int64
		wantErr bool
	}{
		"no limit, no GOMEMLIMIT: nothing set": {
			env: map[string]string{}, want: 0,
		},
		"256Mi container limit: 90 % of it": {
			env: map[string]string{"MEMORY_LIMIT": "268435456"}, want: 241591910,
		},
		"GOMEMLIMIT set: it wins, nothing set": {
			env: map[string]string{"MEMORY_LIMIT": "268435456", "GOMEMLIMIT": "100MiB"}, want: 0,
		},
		"a quantity instead of bytes: error": {
			env: map[string]string{"MEMORY_LIMIT": "256Mi"}, wantErr: true,
		},
		"zero: error": {
			env: map[string]string{"MEMORY_LIMIT": "0"}, wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := memoryLimit(func(k string) string { return tc.env[k] })
			if (err != nil) != tc.wantErr {
				t.Fatalf("memoryLimit() error = %v, want error %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("memoryLimit() = %d, want %d", got, tc.want)
			}
		})
	}
}
