package conflict

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// StatusUpdater updates the status subresource of an object: client.SubResourceWriter (a client's
// Status()) and statuswrite.Writer are.
type StatusUpdater interface {
	Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error
}

// RequeueDelay is how soon a reconcile whose status write met a conflict runs again.
const RequeueDelay = 100 * time.Millisecond

// WriteStatus updates the status subresource of obj, a kind such as "CronJob". The resourceVersion read
// from the cache makes it conditional: a conflict means the server has a newer object. When the reconcile
// had no other error (syncErr nil), a conflict gives requeue true and no error: every step of a reconcile is
// idempotent, so it looks again after RequeueDelay instead of logging an error. Any other failure is
// returned as "writing status: ...", joined with syncErr; so is a conflict with syncErr set.
//
// w is a client's Status() or a statuswrite.Writer (which leaves obj as it was sent).
func WriteStatus(ctx context.Context, w StatusUpdater, obj client.Object, kind string, syncErr error) (requeue bool, err error) {
	err = w.Update(ctx, obj)
	if err == nil {
		return false, nil
	}
	if apierrors.IsConflict(err) && syncErr == nil {
		ctrl.LoggerFrom(ctx).V(1).Info("Status write conflicted with a newer " + kind + ", requeueing")
		return true, nil
	}
	return false, errors.Join(syncErr, fmt.Errorf("writing status: %w", err))
}
