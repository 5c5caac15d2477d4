package main

import (
	"fmt"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	opversion "github.com/cronjob-operator/cronjob-operator/controllers/version"
)

// checkKubernetesVersion asks the API server of cfg for its version and returns an error saying what to do
// when it is older than opversion.MinKubernetes: started there, the manager would fail in ways far from the
// cause (a CRD whose selectable fields the API server drops, list calls that filter nothing).
func checkKubernetesVersion(cfg *rest.Config) error {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	info, err := dc.ServerVersion()
	if err != nil {
		return fmt.Errorf("asking the API server for its version: %w", err)
	}
	return supportedKubernetes(info)
}

// supportedKubernetes is nil when info is opversion.MinKubernetes or newer; a provider's suffix
// (v1.32.4-eks-..., v1.33.1-gke.100) does not count.
func supportedKubernetes(info *version.Info) error {
	got, err := utilversion.ParseGeneric(info.GitVersion)
	if err != nil {
		return fmt.Errorf("the API server's version %q cannot be read: %w", info.GitVersion, err)
	}
	if oldest := utilversion.MustParseGeneric(opversion.MinKubernetes); got.LessThan(oldest) {
		return fmt.Errorf("the API server runs Kubernetes %s, cronjob-operator needs %s or newer (the CronJob CRD's selectable fields): upgrade the cluster, or run a release of cronjob-operator that supports %s",
			info.GitVersion, oldest, got)
	}
	return nil
}
