package unittest

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// Traced runs reconcile with a logger at verbosity in its context, and checks the decision trace it logs:
// at 0, no line whose message starts with "Decided"; at 1 or more, exactly one, holding each of want
// (funcr's `"key"=value` form).
func Traced(t *testing.T, verbosity int, want []string, reconcile func(ctx context.Context)) {
	t.Helper()
	var lines []string
	log := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: verbosity})
	reconcile(logr.NewContext(context.Background(), log))
	var decided []string
	for _, l := range lines {
		if strings.Contains(l, `"msg"="Decided`) {
			decided = append(decided, l)
		}
	}
	if verbosity == 0 {
		if len(decided) != 0 {
			t.Errorf("at V(0): %q, want no decision trace", decided)
		}
		return
	}
	if len(decided) != 1 {
		t.Fatalf("at V(%d): %d decision lines, want 1: %q", verbosity, len(decided), lines)
	}
	for _, w := range want {
		if !strings.Contains(decided[0], w) {
			t.Errorf("decision %s\nlacks %s", decided[0], w)
		}
	}
}
