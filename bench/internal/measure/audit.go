package measure

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
)

// auditEvent is the part of an audit.k8s.io/v1 Event the bench reads.
type auditEvent struct {
	Stage                    string    `json:"stage"`
	Verb                     string    `json:"verb"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time `json:"stageTimestamp"`
	User                     struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// request is one API request of a controller, from the audit log.
type request struct {
	user     string
	key      string // RequestKey(verb, resource[/subresource])
	received time.Time
	// completed is when the API server finished the response (zero for a watch, logged when it starts).
	completed time.Time
	namespace string
	name      string
	code      int
}

// readAudit parses the audit log at path. A watch is counted once, from its ResponseStarted event;
// every other request from its ResponseComplete event.
func readAudit(path string) ([]request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	defer f.Close()
	var out []request
	rd := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := rd.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break // a last line with no newline is still being written: it belongs to a later read
		}
		if err != nil {
			return nil, fmt.Errorf("reading the audit log %s: %w", path, err)
		}
		var e auditEvent
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("parsing the audit log %s: %w", path, err)
		}
		watch := e.Verb == "watch"
		if (watch && e.Stage != "ResponseStarted") || (!watch && e.Stage != "ResponseComplete") {
			continue
		}
		r := request{user: e.User.Username, received: e.RequestReceivedTimestamp}
		resource := "(non-resource)"
		if e.ObjectRef != nil {
			resource = e.ObjectRef.Resource
			if e.ObjectRef.Subresource != "" {
				resource += "/" + e.ObjectRef.Subresource
			}
			r.namespace, r.name = e.ObjectRef.Namespace, e.ObjectRef.Name
		}
		r.key = results.RequestKey(e.Verb, resource)
		if !watch {
			r.completed = e.StageTimestamp
		}
		if e.ResponseStatus != nil {
			r.code = e.ResponseStatus.Code
		}
		out = append(out, r)
	}
	return out, nil
}

// Interval is a half-open span of time [From, To).
type Interval struct{ From, To time.Time }

func (i Interval) contains(t time.Time) bool { return !t.Before(i.From) && t.Before(i.To) }

// seconds is the interval's length in seconds.
func (i Interval) seconds() float64 { return i.To.Sub(i.From).Seconds() }
