package framework

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// EventsRegarding lists the events.k8s.io/v1 Events whose regarding object is obj (matched by UID), oldest
// first. It reads through c, which should be a live client: the manager's cache does not hold events.
func EventsRegarding(ctx context.Context, c client.Reader, obj client.Object) ([]eventsv1.Event, error) {
	var list eventsv1.EventList
	if err := c.List(ctx, &list, client.InNamespace(obj.GetNamespace())); err != nil {
		return nil, fmt.Errorf("listing events in %s: %w", obj.GetNamespace(), err)
	}
	var events []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.UID == obj.GetUID() {
			events = append(events, e)
		}
	}
	slices.SortStableFunc(events, func(a, b eventsv1.Event) int {
		return cmp.Or(a.EventTime.Compare(b.EventTime.Time), cmp.Compare(a.Name, b.Name))
	})
	return events, nil
}

// EventReasons returns the "<type>/<reason>" of each event, such as "Normal/SuccessfulCreate": short to
// match on, and readable in a failure message.
func EventReasons(events []eventsv1.Event) []string {
	reasons := make([]string, 0, len(events))
	for _, e := range events {
		reasons = append(reasons, e.Type+"/"+e.Reason)
	}
	return reasons
}
