// Package version tells which build of cronjob-operator is running: the release version stamped in at
// build time and the source revision Go records in the binary. The manager reports it in --version, its
// start log line, its User-Agent and the cronjob_operator_build_info metric; the kubectl plugin in
// `kubectl cjo version`.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Name is the project's name. It is the manager's field manager on every object it writes (so
// metadata.managedFields says who wrote a field) and the product of its User-Agent.
const Name = "cronjob-operator"

// MinKubernetes is the oldest Kubernetes release the operator runs on: the CronJob CRD's selectable fields
// need 1.32 (1.30 and 1.31 have them behind a feature gate), the manager's preStop sleep and the optional
// ValidatingAdmissionPolicies 1.30. The manager refuses to start on an older API server, the chart's
// kubeVersion refuses to install there, and the OLM bundle's minKubeVersion says the same.
const MinKubernetes = "1.32.0"

// Version is the release version without a leading "v", e.g. "0.2.0". The Makefile stamps it with
// -ldflags "-X github.com/cronjob-operator/cronjob-operator/controllers/version.Version=$(VERSION)"; a
// build that does not (go run, go test) reports "dev".
var Version = "dev"

// Revision, when stamped (-X ...version.Revision=<commit>[-modified]), is the source revision of the build;
// the Makefile stamps it, because Go's own VCS stamping is off where GOFLAGS has -buildvcs=false and
// cannot see a checkout the Dockerfile copies without .git. Empty: the revision Go recorded, if any.
var Revision = ""

// Info describes one build.
type Info struct {
	// Version is Version: the release, or "dev".
	Version string
	// Revision is the VCS commit the binary was built from, "unknown" when Go recorded none (a build
	// outside a git checkout, or with -buildvcs=false).
	Revision string
	// Modified is true when the work tree had uncommitted changes at build time.
	Modified bool
	// GoVersion is the Go toolchain that built the binary, e.g. "go1.26.8".
	GoVersion string
	// Platform is GOOS/GOARCH, e.g. "linux/amd64".
	Platform string
}

// Get returns the running binary's Info.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	info := fromBuildInfo(Version, bi)
	if Revision != "" {
		info.Revision, info.Modified = strings.CutSuffix(Revision, "-modified")
	}
	return info
}

// fromBuildInfo returns the Info of a binary stamped with version whose build information is bi (nil when
// the binary has none).
func fromBuildInfo(version string, bi *debug.BuildInfo) Info {
	info := Info{Version: version, Revision: "unknown", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return info
	}
	info.GoVersion = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// String is the one line --version prints, e.g.
// "cronjob-operator 0.2.0 (revision 3f2a9c1b0d4e, linux/amd64, go1.26.8)"; a build from a work tree with
// uncommitted changes says "revision 3f2a9c1b0d4e-modified".
func (i Info) String() string {
	return fmt.Sprintf("%s %s (revision %s, %s, %s)", Name, i.Version, i.ShortRevision(), i.Platform, i.GoVersion)
}

// UserAgent is the User-Agent of the manager's requests to the API server, in client-go's form
// "<product>/<version> (<os>/<arch>) <revision>", e.g. "cronjob-operator/0.2.0 (linux/amd64) 3f2a9c1b0d4e".
// The API server's audit log and its apiserver_request_total metric name the operator by it, instead of
// client-go's default, the binary's name ("manager").
func (i Info) UserAgent() string {
	return fmt.Sprintf("%s/%s (%s) %s", Name, i.Version, i.Platform, i.ShortRevision())
}

// ShortRevision is the first 12 characters of the revision, with "-modified" when the tree was modified.
func (i Info) ShortRevision() string {
	r := i.Revision
	if len(r) > 12 {
		r = r[:12]
	}
	if i.Modified {
		r += "-modified"
	}
	return r
}
