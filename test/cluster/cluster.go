//go:build unix

// Package cluster runs, around an envtest control plane (kube-apiserver and etcd), the parts of a cluster
// that make Jobs run: kube-controller-manager with the controllers a Job's life needs, kube-scheduler, and
// KWOK, which simulates a node and moves its Pods through their phases in place of a kubelet (stages.yaml).
// `make run` (hack/localcluster) and `make test-lifecycle` (test/lifecycle) use it.
//
// The binaries come from the envtest assets directory, where `make lifecycle-assets` builds them from the Go
// module proxy: kube-controller-manager and kube-scheduler of the same Kubernetes version as the API
// server, and kwok (hack/tools/kwok).
//
// What a simulated Pod does is set by two annotations of its template (for a CronJob,
// spec.jobTemplate.spec.template.metadata.annotations): RunForAnnotation and OutcomeAnnotation. Pods have
// no containers that run, no volumes, no network and no logs.
package cluster

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Annotations of a Pod that tell the simulated node what the Pod's containers do.
const (
	// RunForAnnotation is how long the Pod runs before it ends, as a Go duration ("90s"). Default 3s.
	RunForAnnotation = "lifecycle.cronjob-operator.dev/run-for"
	// OutcomeAnnotation "fail" ends the Pod Failed, its containers with exit code 1; anything else (or no
	// annotation) ends it Succeeded.
	OutcomeAnnotation = "lifecycle.cronjob-operator.dev/outcome"
	// OutcomeFail is the value of OutcomeAnnotation that makes a Pod fail.
	OutcomeFail = "fail"
)

// NodeName is the simulated node's name.
const NodeName = "kwok-node-0"

// kwokNodeAnnotation marks the nodes KWOK manages.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// Controllers are the kube-controller-manager controllers that run: the Job controller, the garbage
// collector (a deleted Job's Pods go), TTL after finished, Pod garbage collection and the namespace
// controller (a deleted namespace is emptied). Not the CronJob controller: that is ours.
var Controllers = []string{
	"job-controller", "garbage-collector-controller", "ttl-after-finished-controller",
	"pod-garbage-collector-controller", "namespace-controller",
}

//go:embed stages.yaml
var stages []byte

// The components Start runs, by binary name.
const (
	kubeControllerManager = "kube-controller-manager"
	kubeScheduler         = "kube-scheduler"
	kwok                  = "kwok"
)

// Binaries are the files Start needs in the assets directory besides envtest's.
var Binaries = []string{kubeControllerManager, kubeScheduler, kwok}

// Options configure Start.
type Options struct {
	// Assets is the directory of the binaries (Binaries).
	Assets string
	// Dir is where the kubeconfig, the stages and each process' log (<name>.log) are written; it must
	// exist.
	Dir string
	// Log, when set, gets a line for each process started and stopped.
	Log func(format string, args ...any)
}

// Cluster is what Start runs.
type Cluster struct {
	procs    []*Process // in start order
	log      func(format string, args ...any)
	stopping atomic.Bool
}

