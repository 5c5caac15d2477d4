//go:build e2e

package e2e

import "time"

// Waits of the suite, named so that every spec waits alike and a slow cluster needs one change. Schedules
// are minutely and real: a run is due within a minute of any moment, and the Job controller, kubelet and
// garbage collector take seconds.
const (
	// runWait bounds the wait for a run: up to a minute to the next scheduled time, plus slack.
	runWait = 90 * time.Second
	// settleWait bounds the wait for the cluster to react (a Job finishing, a Pod going).
	settleWait = 60 * time.Second
	// noRunWindow is how long a Consistently checks that no run starts: a scheduled minute passes in it,
	// with slack for a controller that would start the run late.
	noRunWindow = 75 * time.Second
	// pressureWindow is how long a Consistently checks that the manager survives a load (the large Jobs of
	// the tenant-boundary spec): past a minute boundary, and past the liveness probe's 20 s period.
	pressureWindow = 75 * time.Second
	// checkWindow is how far ahead of a disruption the runs are checked: up to the next minute but one.
	checkWindow = 90 * time.Second
	// takeoverWait bounds a follower's takeover after the leader is killed: the Lease must expire first.
	takeoverWait = leaseDuration + 5*time.Second
	// takeoverPolling is the polling interval of that wait, fine enough to report the takeover's time.
	takeoverPolling = 200 * time.Millisecond
	// podPolling is the polling interval of a spec that must catch a Pod while it runs.
	podPolling = 500 * time.Millisecond
	// apiServerRestartWait bounds the kubelet's restart of a stopped kube-apiserver container.
	apiServerRestartWait = 2 * time.Minute
	// killInterval is the cadence of the manager kills of the chaos spec: not a wait for an outcome.
	killInterval = 20 * time.Second
)

// Defaults of Eventually and Consistently, for waits that name no timeout of their own.
const (
	eventuallyTimeout    = 30 * time.Second
	eventuallyPolling    = time.Second
	consistentlyDuration = 5 * time.Second
	consistentlyPolling  = time.Second
)

// Waits of the suite's setup and teardown.
const (
	// setupTimeout bounds creating the kind cluster, loading the images and deploying the operator.
	setupTimeout = 15 * time.Minute
	// kindNodeWait is kind's --wait: how long kind waits for the control plane to be ready.
	kindNodeWait = 4 * time.Minute
	// teardownTimeout bounds exporting the logs of a failed suite and deleting the cluster.
	teardownTimeout = 5 * time.Minute
	// kubeProxyWait bounds the wait for kube-proxy on the node.
	kubeProxyWait = 3 * time.Minute
	// managerWait bounds the wait for the manager Deployment to be available (image pulled from the
	// node, webhook certificate provisioned and mounted).
	managerWait = 5 * time.Minute
	// webhookWait bounds the wait for the API server to reach the admission webhooks.
	webhookWait = 2 * time.Minute
)
