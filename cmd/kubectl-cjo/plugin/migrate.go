package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"
	svmv1 "k8s.io/api/storagemigration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// fieldManager is the plugin's field manager and user agent.
const fieldManager = "kubectl-cjo"

// CronJobCRD is the name of the CronJob CustomResourceDefinition, the one `migrate` acts on.
const CronJobCRD = "cronjobs.batch.cronjob-operator.dev"

// MigrateOptions says what Migrate does.
type MigrateOptions struct {
	// StorageVersion, when set, is made the CRD's storage version first ("v2"); it must be a served version.
	// Empty keeps the storage version the CRD has.
	StorageVersion string
	// Rewrite rewrites every CronJob itself even where the cluster serves storagemigration.k8s.io/v1.
	Rewrite bool
	// Timeout bounds each wait: for the API server to take the new storage version, and for a
	// StorageVersionMigration to end. 0 means 2 minutes.
	Timeout time.Duration
	// Poll is how often the waits look; 0 means 1 second.
	Poll time.Duration
	// Out receives one line per step.
	Out io.Writer
}

// MigrateResult is what Migrate did.
type MigrateResult struct {
	// StorageVersion is the CRD's storage version at the end.
	StorageVersion string
	// Migration names the StorageVersionMigration that rewrote the objects; empty when Migrate rewrote them.
	Migration string
	// Rewritten counts the CronJobs Migrate rewrote itself.
	Rewritten int
	// StoredVersions is the CRD's status.storedVersions before and after.
	StoredVersionsBefore, StoredVersionsAfter []string
}

// Migrate moves every stored CronJob to the CRD's storage version (after making StorageVersion the
// storage version, if set) and then leaves only that version in the CRD's status.storedVersions, so that
// a later release may stop serving the others (README "API versions"):
//
//  1. it waits until the API server's discovery reports the storage version's hash for cronjobs: from
//     then on every write stores that version;
//  2. where the cluster serves storagemigration.k8s.io/v1 (Kubernetes 1.37+; kube-controller-manager's
//     storage-version-migrator does the work), it creates a StorageVersionMigration and waits for it;
//     otherwise, or with Rewrite, it reads every CronJob of every namespace, 500 at a time, and writes
//     each back unchanged (the API server stores it again in the storage version; a conflict is
//     retried on the newer object, a CronJob deleted meanwhile is skipped);
//  3. it sets status.storedVersions to the storage version alone.
//
// It needs the rights of a cluster administrator: update of the CRD and its status, list and update of
// CronJobs in every namespace, create and get of StorageVersionMigrations. It returns an error naming
// the step that failed; run it again after fixing the cause (every step may be repeated).
func Migrate(ctx context.Context, cfg *rest.Config, o MigrateOptions) (MigrateResult, error) {
	var res MigrateResult
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.Poll == 0 {
		o.Poll = time.Second
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	crds, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return res, err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return res, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return res, err
	}
	crd, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, CronJobCRD, metav1.GetOptions{})
	if err != nil {
		return res, fmt.Errorf("reading CustomResourceDefinition %s: %w", CronJobCRD, err)
	}
	res.StoredVersionsBefore = crd.Status.StoredVersions

	if o.StorageVersion != "" && o.StorageVersion != storageVersion(crd) {
		if crd, err = setStorageVersion(ctx, crds, crd, o.StorageVersion); err != nil {
			return res, err
		}
	}
	res.StorageVersion = storageVersion(crd)
	if err := waitForStorageVersion(ctx, kube.Discovery(), crd.Spec.Group, res.StorageVersion, o); err != nil {
		return res, err
	}
	_, _ = fmt.Fprintf(o.Out, "storage version: %s (the API server stores it)\n", res.StorageVersion)

	if !o.Rewrite && servesGroupVersion(kube.Discovery(), svmv1.SchemeGroupVersion.String()) {
		if res.Migration, err = runMigration(ctx, kube, crd, o); err != nil {
			return res, err
		}
		_, _ = fmt.Fprintf(o.Out, "StorageVersionMigration %s succeeded\n", res.Migration)
	} else {
		if res.Rewritten, err = rewriteAll(ctx, dyn, crd.Spec.Group, res.StorageVersion); err != nil {
			return res, err
		}
		_, _ = fmt.Fprintf(o.Out, "rewrote %d CronJobs\n", res.Rewritten)
	}

	after, err := cleanStoredVersions(ctx, crds, res.StorageVersion)
	if err != nil {
		return res, err
	}
	res.StoredVersionsAfter = after
	_, _ = fmt.Fprintf(o.Out, "status.storedVersions: %v -> %v\n", res.StoredVersionsBefore, after)
	return res, nil
}

func storageVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// setStorageVersion makes version the storage version of crd. It fails if crd has no such served version.
func setStorageVersion(ctx context.Context, c apiextensionsclient.Interface, crd *apiextensionsv1.CustomResourceDefinition, version string) (*apiextensionsv1.CustomResourceDefinition, error) {
	names := make([]string, 0, len(crd.Spec.Versions))
	found := false
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		names = append(names, v.Name)
		v.Storage = v.Name == version
		found = found || (v.Storage && v.Served)
	}
	if !found {
		return nil, fmt.Errorf("--storage-version %s: CustomResourceDefinition %s serves no such version (it has %v): install the release that serves it first", version, crd.Name, names)
	}
	out, err := c.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, fmt.Errorf("making %s the storage version of %s: %w", version, crd.Name, err)
	}
	return out, nil
}

// storageVersionHash is the API server's storageVersionHash of group/version/kind, as discovery reports
// it: the first 8 bytes of the SHA-256 of "group/version/kind", in base64 (the same function as
// k8s.io/apiserver/pkg/endpoints/discovery.StorageVersionHash, whose module the plugin does not need).
func storageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// waitForStorageVersion waits until the API server reports, in discovery, that it stores CronJobs in
// version: a CRD update reaches the serving handler a little after the write, and an object rewritten
// before would be stored in the old version again. With several API servers, one answers: run migrate
// again if a replica was slow (the objects it wrote are rewritten then).
func waitForStorageVersion(ctx context.Context, d discovery.DiscoveryInterface, group, version string, o MigrateOptions) error {
	want := storageVersionHash(group, version, "CronJob")
	err := wait.PollUntilContextTimeout(ctx, o.Poll, o.Timeout, true, func(context.Context) (bool, error) {
		list, err := d.ServerResourcesForGroupVersion(group + "/" + version)
		if err != nil {
			return false, nil //nolint:nilerr // not served yet: the CRD update is on its way
		}
		for _, r := range list.APIResources {
			if r.Name == "cronjobs" {
				return r.StorageVersionHash == want, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the API server to store CronJobs as %s (discovery's storageVersionHash %s): %w", version, want, err)
	}
	return nil
}

func servesGroupVersion(d discovery.DiscoveryInterface, gv string) bool {
	_, err := d.ServerResourcesForGroupVersion(gv)
	return err == nil
}

// runMigration creates a StorageVersionMigration of cronjobs and waits for it to succeed; it returns its
// name, or an error if it failed or did not end within o.Timeout (no storage-version-migrator running:
// rerun with --rewrite).
func runMigration(ctx context.Context, kube kubernetes.Interface, crd *apiextensionsv1.CustomResourceDefinition, o MigrateOptions) (string, error) {
	svm, err := kube.StoragemigrationV1().StorageVersionMigrations().Create(ctx, &svmv1.StorageVersionMigration{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "cronjobs-"},
		Spec:       svmv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}},
	}, metav1.CreateOptions{FieldManager: fieldManager})
	if err != nil {
		return "", fmt.Errorf("creating a StorageVersionMigration of %s: %w", crd.Name, err)
	}
	_, _ = fmt.Fprintf(o.Out, "StorageVersionMigration %s created\n", svm.Name)
	var failed *metav1.Condition
	err = wait.PollUntilContextTimeout(ctx, o.Poll, o.Timeout, false, func(ctx context.Context) (bool, error) {
		got, err := kube.StoragemigrationV1().StorageVersionMigrations().Get(ctx, svm.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // a read that failed is retried until the timeout
		}
		failed = meta.FindStatusCondition(got.Status.Conditions, string(svmv1.MigrationFailed))
		if failed != nil && failed.Status == metav1.ConditionTrue {
			return true, nil
		}
		failed = nil
		return meta.IsStatusConditionTrue(got.Status.Conditions, string(svmv1.MigrationSucceeded)), nil
	})
	switch {
	case failed != nil:
		return svm.Name, fmt.Errorf("StorageVersionMigration %s failed (%s: %s): fix the cause and run migrate again, or run it with --rewrite", svm.Name, failed.Reason, failed.Message)
	case err != nil:
		return svm.Name, fmt.Errorf("StorageVersionMigration %s did not succeed within %v (is kube-controller-manager's storage-version-migrator running?): run migrate again with --rewrite: %w", svm.Name, o.Timeout, err)
	}
	return svm.Name, nil
}

// rewriteAll writes every CronJob of every namespace back unchanged, so that the API server stores it in
// its storage version, and returns how many it wrote.
func rewriteAll(ctx context.Context, dyn dynamic.Interface, group, version string) (int, error) {
	res := dyn.Resource(schema.GroupVersionResource{Group: group, Version: version, Resource: "cronjobs"})
	n, cont := 0, ""
	for {
		list, err := res.List(ctx, metav1.ListOptions{Limit: 500, Continue: cont})
		if err != nil {
			return n, fmt.Errorf("listing CronJobs (after rewriting %d): %w", n, err)
		}
		for i := range list.Items {
			if err := rewrite(ctx, res, &list.Items[i]); err != nil {
				return n, err
			}
			n++
		}
		if cont = list.GetContinue(); cont == "" {
			return n, nil
		}
	}
}

// rewrite writes obj back unchanged; on a conflict it writes the newer object back (client-go's default
// retry: 5 attempts), and a CronJob gone meanwhile needs nothing.
func rewrite(ctx context.Context, res dynamic.NamespaceableResourceInterface, obj *unstructured.Unstructured) error {
	ns, name := obj.GetNamespace(), obj.GetName()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		_, err := res.Namespace(ns).Update(ctx, obj, metav1.UpdateOptions{FieldManager: fieldManager})
		if apierrors.IsConflict(err) {
			if newer, getErr := res.Namespace(ns).Get(ctx, name, metav1.GetOptions{}); getErr == nil {
				obj = newer
			}
		}
		return err
	})
	if err == nil || apierrors.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("rewriting CronJob %s/%s: %w", ns, name, err)
}

