package cronjobrun

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/index"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
)

// pass is what one reconcile of the runs of one CronJob shares: the runs, oldest first; the CronJob, read
// once; the Jobs that hold its concurrency slots, read once and kept up to date as runs start; and the
// counts the concurrency policy and the waiting-run cap need.
type pass struct {
	key types.NamespacedName
	// runs are the CronJob's runs from the cache, oldest first (creation time, then name). A run's status
	// changes in memory as it is synced.
	runs []*cronjobv1.CronJobRun
	// cj is the CronJob, nil when it does not exist; loaded tells whether it was read.
	cj     *cronjobv1.CronJob
	loaded bool
	// active are the CronJob's unfinished Jobs by name, nil until the first run asks (activeJobs).
	active map[string]*batchv1.Job
	// waitingAhead counts the runs earlier in this pass that honour the concurrency policy and still wait:
	// they take free slots before a younger run.
	waitingAhead int
	// pending counts the runs that are Pending now (the waiting-run cap).
	pending int
	// gone holds the runs deleted in this pass.
	gone map[types.UID]bool
	// blocked is set after an error in a start: younger runs wait for the retry.
	blocked bool
}

// newPass lists the runs of the CronJob key from the cache and sorts them oldest first.
func (r *Reconciler) newPass(ctx context.Context, key types.NamespacedName) (*pass, error) {
	var list cronjobv1.CronJobRunList
	if err := r.Client.List(ctx, &list, client.InNamespace(key.Namespace), client.MatchingFields{index.RunCronJobKey: key.Name}); err != nil {
		return nil, fmt.Errorf("listing cronjobruns of cronjob %s: %w", key.Name, err)
	}
	p := &pass{key: key, gone: map[types.UID]bool{}}
	for i := range list.Items {
		run := &list.Items[i]
		p.runs = append(p.runs, run)
		if pending(run) && run.DeletionTimestamp == nil {
			p.pending++
		}
	}
	slices.SortFunc(p.runs, func(a, b *cronjobv1.CronJobRun) int {
		return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), cmp.Compare(a.Name, b.Name))
	})
	return p, nil
}

// cronJob returns the CronJob from the cache, read once per pass; nil when it does not exist.
func (p *pass) cronJob(ctx context.Context, c client.Reader) (*cronjobv1.CronJob, error) {
	if p.loaded {
		return p.cj, nil
	}
	cj := &cronjobv1.CronJob{}
	err := c.Get(ctx, p.key, cj)
	if apierrors.IsNotFound(err) {
		p.loaded = true
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting CronJob %s: %w", p.key.Name, err)
	}
	p.cj, p.loaded = cj, true
	return cj, nil
}

// activeJobs returns the CronJob's unfinished Jobs but the one named except (the run's own). They come
// from the cache (index.JobOwnerKey), read once per pass. A Job created a moment ago must count although
// the cache may not show it yet, so the Jobs the pass knows of by name are added: those of the CronJob's
// runs that have a Job and have not finished (status.jobName, and a backfill's status.backfill.active), and the CronJob's status.active. A name the
// cache does not hold is read from the API server; only then, so a cache that is up to date costs no
// request. The Jobs of runs started in this pass are added as they start (started).
func (s *runSyncer) activeJobs(ctx context.Context, cj *cronjobv1.CronJob, except string) ([]*batchv1.Job, error) {
	p := s.pass
	if p.active == nil {
		active, err := s.r.loadActive(ctx, p, cj)
		if err != nil {
			return nil, err
		}
		p.active = active
	}
	out := make([]*batchv1.Job, 0, len(p.active))
	for name, job := range p.active {
		if name != except {
			out = append(out, job)
		}
	}
	slices.SortFunc(out, func(a, b *batchv1.Job) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// loadActive reads the CronJob's unfinished Jobs as activeJobs describes.
func (r *Reconciler) loadActive(ctx context.Context, p *pass, cj *cronjobv1.CronJob) (map[string]*batchv1.Job, error) {
	var list batchv1.JobList
	if err := r.Client.List(ctx, &list, client.InNamespace(cj.Namespace), client.MatchingFields{index.JobOwnerKey: cj.Name}); err != nil {
		return nil, fmt.Errorf("listing jobs of cronjob %s: %w", cj.Name, err)
	}
	active := map[string]*batchv1.Job{}
	cached := map[string]bool{}
	for i := range list.Items {
		job := &list.Items[i]
		cached[job.Name] = true
		if done, _ := jobs.Finished(job); !done && jobs.IsOwnedBy(job, cj) {
			active[job.Name] = job
		}
	}
	var named []string
	for _, run := range p.runs {
		if finished(run) || p.gone[run.UID] {
			continue
		}
		if run.Status.JobName != "" {
			named = append(named, run.Status.JobName)
		}
		if b := run.Status.Backfill; b != nil {
			for _, slot := range b.Active {
				named = append(named, slot.JobName)
			}
		}
	}
	for _, ref := range cj.Status.Active {
		named = append(named, ref.Name)
	}
	for _, name := range named {
		if cached[name] {
			continue
		}
		cached[name] = true
		job := &batchv1.Job{}
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: cj.Namespace, Name: name}, job)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("getting job %s: %w", name, err)
		}
		if done, _ := jobs.Finished(job); !done && jobs.IsOwnedBy(job, cj) {
			active[name] = job
		}
	}
	return active, nil
}

// started records in the pass that the run's Job is job, so that the younger runs count it.
func (p *pass) started(job *batchv1.Job) {
	if p.active == nil {
		return // not read yet: the read will find it through the run's status.jobName
	}
	if done, _ := jobs.Finished(job); !done {
		p.active[job.Name] = job
	}
}

// pending reports whether the run waits for the concurrency policy: Pending, no Job yet.
func pending(run *cronjobv1.CronJobRun) bool {
	return run.Status.Phase == cronjobv1.RunPending && waiting(run)
}
