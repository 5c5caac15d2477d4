package integration

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clientv3 "go.etcd.io/etcd/client/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/cmd/kubectl-cjo/plugin"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// storedAs reads the CronJob ns/name from etcd, as the API server stored it, and returns the apiVersion it
// was stored in: what the API server's reads never show.
func storedAs(ctx context.Context, ns, name string) string {
	GinkgoHelper()
	etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{fwk.Environment().ControlPlane.Etcd.URL.String()}, DialTimeout: 5 * time.Second})
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = etcd.Close() }()
	got, err := etcd.Get(ctx, "/registry/batch.cronjob-operator.dev/cronjobs/"+ns+"/"+name)
	Expect(err).NotTo(HaveOccurred())
	Expect(got.Kvs).To(HaveLen(1), "the CronJob %s/%s in etcd", ns, name)
	var stored metav1.TypeMeta // the object's own; managedFields name the versions of the writers
	Expect(json.Unmarshal(got.Kvs[0].Value, &stored)).To(Succeed())
	return stored.APIVersion
}

// crdClient is a live client of CustomResourceDefinitions (the manager's scheme has none).
func crdClient() client.Client {
	GinkgoHelper()
	s := runtime.NewScheme()
	Expect(apiextensionsv1.AddToScheme(s)).To(Succeed())
	c, err := client.New(cfg, client.Options{Scheme: s})
	Expect(err).NotTo(HaveOccurred())
	return c
}

func cronJobCRD(ctx context.Context) *apiextensionsv1.CustomResourceDefinition {
	GinkgoHelper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(crdClient().Get(ctx, client.ObjectKey{Name: plugin.CronJobCRD}, crd)).To(Succeed())
	return crd
}

// The storage version moves to v2 with `kubectl cjo migrate --storage-version v2` (plugin.Migrate), and
// back: this envtest has no kube-controller-manager, so the plugin rewrites the objects itself. The spec
// leaves the suite's CRD storing v1, as it found it.
var _ = Describe("Storage version migration", Ordered, func() {
	var ns string
	var madeInV1, madeInV2 *cronjobv1.CronJob

	BeforeAll(func(ctx SpecContext) {
		ns = newNamespace(ctx)
		madeInV1 = builders.MakeCronJob("made-in-v1", ns).Schedule("*/5 * * * *").LastScheduleTime(at("10:00:00")).Obj()
		Expect(framework.CreateCronJob(ctx, k8sClient, madeInV1)).To(Succeed())
		madeInV2 = builders.MakeCronJob("made-in-v2", ns).Schedule("0 * * * *").Obj()
		Expect(k8sClient.Create(ctx, asV2(madeInV2))).To(Succeed())
		Expect(storedAs(ctx, ns, madeInV1.Name)).To(Equal("batch.cronjob-operator.dev/v1"))
		Expect(storedAs(ctx, ns, madeInV2.Name)).To(Equal("batch.cronjob-operator.dev/v1"), "stored in the storage version, whatever it was written in")
		DeferCleanup(func(ctx SpecContext) {
			By("moving the storage version back to v1 for the specs that follow")
			res, err := plugin.Migrate(ctx, cfg, plugin.MigrateOptions{StorageVersion: "v1", Rewrite: true, Poll: 50 * time.Millisecond})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.StoredVersionsAfter).To(Equal([]string{"v1"}))
			Expect(storedAs(ctx, ns, madeInV2.Name)).To(Equal("batch.cronjob-operator.dev/v1"))
		})
	})

	It("should refuse a storage version the CRD does not serve, naming the ones it has", func(ctx SpecContext) {
		before := cronJobCRD(ctx).ResourceVersion

		_, err := plugin.Migrate(ctx, cfg, plugin.MigrateOptions{StorageVersion: "v3", Poll: 50 * time.Millisecond})

		Expect(err).To(MatchError(ContainSubstring("--storage-version v3: CustomResourceDefinition cronjobs.batch.cronjob-operator.dev serves no such version (it has [v1 v2])")))
		Expect(cronJobCRD(ctx).ResourceVersion).To(Equal(before), "nothing written")
	})

	It("should say to rewrite when a StorageVersionMigration finds no migrator to run it", func(ctx SpecContext) {
		_, err := plugin.Migrate(ctx, cfg, plugin.MigrateOptions{Timeout: 2 * time.Second, Poll: 50 * time.Millisecond})
		Expect(err).To(MatchError(ContainSubstring("did not succeed within 2s (is kube-controller-manager's storage-version-migrator running?): run migrate again with --rewrite")))
	})

	It("should store every CronJob as v2 and leave only v2 in status.storedVersions", func(ctx SpecContext) {
		Expect(cronJobCRD(ctx).Status.StoredVersions).To(Equal([]string{"v1"}))

		res, err := plugin.Migrate(ctx, cfg, plugin.MigrateOptions{StorageVersion: "v2", Rewrite: true, Poll: 50 * time.Millisecond})

		Expect(err).NotTo(HaveOccurred())
		Expect(res.StorageVersion).To(Equal("v2"))
		Expect(res.StoredVersionsBefore).To(Equal([]string{"v1"}))
		Expect(res.StoredVersionsAfter).To(Equal([]string{"v2"}))
		Expect(res.Rewritten).To(BeNumerically(">=", 2), "every CronJob of the cluster")
		Expect(storedAs(ctx, ns, madeInV1.Name)).To(Equal("batch.cronjob-operator.dev/v2"))
		Expect(storedAs(ctx, ns, madeInV2.Name)).To(Equal("batch.cronjob-operator.dev/v2"))
		crd := cronJobCRD(ctx)
		Expect(crd.Status.StoredVersions).To(Equal([]string{"v2"}))
		for _, v := range crd.Spec.Versions {
			Expect(v.Served).To(BeTrue(), "both versions stay served: %s", v.Name)
		}
	})

	It("should keep running the CronJobs, now stored as v2, on the controller's v1", func(ctx SpecContext) {
		clk := startController(ns, at("10:02:00"))

		clk.AdvanceTo(at("10:05:01"))

		job := onlyJob(ctx, ns)
		Expect(job.Name).To(Equal(jobNameFor(madeInV1, at("10:05:00"))))
		Eventually(func(g Gomega) {
			var got cronjobv1.CronJob
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(madeInV1), &got)).To(Succeed())
			g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", at("10:05:00")))
		}).Should(Succeed())
		Expect(storedAs(ctx, ns, madeInV1.Name)).To(Equal("batch.cronjob-operator.dev/v2"), "the controller's status writes in v1 are stored as v2")
	})

	It("should refuse a rollback to the v1-only CRD once v2 is stored, and change nothing", func(ctx SpecContext) {
		crd := cronJobCRD(ctx)
		before := crd.ResourceVersion
		v1Only := crd.DeepCopy()
		v1Only.Spec.Versions = v1Only.Spec.Versions[:0]
		for _, v := range crd.Spec.Versions {
			if v.Name == "v1" {
				v.Storage = true
				v1Only.Spec.Versions = append(v1Only.Spec.Versions, v)
			}
		}
		v1Only.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}

		err := crdClient().Update(ctx, v1Only)

		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring(`status.storedVersions[0]: Invalid value: "v2": missing from spec.versions`))
		Expect(cronJobCRD(ctx).ResourceVersion).To(Equal(before))
		var v1 cronjobv1.CronJob
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(madeInV2), &v1)).To(Succeed())
		Expect(v1.Spec.Schedule).To(Equal("0 * * * *"))
	})
})
