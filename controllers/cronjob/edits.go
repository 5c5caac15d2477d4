package cronjob

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// scheduleFields are the fields of spec whose edit changes which runs start (see observeSchedule), as
// they appear in managedFields (fieldsV1).
var scheduleFields = []string{"f:schedule", "f:timeZone", "f:suspend", "f:schedules", "f:calendars", "f:activeWindow", "f:suspendUntil"}

// scheduleEditTime returns when the API server recorded the last edit of spec.schedule, spec.timeZone or
// spec.suspend, when observeSchedule needs it: when they differ from status.observedSchedule, or on the
// first observation of a CronJob whose spec was edited after its creation (generation > 1). Otherwise,
// and when the server recorded no time, it returns the zero time.
//
// The record is the time of the managedFields entries that own those fields: the API server sets an
// entry's time whenever the client it belongs to changes any field it owns. That is the time of the edit
// itself, wherever the controller was then, but it can be later than the edit when the same client (say,
// kubectl apply) changed other fields afterwards: the controller then starts fewer catch-up runs after a
// downtime, never a run that was due before the edit. It reads the CronJob's metadata from the API server,
// because the cache strips managedFields: one GET per edit of those fields, none otherwise.
func (s *syncer) scheduleEditTime(ctx context.Context) (time.Time, error) {
	first := s.cj.Status.ObservedSchedule == nil
	if !scheduleChanged(s.cj, s.plan) && (!first || s.cj.Generation <= 1) {
		return time.Time{}, nil
	}
	live := &metav1.PartialObjectMetadata{}
	live.SetGroupVersionKind(cronjobv1.GroupVersion.WithKind("CronJob"))
	if err := s.r.APIReader.Get(ctx, client.ObjectKeyFromObject(s.cj), live); err != nil {
		if apierrors.IsNotFound(err) {
			return time.Time{}, nil // deleted meanwhile: the next reconcile finds nothing to do
		}
		return time.Time{}, fmt.Errorf("getting the managedFields of the CronJob: %w", err)
	}
	return lastEditOf(live.ManagedFields, scheduleFields), nil
}

// lastEditOf returns the latest time of the managedFields entries of the main resource (not of a
// subresource such as status) that own any of the spec fields given (fieldsV1 keys such as "f:schedule"),
// or the zero time when none does.
func lastEditOf(entries []metav1.ManagedFieldsEntry, specFields []string) time.Time {
	var latest time.Time
	for _, e := range entries {
		if e.Subresource != "" || e.Time == nil || e.FieldsV1 == nil || !e.Time.After(latest) {
			continue
		}
		var owned struct {
			Spec map[string]json.RawMessage `json:"f:spec"`
		}
		if json.Unmarshal(e.FieldsV1.GetRawBytes(), &owned) != nil {
			continue
		}
		for _, f := range specFields {
			if _, ok := owned.Spec[f]; ok {
				latest = e.Time.Time
				break
			}
		}
	}
	return latest
}
