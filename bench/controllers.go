package main

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
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// rig knows how to run one controller and how to speak its CronJob API.
type rig struct {
	controller Controller
	// binary is bin/manager (ours) or bin/k8s/.../kube-controller-manager (the peer).
	binary     string
	kubeconfig string
	logPath    string
	settings   Settings
	// extraArgs are appended to the controller's command line.
	extraArgs []string
}

// rigs returns the rigs of both controllers.
func rigs(cp *controlPlane, managerBin, kcmBin, dir string, s Settings) map[Controller]*rig {
	return map[Controller]*rig{
		Ours: {controller: Ours, binary: managerBin, kubeconfig: cp.kubeconfigs[Ours], logPath: filepath.Join(dir, "ours.log"), settings: s},
		Peer: {controller: Peer, binary: kcmBin, kubeconfig: cp.kubeconfigs[Peer], logPath: filepath.Join(dir, "peer.log"), settings: s},
	}
}

// start runs the controller and waits until it serves (ours: /readyz; the peer has no endpoint without
// secure serving, so it is given the settle time the scenarios wait anyway).
func (r *rig) start(ctx context.Context) (*process, error) {
	qps := strconv.FormatFloat(r.settings.QPS, 'f', -1, 64)
	burst := strconv.Itoa(r.settings.Burst)
	if r.controller == Peer {
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
	p, err := startProcess("manager", r.logPath, append([]string{r.binary,
		"--kubeconfig=" + r.kubeconfig,
		"--leader-elect=false",
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metrics),
		"--metrics-secure=false",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", probes),
		"--kube-api-qps=" + qps,
		"--kube-api-burst=" + burst,
		"--max-concurrent-reconciles=" + strconv.Itoa(r.settings.OursMaxConcurrentReconciles),
	}, r.extraArgs...))
	if err != nil {
		return nil, err
	}
	p.metricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", metrics)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := waitHTTP(wctx, fmt.Sprintf("http://127.0.0.1:%d/readyz", probes), p); err != nil {
		p.stop(5 * time.Second)
		return nil, err
	}
	return p, nil
}

// newCronJob returns the controller's CronJob object for schedule, in Etc/UTC, concurrencyPolicy Allow,
// no starting deadline, default history limits. Both kinds carry the same Job template.
func (r *rig) newCronJob(ns, name, schedule string) client.Object {
	ours := builders.MakeCronJob(name, ns).Schedule(schedule).TimeZone("Etc/UTC").Obj()
	if r.controller == Ours {
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

// deleteAll deletes the controller's CronJobs and every Job in ns. The control plane runs no garbage
// collector, so the Jobs are deleted explicitly. (Namespaces stay: envtest has no namespace controller to
// finish their deletion; empty, they cost nothing.)
func (r *rig) deleteAll(ctx context.Context, c client.Client, ns string) error {
	var cj client.Object = &cronjobv1.CronJob{}
	if r.controller == Peer {
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
