package measure

import (
	"bytes"
	"fmt"
	"strconv"
)

// QueueSample is what one scrape of a controller's metrics says of one of its workqueues.
type QueueSample struct {
	// Adds is workqueue_adds_total: items added to the queue (adding an item already waiting counts
	// nothing; an item that waited for a delay counts when it becomes ready).
	Adds float64
	// Depth is workqueue_depth, summed over the queue's series (ours' priority queue has one per priority):
	// items waiting to be handed to a worker.
	Depth float64
	// Gets is workqueue_queue_duration_seconds_count: items handed to a worker so far.
	Gets float64
}

// The workqueue metrics ParseQueue reads, as client-go and controller-runtime name them.
const (
	metricAdds  = "workqueue_adds_total"
	metricDepth = "workqueue_depth"
	metricGets  = "workqueue_queue_duration_seconds_count"
)

// ParseQueue reads the sample of the workqueue labelled name="queue" from the Prometheus text exposition
// format. found is false when the text has no workqueue_adds_total of that queue (the controller has not
// made it yet). Errors: a line of one of those three metrics does not parse.
func ParseQueue(text []byte, queue string) (s QueueSample, found bool, err error) {
	for len(text) > 0 {
		var line []byte
		line, text, _ = bytes.Cut(text, []byte("\n"))
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		end := bytes.IndexAny(line, "{ ")
		if end < 0 {
			continue
		}
		var dst *float64
		switch string(line[:end]) {
		case metricAdds:
			dst = &s.Adds
		case metricDepth:
			dst = &s.Depth
		case metricGets:
			dst = &s.Gets
		default:
			continue
		}
		labels, v, err := parseSample(line[end:])
		if err != nil {
			return s, false, fmt.Errorf("parsing %q: %w", line, err)
		}
		if labels["name"] != queue {
			continue
		}
		*dst += v
		if dst == &s.Adds {
			found = true
		}
	}
	return s, found, nil
}

// parseSample parses what follows a metric's name on a sample line: an optional {label="value",...}
// block, then the value (and an optional timestamp, ignored).
func parseSample(rest []byte) (map[string]string, float64, error) {
	labels := map[string]string{}
	if len(rest) > 0 && rest[0] == '{' {
		rest = rest[1:]
		for {
			rest = bytes.TrimLeft(rest, " ,")
			if len(rest) == 0 {
				return nil, 0, fmt.Errorf("unterminated labels")
			}
			if rest[0] == '}' {
				rest = rest[1:]
				break
			}
			eq := bytes.IndexByte(rest, '=')
			if eq < 0 || eq+1 >= len(rest) || rest[eq+1] != '"' {
				return nil, 0, fmt.Errorf("a label without a quoted value")
			}
			name := string(bytes.TrimSpace(rest[:eq]))
			value, after, err := unquote(rest[eq+2:])
			if err != nil {
				return nil, 0, err
			}
			labels[name], rest = value, after
		}
	}
	fields := bytes.Fields(rest)
	if len(fields) == 0 {
		return nil, 0, fmt.Errorf("no value")
	}
	v, err := strconv.ParseFloat(string(fields[0]), 64)
	return labels, v, err
}

// unquote reads a label value up to its closing quote (escapes \\, \" and \n) and returns it and what
// follows the quote.
func unquote(b []byte) (string, []byte, error) {
	var out []byte
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			return string(out), b[i+1:], nil
		case '\\':
			if i+1 == len(b) {
				return "", nil, fmt.Errorf("unterminated label value")
			}
			i++
			if b[i] == 'n' {
				out = append(out, '\n')
			} else {
				out = append(out, b[i])
			}
		default:
			out = append(out, c)
		}
	}
	return "", nil, fmt.Errorf("unterminated label value")
}
