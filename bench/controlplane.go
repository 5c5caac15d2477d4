package main

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
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

// controlPlane is the envtest kube-apiserver and etcd that both controllers use, one after the other.
type controlPlane struct {
	env *envtest.Environment
	// harness is the admin config the bench itself uses (not audited).
	harness *rest.Config
	// kubeconfigs are the files the controller processes read, one user each.
	kubeconfigs map[Controller]string
	// auditLog is the API server's audit log (JSON lines).
	auditLog string
}

// startControlPlane starts kube-apiserver and etcd from assets (bin/k8s/<version>-linux-<arch>) with the
// CronJob CRD from crdDir installed and an audit log in dir, and provisions the two controllers' users
// (both in system:masters, as kube-controller-manager's own credentials are in effect).
func startControlPlane(dir, assets, crdDir string) (*controlPlane, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	cp := &controlPlane{auditLog: filepath.Join(dir, "audit.log"), kubeconfigs: map[Controller]string{}}
	cp.env = &envtest.Environment{
		CRDDirectoryPaths:     []string{crdDir},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	cp.env.ControlPlane.APIServer = &envtest.APIServer{}
	args := cp.env.ControlPlane.APIServer.Configure()
	args.Set("audit-policy-file", policy)
	args.Set("audit-log-path", cp.auditLog)
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
	cp.harness = cfg
	for c, name := range map[Controller]string{Ours: oursUser, Peer: peerUser} {
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

func (cp *controlPlane) stop() error { return cp.env.Stop() }
