package rig

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
	"github.com/cronjob-operator/cronjob-operator/test/cluster"
)

// Users of the control plane. The audit policy records every request of the two controllers' users and
// nothing else, so the harness's own creates, deletes and watch never count against a controller.
const (
	oursUser = "bench-ours"
	peerUser = "bench-peer"
)

// auditPolicy logs, at Metadata level (who, what, when; no bodies), every request of the two controllers.
// RequestReceived is omitted; a watch is logged when its response starts and again when it ends.
var auditPolicy = fmt.Sprintf(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  users: [%q, %q]
`, oursUser, peerUser)

// ControlPlane is the envtest kube-apiserver and etcd that both controllers use, one after the other.
type ControlPlane struct {
	env *envtest.Environment
	// Harness is the admin config the bench itself uses (not audited).
	Harness *rest.Config
	// kubeconfigs are the files the controller processes read, one user each.
	kubeconfigs map[results.Controller]string
	// AuditLog is the API server's audit log (JSON lines).
	AuditLog string
}

// StartControlPlane starts kube-apiserver and etcd from assets (bin/k8s/<version>-linux-<arch>) with the
// CronJob CRD from crdDir installed and an audit log in dir, and provisions the two controllers' users
// (both in system:masters, as kube-controller-manager's own credentials are in effect).
func StartControlPlane(dir, assets, crdDir string) (*ControlPlane, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	cp := &ControlPlane{AuditLog: filepath.Join(dir, "audit.log"), kubeconfigs: map[results.Controller]string{}}
	// No conversion webhook here: the CRDs serve their storage version (v1) only.
	crds, err := cluster.StoredVersionOnlyCRDs(crdDir)
	if err != nil {
		return nil, err
	}
	cp.env = &envtest.Environment{
		CRDs:                  crds,
		BinaryAssetsDirectory: assets,
	}
	cp.env.ControlPlane.APIServer = &envtest.APIServer{}
	args := cp.env.ControlPlane.APIServer.Configure()
	args.Set("audit-policy-file", policy)
	args.Set("audit-log-path", cp.AuditLog)
	// Batch mode writes the log from a buffer, off the request path, so auditing adds no latency to a
	// controller's requests; a batch is flushed at least every second.
	args.Set("audit-log-mode", "batch")
	args.Set("audit-log-batch-max-wait", "1s")
	// No rotation (the default rotates at 100 MB, and the bench reads one file), and a buffer that holds a
	// burst of 10,000 CronJobs' requests (batch mode drops events when its buffer is full).
	args.Set("audit-log-maxsize", "0")
	args.Set("audit-log-batch-buffer-size", "200000")
	args.Set("shutdown-watch-termination-grace-period", "2s")
	cfg, err := cp.env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	cp.Harness = cfg
	for c, name := range map[results.Controller]string{results.Ours: oursUser, results.Peer: peerUser} {
		u, err := cp.env.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
		if err != nil {
			_ = cp.env.Stop()
			return nil, fmt.Errorf("adding user %s: %w", name, err)
		}
		kc, err := u.KubeConfig()
		if err != nil {
			_ = cp.env.Stop()
			return nil, fmt.Errorf("writing the kubeconfig of %s: %w", name, err)
		}
		cp.kubeconfigs[c] = filepath.Join(dir, name+".kubeconfig")
		if err := os.WriteFile(cp.kubeconfigs[c], kc, 0o600); err != nil {
			_ = cp.env.Stop()
			return nil, err
		}
	}
	return cp, nil
}

// Stop stops kube-apiserver and etcd.
func (cp *ControlPlane) Stop() error { return cp.env.Stop() }

// User is the control plane user of controller c, the one its requests are audited under.
func User(c results.Controller) string {
	if c == results.Peer {
		return peerUser
	}
	return oursUser
}
