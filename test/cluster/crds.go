package cluster

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// StoredVersionOnlyCRDs reads the CRDs of dir (config/crd/bases) and serves each at its storage version
// only. A control plane started with them has no conversion webhook to call (envtest installs one only for
// a test's own webhook server), and a CRD of several versions without one would answer a v2 read with the
// stored v1 object relabelled: wrong data rather than an error. With this, a v2 request is a 404 (README
// "API versions": the local control plane serves v1). It returns an error if dir cannot be read.
func StoredVersionOnlyCRDs(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	opts := envtest.CRDInstallOptions{Paths: []string{dir}, ErrorIfPathMissing: true}
	if err := envtest.ReadCRDFiles(&opts); err != nil {
		return nil, fmt.Errorf("reading the CRDs of %s: %w", dir, err)
	}
	for _, crd := range opts.CRDs {
		for i := range crd.Spec.Versions {
			crd.Spec.Versions[i].Served = crd.Spec.Versions[i].Storage
		}
	}
	return opts.CRDs, nil
}
