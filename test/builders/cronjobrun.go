package builders

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// CronJobRunWrapper builds a CronJobRun.
type CronJobRunWrapper struct {
	cronjobv1.CronJobRun
}

// MakeCronJobRun returns a builder of a valid CronJobRun of the CronJob cronJob: a run now that honours
// the CronJob's concurrency policy. Other fields are unset, so the API server applies its defaults.
func MakeCronJobRun(name, ns, cronJob string) *CronJobRunWrapper {
	return &CronJobRunWrapper{cronjobv1.CronJobRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: cronjobv1.GroupVersion.String(), Kind: "CronJobRun"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       cronjobv1.CronJobRunSpec{CronJobName: cronJob},
	}}
}

// Obj returns a copy of the built CronJobRun.
func (w *CronJobRunWrapper) Obj() *cronjobv1.CronJobRun {
	return w.CronJobRun.DeepCopy()
}

// GenerateName sets metadata.generateName and clears metadata.name, as `kubectl cjo run` creates runs.
func (w *CronJobRunWrapper) GenerateName(prefix string) *CronJobRunWrapper {
	w.ObjectMeta.Name, w.ObjectMeta.GenerateName = "", prefix
	return w
}

// ScheduledTime sets spec.scheduledTime: a backfill of that past scheduled time.
func (w *CronJobRunWrapper) ScheduledTime(t time.Time) *CronJobRunWrapper {
	w.Spec.ScheduledTime = ptr.To(metav1.NewTime(t))
	return w
}

// IgnoreConcurrency sets spec.concurrencyPolicy to Ignore.
func (w *CronJobRunWrapper) IgnoreConcurrency() *CronJobRunWrapper {
	w.Spec.ConcurrencyPolicy = cronjobv1.RunIgnoreConcurrency
	return w
}

// TTLSecondsAfterFinished sets spec.ttlSecondsAfterFinished.
func (w *CronJobRunWrapper) TTLSecondsAfterFinished(seconds int32) *CronJobRunWrapper {
	w.Spec.TTLSecondsAfterFinished = ptr.To(seconds)
	return w
}

// UID sets metadata.uid, for tests without an API server.
func (w *CronJobRunWrapper) UID(uid types.UID) *CronJobRunWrapper {
	w.ObjectMeta.UID = uid
	return w
}

// CreationTimestamp sets metadata.creationTimestamp, for tests without an API server.
func (w *CronJobRunWrapper) CreationTimestamp(t time.Time) *CronJobRunWrapper {
	w.ObjectMeta.CreationTimestamp = metav1.NewTime(t)
	return w
}

// Status sets the status, as the controller would have written it, for tests without an API server
// (through one, write it with the status subresource).
func (w *CronJobRunWrapper) Status(s cronjobv1.CronJobRunStatus) *CronJobRunWrapper {
	w.CronJobRun.Status = s
	return w
}

// Owner adds an owner reference (not a controller), such as the one the controller sets to the run's Job.
func (w *CronJobRunWrapper) Owner(apiVersion, kind, name string, uid types.UID) *CronJobRunWrapper {
	w.OwnerReferences = append(w.OwnerReferences, metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid})
	return w
}

// Range sets spec.range: a backfill of every scheduled time from `from` to `to`, both inclusive.
func (w *CronJobRunWrapper) Range(from, to time.Time) *CronJobRunWrapper {
	w.Spec.Range = &cronjobv1.RunRange{From: metav1.NewTime(from), To: metav1.NewTime(to)}
	return w
}

// Parallelism sets spec.parallelism, the Jobs of a range backfill that may run at once.
func (w *CronJobRunWrapper) Parallelism(n int32) *CronJobRunWrapper {
	w.Spec.Parallelism = ptr.To(n)
	return w
}
