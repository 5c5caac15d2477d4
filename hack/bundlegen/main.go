// Command bundlegen writes the OLM bundle dist/bundle from the kustomize build of config/manifests, and
// validates a bundle as `operator-sdk bundle validate` and the scorecard's basic and OLM tests would.
//
// The build holds the ClusterServiceVersion's hand-written base (config/manifests/bases), everything
// config/default deploys and the samples of config/samples and config/samples/v2. From it bundlegen makes:
//
//   - manifests/cronjob-operator.clusterserviceversion.yaml: the base with the name and version of
//     -version, the install strategy (the manager's Deployment with the image of -image, made to use OLM's
//     serving certificate: olm.go; the Roles and ClusterRoles bound to its ServiceAccount as permissions
//     and clusterPermissions), the webhook definitions (the validating webhooks and the CronJob CRD's
//     conversion webhook), one owned entry per served version of each CRD with its descriptors, and the
//     samples as alm-examples;
//   - manifests/: the CRDs, and the other objects OLM can install from a bundle (the metrics Service, the
//     PodDisruptionBudget, the ClusterRoles for users);
//   - metadata/annotations.yaml and Dockerfile, the bundle image's.
//
// OLM creates the Namespace, the ServiceAccount, the webhook Service and the serving certificate itself,
// so the build's are left out. Nothing in dist/bundle is edited by hand: `make bundle` (hack/dist.sh
// bundle) rewrites it and `make verify` checks that the committed bundle is current.
//
// Usage:
//
//	bundlegen -in BUILD.yaml -version 0.2.0 -image REPO:v0.2.0 [-icon ICON.svg] [-channels stable] -out dist/bundle
//	bundlegen -validate dist/bundle
//
// The second form prints every finding of the operator-framework validators, of the bundle format check
// and of the scorecard equivalents (scorecard.go), and exits 1 if any is an error.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	in := flag.String("in", "", "kustomize build of config/manifests (required)")
	out := flag.String("out", "dist/bundle", "bundle directory to write (its manifests/ and metadata/ are replaced)")
	version := flag.String("version", "", "the release, a semantic version without the v, e.g. 0.2.0 (required)")
	image := flag.String("image", "", "the manager image, with a tag other than latest or a digest (required)")
	icon := flag.String("icon", "", "SVG icon of the operator (optional)")
	channels := flag.String("channels", "stable", "comma-separated channels of the bundle")
	defaultChannel := flag.String("default-channel", "", "the package's default channel (default: the first of -channels)")
	validateDir := flag.String("validate", "", "validate the bundle in this directory instead of writing one")
	flag.Parse()

	var err error
	switch {
	case *validateDir != "" && flag.NArg() == 0:
		err = validateCommand(*validateDir)
	case *validateDir == "" && flag.NArg() == 0 && *in != "":
		var o options
		if o, err = newOptions(*version, *image, *icon, *channels, *defaultChannel); err == nil {
			err = generate(*in, *out, o)
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bundlegen:", err)
		os.Exit(1)
	}
}

// generate reads the build in, makes the bundle for o and writes it into out. Notes on what OLM cannot
// carry over from the build go to stderr.
func generate(in, out string, o options) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	b, err := makeBundle(data, o)
	if err != nil {
		return err
	}
	for _, n := range b.notes {
		fmt.Fprintln(os.Stderr, "bundlegen: note:", n)
	}
	if err := b.write(out); err != nil {
		return err
	}
	fmt.Printf("bundlegen: wrote %s (%s, image %s, channels %s)\n", out, b.csv.Name, o.image, strings.Join(o.channels, ","))
	return nil
}

// validateCommand validates the bundle in dir and prints every finding; it returns an error if any
// finding is an error.
func validateCommand(dir string) error {
	findings, err := validateDir(dir)
	if err != nil {
		return err
	}
	errs := 0
	for _, f := range findings {
		fmt.Println(f)
		if f.isError() {
			errs++
		}
	}
	if errs > 0 {
		return fmt.Errorf("%s: %d error(s)", dir, errs)
	}
	fmt.Printf("bundlegen: %s is valid (%d warning(s))\n", dir, len(findings))
	return nil
}