// Start starts kube-controller-manager, kube-scheduler and kwok against env (started), creates the simulated
// node and returns once that node is Ready. On error, what was started is stopped. Stop it with Stop before
// env.
func Start(ctx context.Context, env *envtest.Environment, o Options) (*Cluster, error) {
	c := &Cluster{log: o.Log}
	if c.log == nil {
		c.log = func(string, ...any) {}
	}
	for _, b := range Binaries {
		if _, err := os.Stat(filepath.Join(o.Assets, b)); err != nil {
			return nil, fmt.Errorf("%s is missing from %s: run `make lifecycle-assets`", b, o.Assets)
		}
	}
	user, err := env.AddUser(envtest.User{Name: "lifecycle-components", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("adding the components' user: %w", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return nil, err
	}
	kc := filepath.Join(o.Dir, "components.kubeconfig")
	stagesFile := filepath.Join(o.Dir, "kwok-stages.yaml")
	if err := os.WriteFile(kc, kubeconfig, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(stagesFile, stages, 0o600); err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(user.Config())
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			c.Stop()
		}
	}()
	for _, p := range []struct {
		name string
		args []string
	}{
		{kubeControllerManager, []string{
			"--kubeconfig=" + kc, "--controllers=" + strings.Join(Controllers, ","),
			"--leader-elect=false", "--secure-port=0",
		}},
		{kubeScheduler, []string{"--kubeconfig=" + kc, "--leader-elect=false", "--secure-port=0"}},
		{kwok, []string{
			"--kubeconfig=" + kc, "--config=" + stagesFile,
			"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
			"--node-ip=10.0.0.1", "--cidr=10.0.0.0/24",
		}},
	} {
		proc, err := StartProcess(p.name, filepath.Join(o.Assets, p.name), p.args, filepath.Join(o.Dir, p.name+".log"))
		if err != nil {
			return nil, err
		}
		c.log("started %s (log %s)", p.name, proc.LogPath)
		c.procs = append(c.procs, proc)
	}
	if err := createNode(ctx, cs); err != nil {
		return nil, err
	}
	ok = true
	return c, nil
}

// createNode creates the simulated node, waits until KWOK reports it Ready, then removes the taints the API
// server gave it at creation (node.kubernetes.io/not-ready, TaintNodesByCondition), as the node lifecycle
// controller does for a Ready node. That controller does not run: it would want heartbeats of the node.
func createNode(ctx context.Context, cs kubernetes.Interface) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        NodeName,
		Annotations: map[string]string{kwokNodeAnnotation: "fake"},
		Labels:      map[string]string{corev1.LabelHostname: NodeName, "type": "kwok"},
	}}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating node %s: %w", NodeName, err)
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	err := wait.PollUntilContextCancel(wctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		n, err := cs.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // the API server may be busy; retry until the timeout
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("node %s not Ready after 60 s (is kwok running? see its log): %w", NodeName, err)
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := cs.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil || len(n.Spec.Taints) == 0 {
			return err
		}
		n.Spec.Taints = nil
		_, err = cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
}

// Exited returns a channel that receives an error naming the first component that exits before Stop.
func (c *Cluster) Exited() <-chan error {
	ch := make(chan error, len(c.procs))
	for _, p := range c.procs {
		go func() {
			<-p.Done()
			if !c.stopping.Load() {
				ch <- fmt.Errorf("%s exited: %s (log %s)", p.Name, exitString(p), p.LogPath)
			}
		}()
	}
	return ch
}

func exitString(p *Process) string {
	if p.Err() == nil {
		return "exit status 0"
	}
	return p.Err().Error()
}

// Stop stops the components in the reverse order of their start, each with SIGTERM and, after 10 s, SIGKILL.
func (c *Cluster) Stop() {
	c.stopping.Store(true)
	for _, p := range slices.Backward(c.procs) {
		p.Stop(10*time.Second, nil)
		c.log("stopped %s", p.Name)
	}
	c.procs = nil
}

// Process is a child process in a process group of its own (on Linux it is killed when this process
// dies), its output going to a log file or to a writer.
type Process struct {
	Name    string
	LogPath string // empty when the output goes to a writer
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited and err is set
	err     error
}

// StartProcess starts bin with args, its output appended to logPath.
func StartProcess(name, bin string, args []string, logPath string) (*Process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	p, err := StartProcessTo(name, bin, args, f)
	_ = f.Close() // the child holds its own descriptor
	if p != nil {
		p.LogPath = logPath
	}
	return p, err
}

// StartProcessTo starts bin with args, its output going to out (an *os.File is handed to the child).
func StartProcessTo(name, bin string, args []string, out io.Writer) (*Process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{Name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is the process' exit error once Done is closed (nil for exit code 0).
func (p *Process) Err() error { return p.err }

// ExitCode is the process' exit code once Done is closed, or 128+N when signal N ended it (as a shell
// reports it).
func (p *Process) ExitCode() int {
	exitErr, ok := errors.AsType[*exec.ExitError](p.err)
	switch {
	case p.err == nil:
		return 0
	case !ok:
		return 1
	}
	if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return exitErr.ExitCode()
}

// Stop sends SIGTERM to the process group and waits for the process to exit. After timeout, or when a
// value arrives on abort (which may be nil), it sends SIGKILL and waits again. It reports whether the
// process stopped before SIGKILL.
func (p *Process) Stop(timeout time.Duration, abort <-chan os.Signal) bool {
	p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return true
	case <-time.After(timeout):
	case <-abort:
	}
	p.signal(syscall.SIGKILL)
	<-p.done
	return false
}

func (p *Process) signal(sig syscall.Signal) {
	// The negative pid addresses the process group, which the process leads.
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}