// cleanStoredVersions sets status.storedVersions to version alone (a StorageVersionMigration of
// Kubernetes 1.37 has usually done so already) and returns the list it leaves.
func cleanStoredVersions(ctx context.Context, c apiextensionsclient.Interface, version string) ([]string, error) {
	var after []string
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd, err := c.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, CronJobCRD, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if storageVersion(crd) != version {
			return fmt.Errorf("the storage version changed to %s while migrating to %s: run migrate again", storageVersion(crd), version)
		}
		if slices.Equal(crd.Status.StoredVersions, []string{version}) {
			after = crd.Status.StoredVersions
			return nil
		}
		crd.Status.StoredVersions = []string{version}
		out, err := c.ApiextensionsV1().CustomResourceDefinitions().UpdateStatus(ctx, crd, metav1.UpdateOptions{FieldManager: fieldManager})
		if err == nil {
			after = out.Status.StoredVersions
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("setting status.storedVersions of %s to [%s]: %w", CronJobCRD, version, err)
	}
	return after, nil
}

// migrateCommand is `kubectl cjo migrate`.
func (e *env) migrateCommand() *cobra.Command {
	var o MigrateOptions
	cmd := &cobra.Command{
		Use:   "migrate [--storage-version v2] [--rewrite]",
		Short: "Store every CronJob in the CRD's storage version and clean status.storedVersions (after an upgrade that changes the storage version)",
		Long: `Store every CronJob of the cluster in the CronJob CRD's storage version, then leave only that version in
the CRD's status.storedVersions, so that a later release may stop serving the older one.

With --storage-version v2 it first makes v2 the storage version (the documented step of README "API
versions"). It waits until the API server stores the new version, then rewrites the objects: with a
StorageVersionMigration where the cluster serves storagemigration.k8s.io/v1 (Kubernetes 1.37+), or by
reading and writing back every CronJob itself (--rewrite, or an older cluster). Every step may be
repeated; run it again after an error. Needs cluster-admin rights.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := e.f.RESTConfig()
			if err != nil {
				return err
			}
			o.Out = e.out
			_, err = Migrate(cmd.Context(), cfg, o)
			return err
		},
	}
	cmd.Flags().StringVar(&o.StorageVersion, "storage-version", "", "make this served version (v1 or v2) the storage version first")
	cmd.Flags().BoolVar(&o.Rewrite, "rewrite", false, "rewrite every CronJob here even where the cluster serves StorageVersionMigration")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 2*time.Minute, "how long each wait may take")
	return cmd
}
