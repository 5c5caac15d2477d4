package framework

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/cronjob-operator/cronjob-operator/controllers/cronjob"
)

// Outcomes records the outcomes of a manager's reconciles, so a spec can tell what the controller did and
// how often it reconciled a CronJob without inferring it from requeues or metrics. Pass its Record as
// ManagerOptions.OnReconcile. The zero value is ready to use; it is safe for concurrent use.
type Outcomes struct {
	mu    sync.Mutex
	byKey map[types.NamespacedName][]cronjob.Outcome
}

// Record records the outcome of a reconcile of the CronJob key.
func (o *Outcomes) Record(key types.NamespacedName, out cronjob.Outcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byKey == nil {
		o.byKey = map[types.NamespacedName][]cronjob.Outcome{}
	}
	o.byKey[key] = append(o.byKey[key], out)
}

// Of returns the outcomes of the reconciles of the CronJob key so far, oldest first.
func (o *Outcomes) Of(key types.NamespacedName) []cronjob.Outcome {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]cronjob.Outcome(nil), o.byKey[key]...)
}
