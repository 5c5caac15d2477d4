// Command chartgen writes the Helm chart dist/chart from the kustomize output of config/, so that the chart
// and dist/install.yaml come from one source: every manifest of the chart is an object of that output with
// Helm templating put in at known places (namespace, labels, image, replicas, resources, flags), and every
// optional part is an object of the output gated by a value. Nothing in dist/chart is edited by hand;
// `make chart` (hack/chart.sh) reruns it and `make verify` checks that the committed chart is current.
//
// Usage:
//
//	chartgen -default DEFAULT.yaml -full FULL.yaml [-samples SAMPLES.yaml] -version X.Y.Z -out dist/chart
//	chartgen -compare RENDERED.yaml EXPECTED.yaml
//	chartgen -every-key dist/chart -helm HELM
//
// DEFAULT.yaml is `kustomize build config/default`; FULL.yaml is the same with every optional part added
// (config/certmanager and, when present, config/prometheus, config/prometheus/rules, config/network-policy, the admission policies of
// config/policies and config/flowcontrol). Objects only in
// FULL.yaml are off by default; objects in both are on by default. The second form compares a
// `helm template` rendering with a kustomize build, ignoring what Helm adds (its labels and annotations)
// and the Namespace (the chart installs into the release's namespace), and fails on any other difference.
// The third renders the chart once per value of values.yaml, that value changed, with the defaults and with
// ci/all-options-values.yaml, and fails naming each value whose change changes nothing (a dead value).
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	defaultFile := flag.String("default", "", "kustomize build of config/default")
	fullFile := flag.String("full", "", "kustomize build of config/default with every optional part")
	out := flag.String("out", "dist/chart", "chart directory to write (its templates/ is replaced)")
	samplesFile := flag.String("samples", "", "kustomize build of config/samples (optional): Artifact Hub's CRD examples")
	version := flag.String("version", "", "the release's version without the v (the Makefile's VERSION): the chart's version; its appVersion is vVERSION")
	compare := flag.Bool("compare", false, "compare two manifest streams (RENDERED EXPECTED) instead")
	everyKey := flag.String("every-key", "", "check that every value of the chart in this directory changes its rendering (with -helm) instead")
	helm := flag.String("helm", "helm", "helm binary, for -every-key")
	flag.Parse()

	var err error
	switch {
	case *everyKey != "":
		err = checkEveryKey(*helm, *everyKey)
	case *compare && flag.NArg() == 2:
		err = compareFiles(flag.Arg(0), flag.Arg(1))
	case !*compare && *defaultFile != "" && *fullFile != "" && *version != "":
		err = generate(*defaultFile, *fullFile, *samplesFile, *version, *out)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chartgen:", err)
		os.Exit(1)
	}
}

// generate reads both builds (and the samples, when samplesFile is not empty) and writes the chart of
// version into out.
func generate(defaultFile, fullFile, samplesFile, version, out string) error {
	base, err := readObjects(defaultFile)
	if err != nil {
		return err
	}
	full, err := readObjects(fullFile)
	if err != nil {
		return err
	}
	c, err := newChart(base, full)
	if err != nil {
		return err
	}
	c.values.Version = version
	if samplesFile != "" {
		if c.samples, err = readObjects(samplesFile); err != nil {
			return err
		}
		for _, o := range c.samples { // an example goes into the reader's namespace, written by hand
			delete(o.metadata(), "namespace")
			delete(mapAt(o.metadata(), fieldLabels), "app.kubernetes.io/managed-by")
		}
	}
	return c.write(out)
}
