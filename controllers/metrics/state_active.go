package metrics

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/index"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
)

// ActiveCounter counts the active (not finished) Jobs of a CronJob.
type ActiveCounter func(ctx context.Context, cj *cronjobv1.CronJob) (int, error)

// CountActiveWith has the state endpoint count, with count, the active Jobs of each CronJob whose
// status.active is full (it lists at most cronjobv1.MaxActiveListed, the schema's maxItems), so that
// MetricActive counts every active Job, as the concurrency decisions do; the other CronJobs' value is the
// length of status.active, with no Job read. It returns s.
func (s *State) CountActiveWith(count ActiveCounter) *State {
	s.countActive = count
	return s
}

// CachedActiveJobs counts the active Jobs a CronJob controls among the Jobs of r (the manager's cache:
// the index by controlling CronJob, then the owner's UID), without deep copies.
func CachedActiveJobs(r client.Reader) ActiveCounter {
	return func(ctx context.Context, cj *cronjobv1.CronJob) (int, error) {
		var list batchv1.JobList
		if err := r.List(ctx, &list, client.InNamespace(cj.Namespace),
			client.MatchingFields{index.JobOwnerKey: cj.Name}, client.UnsafeDisableDeepCopy); err != nil {
			return 0, err
		}
		n := 0
		for i := range list.Items {
			if finished, _ := jobs.Finished(&list.Items[i]); !finished && jobs.IsOwnedBy(&list.Items[i], cj) {
				n++
			}
		}
		return n, nil
	}
}

// activeBeyondList counts the active Jobs of the CronJobs whose status.active is full, when a counter is
// set. A count that fails is logged, and that CronJob's value stays the length of status.active.
func (s *State) activeBeyondList(ctx context.Context, cronJobs []*cronjobv1.CronJob) map[*cronjobv1.CronJob]int {
	if s.countActive == nil {
		return nil
	}
	var counts map[*cronjobv1.CronJob]int
	for _, cj := range cronJobs {
		if len(cj.Status.Active) < cronjobv1.MaxActiveListed {
			continue
		}
		n, err := s.countActive(ctx, cj)
		if err != nil {
			s.log.Error(err, "Counting the active Jobs of a CronJob for the state metrics", "cronJob", client.ObjectKeyFromObject(cj))
			continue
		}
		if counts == nil {
			counts = map[*cronjobv1.CronJob]int{}
		}
		counts[cj] = n
	}
	return counts
}
