package rig

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
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
}

// Rigs returns the rigs of both controllers.
func Rigs(cp *ControlPlane, managerBin, kcmBin, dir string, s results.Settings) map[results.Controller]*Rig {
	return map[results.Controller]*Rig{
		results.Ours: {controller: results.Ours, binary: managerBin, kubeconfig: cp.kubeconfigs[results.Ours], logPath: filepath.Join(dir, "ours.log"), settings: s},
		results.Peer: {controller: results.Peer, binary: kcmBin, kubeconfig: cp.kubeconfigs[results.Peer], logPath: filepath.Join(dir, "peer.log"), settings: s},
	}
}

// Start runs the controller and waits until it serves (ours: /readyz; the peer has no endpoint without
// secure serving, so it is given the settle time the scenarios wait anyway).
func (r *Rig) Start(ctx context.Context) (*Process, error) {
	qps := strconv.FormatFloat(r.settings.QPS, 'f', -1, 64)
	burst := strconv.Itoa(r.settings.Burst)
	if r.controller == results.Peer {
		return startProcess("kube-controller-manager", r.logPath, []string{r.binary,
			"--kubeconfig=" + r.kubeconfig,
			"--controllers=cronjob",
			"--leader-elect=false",
			"--secure-port=0",
			"--kube-api-qps=" + qps,
			"--kube-api-burst=" + burst,
			"--concurrent-cron-job-syncs=" + strconv.Itoa(r.settings.PeerConcurrentSyncs),
		})
	}
	metrics, err := freePort()
	if err != nil {
		return nil, err
	}
	probes, err := freePort()
	if err != nil {
		return nil, err
	}
	var extra []string
	pprof := 0
	if r.Profile {
		if pprof, err = freePort(); err != nil {
			return nil, err
		}
		extra = append(extra, fmt.Sprintf("--pprof-bind-address=127.0.0.1:%d", pprof))
	}
	p, err := startProcess("manager", r.logPath, append(append([]string{r.binary,
		"--kubeconfig=" + r.kubeconfig,
		"--leader-elect=false",
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metrics),
		"--metrics-secure=false",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", probes),
		"--kube-api-qps=" + qps,
		"--kube-api-burst=" + burst,
		"--max-concurrent-reconciles=" + strconv.Itoa(r.settings.OursMaxConcurrentReconciles),
	}, extra...), r.ExtraArgs...))
	if err != nil {
		return nil, err
	}
	p.MetricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", metrics)
	p.StateMetricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics/state", metrics)
	if pprof != 0 {
		p.PprofURL = fmt.Sprintf("http://127.0.0.1:%d/debug/pprof", pprof)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := waitHTTP(wctx, fmt.Sprintf("http://127.0.0.1:%d/readyz", probes), p); err != nil {
		p.Stop(5 * time.Second)
		return nil, err
	}
	return p, nil
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

// DeleteAll deletes the controller's CronJobs and every Job in ns. The control plane runs no garbage
// collector, so the Jobs are deleted explicitly. (Namespaces stay: envtest has no namespace controller to
// finish their deletion; empty, they cost nothing.)
func (r *Rig) DeleteAll(ctx context.Context, c client.Client, ns string) error {
	var cj client.Object = &cronjobv1.CronJob{}
	if r.controller == results.Peer {
		cj = &batchv1.CronJob{}
	}
	if err := c.DeleteAllOf(ctx, cj, client.InNamespace(ns)); err != nil {
		return fmt.Errorf("deleting the CronJobs of %s: %w", ns, err)
	}
	// batch/v1 Jobs are deleted with the orphan policy by default: the API server then only adds the orphan
	// finalizer, and with no garbage collector here the Jobs would stay (in both controllers' caches).
	if err := c.DeleteAllOf(ctx, &batchv1.Job{}, client.InNamespace(ns),
		client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		return fmt.Errorf("deleting the Jobs of %s: %w", ns, err)
	}
	return nil
}
