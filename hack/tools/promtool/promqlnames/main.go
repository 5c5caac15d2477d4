// Command promqlnames prints the metric names that PromQL expressions select, parsed with Prometheus' own
// parser (github.com/prometheus/prometheus/promql/parser, the version of this module's go.mod). It lives in
// the promtool tools module so that Prometheus stays out of the operator's go.mod; the test of
// test/monitoring runs it with `go run`.
//
// Input (stdin): a JSON array of expressions. Output (stdout): a JSON array of the same length, each element
// the sorted metric names of that expression (a selector's name, or its __name__="..." matcher). It exits 1
// with the expression and the parser's message when an expression does not parse, or when a selector has
// no fixed metric name (such as {__name__=~"job_.*"}), since such a selector cannot be checked.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

func main() {
	var exprs []string
	if err := json.NewDecoder(os.Stdin).Decode(&exprs); err != nil {
		fail("decoding the expressions on stdin: %v", err)
	}
	out := make([][]string, 0, len(exprs))
	for _, e := range exprs {
		names, err := metricNames(e)
		if err != nil {
			fail("%q: %v", e, err)
		}
		out = append(out, names)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("writing the names: %v", err)
	}
}

// metricNames returns the sorted, distinct metric names that expr selects.
func metricNames(expr string) ([]string, error) {
	node, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	names := []string{}
	var walkErr error
	parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name := vs.Name
		for _, m := range vs.LabelMatchers {
			if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
				name = m.Value
			}
		}
		if name == "" {
			walkErr = fmt.Errorf("selector %s has no fixed metric name", vs)
			return walkErr
		}
		names = append(names, name)
		return nil
	})
	if walkErr != nil {
		return nil, walkErr
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "promqlnames: "+format+"\n", args...)
	os.Exit(1)
}
