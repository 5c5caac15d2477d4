//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// newNamespace creates the spec's namespace, deletes it when the spec ends and, should the spec fail,
// first dumps what the spec and the operator left (see dumpDiagnostics).
func newNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := framework.CreateNamespace(ctx, k8sClient, "e2e")
	DeferCleanup(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			dumpDiagnostics(ctx, ns.Name)
		}
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, ns))).To(Succeed())
	})
	return ns.Name
}

// minutely is a CronJob that runs every minute a Job of the suite's busybox image, which sleeps for sleep
// (0: it exits at once) and then exits with code exit.
func minutely(name, ns string, sleep time.Duration, exit int) *builders.CronJobWrapper {
	return builders.MakeCronJob(name, ns).Schedule("* * * * *").Image(settings.busyboxImage).
		Command("sh", "-c", fmt.Sprintf("sleep %d; exit %d", int(sleep.Seconds()), exit))
}

// jobsOf lists the Jobs the CronJob controls, from the API server.
func jobsOf(ctx context.Context, g Gomega, cj *cronjobv1.CronJob) []batchv1.Job {
	var list batchv1.JobList
	g.Expect(k8sClient.List(ctx, &list, client.InNamespace(cj.Namespace))).To(Succeed())
	var jobs []batchv1.Job
	for _, j := range list.Items {
		if ref := metav1.GetControllerOf(&j); ref != nil && ref.UID == cj.UID {
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// podsOf lists the Pods of the Job (by the controller-uid label the Job controller sets).
func podsOf(ctx context.Context, g Gomega, ns string, jobUID types.UID) []corev1.Pod {
	var pods corev1.PodList
	g.Expect(k8sClient.List(ctx, &pods, client.InNamespace(ns),
		client.MatchingLabels{batchv1.ControllerUidLabel: string(jobUID)})).To(Succeed())
	return pods.Items
}

// checkRuns asserts what the oracle saw for the CronJob: every scheduled minute after `from` and up to
// `to` has exactly one Job, and no minute before has one (minutes after `to` are not looked at).
func checkRuns(g Gomega, oracle *framework.JobOracle, cj *cronjobv1.CronJob, from, to time.Time) {
	// Count by Unix second: the oracle's times are parsed in UTC and from/to are local wall-clock times,
	// and time.Time values of one instant in different locations are different map keys.
	counts := map[int64]int{}
	for _, at := range oracle.ScheduledTimes(cj.UID) {
		counts[at.Unix()]++
	}
	var missing, doubled, unexpected []string
	for m := from.Truncate(time.Minute).Add(time.Minute); !m.After(to); m = m.Add(time.Minute) {
		switch counts[m.Unix()] {
		case 0:
			missing = append(missing, m.UTC().Format(time.TimeOnly))
		case 1:
		default:
			doubled = append(doubled, fmt.Sprintf("%s x%d", m.UTC().Format(time.TimeOnly), counts[m.Unix()]))
		}
		delete(counts, m.Unix())
	}
	for at := range counts {
		if at > to.Unix() {
			continue // started after the window
		}
		unexpected = append(unexpected, time.Unix(at, 0).UTC().Format(time.TimeOnly))
	}
	seen := fmt.Sprintf("the oracle saw %v", oracle.ScheduledTimes(cj.UID))
	g.Expect(doubled).To(BeEmpty(), "runs started more than once; %s", seen)
	g.Expect(missing).To(BeEmpty(), "scheduled minutes with no Job; %s", seen)
	g.Expect(unexpected).To(BeEmpty(), "Jobs for minutes outside the window; %s", seen)
}

// dumpDiagnostics writes what a failed spec needs to be understood to the spec's report and to
// $E2E_ARTIFACTS/<spec>/: the CronJobs, Jobs, Pods and events of the namespace and of the operator's
// namespace, and the logs of every manager container, the previous ones of restarted containers too.
func dumpDiagnostics(ctx context.Context, ns string) {
	dir := filepath.Join(settings.artifacts, strings.NewReplacer(" ", "_", "/", "_").Replace(CurrentSpecReport().FullText()))
	if len(dir) > 200 {
		dir = dir[:200]
	}
	_ = os.MkdirAll(dir, 0o755)
	f, err := os.Create(filepath.Join(dir, "dump.txt"))
	if err != nil {
		GinkgoWriter.Printf("creating the dump file: %v\n", err)
		return
	}
	defer f.Close()
	w := io.MultiWriter(f, GinkgoWriter)
	framework.DumpNamespace(ctx, k8sClient, ns, w)
	dumpPods(ctx, ns, w)
	framework.DumpNamespace(ctx, k8sClient, operatorNamespace, w)
	dumpPods(ctx, operatorNamespace, w)
	var pods corev1.PodList
	if err := k8sClient.List(ctx, &pods, client.InNamespace(operatorNamespace)); err != nil {
		fmt.Fprintf(w, "listing manager pods: %v\n", err)
		return
	}
	for _, p := range pods.Items {
		for _, previous := range []bool{false, true} {
			req := clientset.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{
				Container: "manager", Previous: previous, TailLines: ptr.To[int64](2000)})
			logs, err := req.DoRaw(ctx)
			name := fmt.Sprintf("manager-%s-previous=%t.log", p.Name, previous)
			if err != nil {
				fmt.Fprintf(w, "--- %s: %v\n", name, err)
				continue
			}
			_ = os.WriteFile(filepath.Join(dir, name), logs, 0o644)
			fmt.Fprintf(w, "--- %s (last 2000 lines; also in %s)\n%s\n", name, dir, logs)
		}
	}
}

func dumpPods(ctx context.Context, ns string, w io.Writer) {
	var pods corev1.PodList
	if err := k8sClient.List(ctx, &pods, client.InNamespace(ns)); err != nil {
		fmt.Fprintf(w, "--- Pods in %s: %v\n", ns, err)
		return
	}
	for i := range pods.Items {
		pods.Items[i].ManagedFields = nil
	}
	out, _ := yaml.Marshal(pods)
	fmt.Fprintf(w, "--- Pods in namespace %s\n%s\n", ns, out)
}
