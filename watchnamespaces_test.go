package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitNamespaces(t *testing.T) {
	cases := map[string]struct {
		flag string
		want []string
	}{
		"empty means all namespaces":           {flag: "", want: nil},
		"blanks and commas only mean all":      {flag: " , ,", want: nil},
		"one namespace":                        {flag: "team-a", want: []string{"team-a"}},
		"a list, trimmed, in the order given":  {flag: "team-b, team-a ,", want: []string{"team-b", "team-a"}},
		"a namespace given twice is kept once": {flag: "team-a,team-a", want: []string{"team-a"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, splitNamespaces(tc.flag)); diff != "" {
				t.Errorf("splitNamespaces(%q) (-want,+got):\n%s", tc.flag, diff)
			}
		})
	}
}
