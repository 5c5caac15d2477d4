package rig

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// Rig knows how to run one controller and how to speak its CronJob API.
type Rig struct {
	controller results.Controller
	// binary is bin/manager (ours) or bin/k8s/.../kube-controller-manager (the peer).
	binary     string
	kubeconfig string
	logPath    string
	settings   results.Settings
	// ExtraArgs are appended to the controller's command line.
	ExtraArgs []string
	// Profile serves ours' pprof endpoints on a free loopback port (Process.PprofURL). The peer, run
	// without secure serving, serves none.
	Profile bool
	// tls is the peer's serving certificate for StartServingMetrics, made at its first use.
	tls *servingCert
}

// Rigs returns the rigs of both controllers.
func Rigs(cp *ControlPlane, managerBin, kcmBin, dir string, s results.Settings) map[results.Controller]*Rig {
	return map[results.Controller]*Rig{
		results.Ours: {controller: results.Ours, binary: managerBin, kubeconfig: cp.kubeconfigs[results.Ours], logPath: filepath.Join(dir, "ours.log"), settings: s},
		results.Peer: {controller: results.Peer, binary: kcmBin, kubeconfig: cp.kubeconfigs[results.Peer], logPath: filepath.Join(dir, "peer.log"), settings: s},
	}
}

// Workqueue names: what the workqueue metrics of each controller's CronJob queue are labelled with (name).
const (
	// oursQueue is ours' controller name (controllers.ControllerName), which controller-runtime gives the
	// controller's workqueue.
	oursQueue = "cronjob-operator"
	// peerQueue is the name of the CronJob controller's workqueue in kube-controller-manager
	// (pkg/controller/cronjob, NewControllerV2).
	peerQueue = "cronjob"
)

// Start runs the controller and waits until it serves (ours: /readyz; the peer serves no endpoint here,
// so it is given the settle time the scenarios wait anyway). Errors: a free port could not be had, the
// process did not start, or ours did not answer /readyz within 30 s.
func (r *Rig) Start(ctx context.Context) (*Process, error) {
	if r.controller == results.Peer {
		return r.startPeer(false)
	}
	p, readyz, err := r.startOurs()
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := waitHTTP(wctx, readyz, p); err != nil {
		p.Stop(5 * time.Second)
		return nil, err
	}
	return p, nil
}

// StartServingMetrics runs the controller for a timed start: it returns as soon as the process runs,
// without waiting for it to serve, so the caller times the start from Process.Started. The controller
// serves its Prometheus metrics at Process.MetricsURL, read with Process.ScrapeMetrics: ours as Start runs
// it; the peer on a free loopback port (--secure-port, HTTPS with a certificate the rig makes once, in the
// directory of its log; --authorization-always-allow-paths lets the bench's anonymous requests read
// /metrics). Errors: a free port or the certificate could not be had, or the process did not start.
func (r *Rig) StartServingMetrics(_ context.Context) (*Process, error) {
	if r.controller == results.Peer {
		return r.startPeer(true)
	}
	p, _, err := r.startOurs()
	return p, err
}

// startPeer starts kube-controller-manager's CronJob controller; with metrics, serving them as
// StartServingMetrics says.
func (r *Rig) startPeer(metrics bool) (*Process, error) {
	args := []string{r.binary,
		"--kubeconfig=" + r.kubeconfig,
		"--controllers=cronjob",
		"--leader-elect=false",
		"--kube-api-qps=" + strconv.FormatFloat(r.settings.QPS, 'f', -1, 64),
		"--kube-api-burst=" + strconv.Itoa(r.settings.Burst),
		"--concurrent-cron-job-syncs=" + strconv.Itoa(r.settings.PeerConcurrentSyncs),
	}
	if !metrics {
		p, err := startProcess("kube-controller-manager", r.logPath, append(args, "--secure-port=0"))
		if p != nil {
			p.queue = peerQueue
		}
		return p, err
	}
	if r.tls == nil {
		tls, err := newServingCert(filepath.Dir(r.logPath), time.Now())
		if err != nil {
			return nil, err
		}
		r.tls = tls
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p, err := startProcess("kube-controller-manager", r.logPath, append(args,
		fmt.Sprintf("--secure-port=%d", port),
		"--bind-address=127.0.0.1",
		"--tls-cert-file="+r.tls.certFile,
		"--tls-private-key-file="+r.tls.keyFile,
		// No authentication or authorization kubeconfig: the requests are anonymous, and no delegated
		// check (TokenReview, SubjectAccessReview) adds requests to the peer's audited ones.
		"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
	))
	if err != nil {
		return nil, err
	}
	p.queue, p.metricsClient = peerQueue, r.tls.client
	p.MetricsURL = fmt.Sprintf("https://127.0.0.1:%d/metrics", port)
	return p, nil
}

// startOurs starts ours' manager with its metrics (and with Profile, pprof) on free loopback ports, and
// returns it with the URL of its /readyz.
func (r *Rig) startOurs() (*Process, string, error) {
	metrics, err := freePort()
	if err != nil {
		return nil, "", err
	}
	probes, err := freePort()
	if err != nil {
		return nil, "", err
	}
	var extra []string
	pprof := 0
	if r.Profile {
		if pprof, err = freePort(); err != nil {
			return nil, "", err
		}
		extra = append(extra, fmt.Sprintf("--pprof-bind-address=127.0.0.1:%d", pprof))
	}
	p, err := startProcess("manager", r.logPath, append(append([]string{r.binary,
		"--kubeconfig=" + r.kubeconfig,
		"--leader-elect=false",
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metrics),
		"--metrics-secure=false",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", probes),
		"--kube-api-qps=" + strconv.FormatFloat(r.settings.QPS, 'f', -1, 64),
		"--kube-api-burst=" + strconv.Itoa(r.settings.Burst),
		"--max-concurrent-reconciles=" + strconv.Itoa(r.settings.OursMaxConcurrentReconciles),
	}, extra...), r.ExtraArgs...))
	if err != nil {
		return nil, "", err
	}
	p.queue = oursQueue
	p.MetricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", metrics)
	p.StateMetricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics/state", metrics)
	if pprof != 0 {
		p.PprofURL = fmt.Sprintf("http://127.0.0.1:%d/debug/pprof", pprof)
	}
	return p, fmt.Sprintf("http://127.0.0.1:%d/readyz", probes), nil
}

