package cronjob

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// Pause after failures (README "Pause after failures"): spec.pauseAfterFailures. batch/v1 has no such
// field: a CronJob whose runs fail goes on starting them.

// paused reports whether the controller paused the CronJob after failures: spec.suspend is true and it
// carries the paused-at annotation. A user who removes the annotation makes it an ordinary suspension.
func paused(cj *cronjobv1.CronJob) bool {
	_, ok := cj.Annotations[cronjobv1.PausedAtAnnotation]
	return ok && ptr.Deref(cj.Spec.Suspend, false)
}

// pauseOrResume runs after trackJobs has counted the runs that ended, before the schedule is looked at:
//   - not suspended, and status.consecutiveFailures has reached spec.pauseAfterFailures: one merge patch
//     sets spec.suspend true and the paused-at annotation (now, RFC 3339 UTC), a Warning event
//     PausedAfterFailures says why and since when, and no run starts in this reconcile (the decision sees
//     the CronJob suspended). Active Jobs go on;
//   - not suspended, and the annotation is there (resumed, by `kubectl cjo resume` or an edit): one merge
//     patch removes it, consecutiveFailures restarts at 0, a Normal event Resumed. As after any resume, no
//     run due before it starts (observeSchedule).
//
// The patch's response replaces the CronJob's metadata and spec, so the status write of this reconcile
// goes to the new resourceVersion. An error is an API error to retry.
func (s *syncer) pauseOrResume(ctx context.Context) error {
	cj := s.cj
	if ptr.Deref(cj.Spec.Suspend, false) {
		return nil
	}
	if _, ok := cj.Annotations[cronjobv1.PausedAtAnnotation]; ok {
		if err := s.patchCronJob(ctx, map[string]any{
			"metadata": map[string]any{"annotations": map[string]any{cronjobv1.PausedAtAnnotation: nil}},
		}); err != nil {
			return err
		}
		cj.Status.ConsecutiveFailures = 0
		s.event(corev1.EventTypeNormal, cronjobv1.ReasonResumed, "Resume",
			"Resumed after a pause after failures: consecutiveFailures restarts at 0; no run due before now starts")
		return nil
	}
	limit := cj.Spec.PauseAfterFailures
	if limit == nil || cj.Status.ConsecutiveFailures < *limit {
		return nil
	}
	at := s.now.UTC().Format(time.RFC3339)
	if err := s.patchCronJob(ctx, map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{cronjobv1.PausedAtAnnotation: at}},
		"spec":     map[string]any{"suspend": true},
	}); err != nil {
		return err
	}
	s.event(corev1.EventTypeWarning, cronjobv1.ReasonPausedAfterFailures, "Pause", "%s", pausedMessage(cj))
	return nil
}

// pausedMessage says why and since when the CronJob is paused, and how to resume it: the message of the
// PausedAfterFailures event and of the Ready condition while paused.
func pausedMessage(cj *cronjobv1.CronJob) string {
	// The newest failed run by start: the list is sorted only when the status is written (boundHistory).
	var newest *cronjobv1.RunRecord
	for i, r := range cj.Status.RecentRuns {
		if failedResult(r.Result) && (newest == nil || r.StartTime.After(newest.StartTime.Time)) {
			newest = &cj.Status.RecentRuns[i]
		}
	}
	last := ""
	if newest != nil {
		last = fmt.Sprintf(" (the last: job %s, %s)", newest.JobName, newest.Result)
	}
	return fmt.Sprintf("Paused at %s after %d failed runs in a row%s, spec.pauseAfterFailures %d: no scheduled run starts until it is resumed (kubectl cjo resume %s, or spec.suspend: false)",
		cj.Annotations[cronjobv1.PausedAtAnnotation], cj.Status.ConsecutiveFailures, last,
		ptr.Deref(cj.Spec.PauseAfterFailures, 0), cj.Name)
}

// patchCronJob sends a JSON merge patch of the CronJob's metadata or spec, guarded by its
// resourceVersion and UID (a conflict is retried by the reconcile), and takes the server's answer:
// metadata and spec, so that the status write of this reconcile goes to the new resourceVersion.
func (s *syncer) patchCronJob(ctx context.Context, patch map[string]any) error {
	meta := patch["metadata"].(map[string]any)
	meta["resourceVersion"], meta["uid"] = s.cj.ResourceVersion, s.cj.UID
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	got := s.cj.DeepCopy()
	if err := s.r.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, data)); err != nil {
		return fmt.Errorf("patching the CronJob: %w", err)
	}
	got.ManagedFields = nil // as the cache has it: a status write must not send them back
	s.cj.ObjectMeta, s.cj.Spec = got.ObjectMeta, got.Spec
	return nil
}
