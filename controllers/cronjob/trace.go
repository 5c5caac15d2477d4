package cronjob

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
)

// trace logs at V(1) what the reconcile decided and why, and what came of it, so that
// --zap-log-level=debug answers "why did my run not start" without a debugger: the run due (its scheduled
// time), the policy, the verdict and the outcome, the queue, and the next start.
func (s *syncer) trace(ctx context.Context, d *decision) {
	log := ctrl.LoggerFrom(ctx).V(1)
	if !log.Enabled() {
		return
	}
	kv := []any{"policy", string(s.cj.Spec.ConcurrencyPolicy), "missedRunPolicy", string(s.cj.Spec.MissedRunPolicy),
		"active", len(s.cj.Status.Active), "outcome", string(s.out.Run)}
	if d.scheduleErr != nil {
		log.Info("Decided: no run, the schedule cannot be evaluated", append(kv, "reason", d.scheduleErr.Reason)...)
		return
	}
	if d.suspended {
		log.Info("Decided: no run, the CronJob is suspended", append(kv, "queuedDropped", len(d.drops))...)
		return
	}
	if d.neverFires {
		log.Info("Decided: no run, the schedule never fires", kv...)
		return
	}
	kv = append(kv, "nextStart", stamp(d.plan.NextStart), "queuedDropped", len(d.drops), "queued", len(s.cj.Status.Queued))
	if !d.head.IsZero() {
		kv = append(kv, "queuedHead", stamp(d.head), "dequeued", stamp(s.out.Dequeued))
	}
	if d.verdict == verdictNone {
		log.Info("Decided: no run is due", kv...)
		return
	}
	kv = append(kv, "slot", stamp(d.due), "verdict", string(d.verdict), "unmet", d.plan.Unmet)
	if d.catchUp {
		kv = append(kv, "catchUp", true, "droppedOlder", d.dropped)
	}
	traceVerdict(log, d.verdict, kv)
}

// traceVerdict logs the decision about the run due with the reason of its verdict.
func traceVerdict(log logr.Logger, v verdict, kv []any) {
	why := map[verdict]string{
		verdictMissed:  "Decided: the run is past startingDeadlineSeconds and does not start",
		verdictAdopt:   "Decided: the run's Job exists already and is adopted",
		verdictStart:   "Decided: the concurrency policy admits the run",
		verdictReplace: "Decided: the run replaces the active Jobs",
		verdictSkip:    "Decided: the concurrency policy holds the run back (Forbid, or maxActiveJobs under Allow)",
		verdictEnqueue: "Decided: the run waits in the queue (maxActiveJobs active, or older runs queued)",
	}[v]
	log.Info(why, kv...)
}

// stamp is t in RFC 3339, or "" for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