// NewCronJob returns the controller's CronJob object for schedule, in Etc/UTC, concurrencyPolicy Allow,
// no starting deadline, default history limits. Both kinds carry the same Job template.
func (r *Rig) NewCronJob(ns, name, schedule string) client.Object {
	ours := builders.MakeCronJob(name, ns).Schedule(schedule).TimeZone("Etc/UTC").Obj()
	if r.controller == results.Ours {
		return ours
	}
	return &batchv1.CronJob{
		ObjectMeta: ours.ObjectMeta,
		Spec: batchv1.CronJobSpec{
			Schedule:          schedule,
			TimeZone:          ptr.To("Etc/UTC"),
			ConcurrencyPolicy: batchv1.AllowConcurrent,
			JobTemplate:       ours.Spec.JobTemplate,
		},
	}
}

// DeleteAll deletes the controller's CronJobs and every Job in ns, and returns once a list finds none of
// them left, or with an error when ctx ends or deleteTimeout passes first. The control plane runs no
// garbage collector, so the Jobs are deleted explicitly. (Namespaces stay: envtest has no namespace
// controller to finish their deletion; empty, they cost nothing.)
func (r *Rig) DeleteAll(ctx context.Context, c client.Client, ns string) error {
	var (
		cj   client.Object     = &cronjobv1.CronJob{}
		list client.ObjectList = &cronjobv1.CronJobList{}
	)
	if r.controller == results.Peer {
		cj, list = &batchv1.CronJob{}, &batchv1.CronJobList{}
	}
	if err := deleteAllOf(ctx, c, cj, list, ns); err != nil {
		return fmt.Errorf("deleting the CronJobs of %s: %w", ns, err)
	}
	// batch/v1 Jobs are deleted with the orphan policy by default: the API server then only adds the orphan
	// finalizer, and with no garbage collector here the Jobs would stay (in both controllers' caches).
	if err := deleteAllOf(ctx, c, &batchv1.Job{}, &batchv1.JobList{}, ns,
		client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		return fmt.Errorf("deleting the Jobs of %s: %w", ns, err)
	}
	return nil
}

// deleteTimeout bounds DeleteAll's wait for one kind: the API server deletes a collection one object at a
// time (--delete-collection-workers=1), about 100,000 in a few minutes here.
const deleteTimeout = 30 * time.Minute

// deleteAllOf deletes every obj in ns (a deletecollection request) until a list of the kind (a one-item
// page of list) finds none. The API server ends a request at its timeout (60 s), which cuts short the
// deletion of a collection larger than it deletes in that time (a population of 100,000): the request
// fails and is sent again, for what is left.
func deleteAllOf(ctx context.Context, c client.Client, obj client.Object, list client.ObjectList, ns string, opts ...client.DeleteAllOfOption) error {
	deadline := time.Now().Add(deleteTimeout)
	for {
		delErr := c.DeleteAllOf(ctx, obj, append(opts, client.InNamespace(ns))...)
		if err := c.List(ctx, list, client.InNamespace(ns), client.Limit(1)); err != nil {
			return errors.Join(delErr, err)
		}
		if meta.LenList(list) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return errors.Join(delErr, err)
		}
		if time.Now().After(deadline) {
			return errors.Join(fmt.Errorf("some are left after %s", deleteTimeout), delErr)
		}
	}
}
