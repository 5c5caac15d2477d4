package hostile

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

var (
	fwk = &framework.Framework{}
	// cfg is the admin rest config of the control plane; k8sClient its live client, for assertions.
	cfg       *rest.Config
	k8sClient client.Client
)

func TestHostile(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(framework.Timeout)
	SetDefaultEventuallyPollingInterval(framework.Interval)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if suiteConfig.LabelFilter == "" {
		// The suite runs for minutes and needs bin/manager: only when asked for (make test-hostile).
		suiteConfig.LabelFilter = "!hostile"
	}
	RunSpecs(t, "Hostile tenants suite", suiteConfig, reporterConfig)
}

var _ = BeforeSuite(func() {
	cfg, k8sClient = fwk.Init()
})

var _ = AfterSuite(func() {
	fwk.Teardown()
})

// repoRoot returns the root of this repository, found from this source file.
func repoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("hostile: cannot find the path of suite_test.go")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// managerBinary is $HOSTILE_MANAGER, else bin/manager (make build).
func managerBinary() string {
	if bin := os.Getenv("HOSTILE_MANAGER"); bin != "" {
		return bin
	}
	return filepath.Join(repoRoot(), "bin", "manager")
}

// resultsDir is $HOSTILE_RESULTS_DIR, else bin/hostile.
func resultsDir() string {
	if dir := os.Getenv("HOSTILE_RESULTS_DIR"); dir != "" {
		return dir
	}
	return filepath.Join(repoRoot(), "bin", "hostile")
}

// commit describes the checkout measured (git describe --always --dirty), "unknown" without git.
func commit() string {
	out, err := exec.Command("git", "-C", repoRoot(), "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
