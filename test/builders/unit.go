package builders

// Builder methods for unit tests only: they make objects an API server would not accept or would not keep
// as built, to exercise what the controller does with objects written by older or other components.

// WithoutStartTime clears status.startTime, as on a finished Job whose status was written before
// kube-apiserver required a start time of finished Jobs. Call it after Succeeded or Failed.
func (w *JobWrapper) WithoutStartTime() *JobWrapper {
	w.Status.StartTime = nil
	return w
}
