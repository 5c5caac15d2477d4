package main

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Where OLM mounts the webhook serving certificate it issues into every container of a CSV's Deployment
// (volume webhook-cert: tls.crt, tls.key), and the Service it issues it for: <deployment>-service.
const (
	olmCertDir     = "/tmp/k8s-webhook-server/serving-certs"
	olmCertVolume  = "webhook-cert"
	olmServiceHost = "cronjob-operator-controller-manager-service.operators.svc"
)

// bundleCSV is the OLM bundle's CSV (make bundle, hack/bundlegen).
var bundleCSV = filepath.Join("dist", "bundle", "manifests", "cronjob-operator.clusterserviceversion.yaml")

// TestOLMBundleManagerStandsAside parses the manager's args in the bundle's CSV with the manager's own flags,
// as the manager will under OLM, and checks that it stands aside for OLM's certificate: no rotator (so
// readiness waits for no Secret of ours and nothing writes a caBundle OLM keeps), no CRD conversion to
// inject into, the webhook server reading tls.crt and tls.key where OLM mounts them, and no volume of its
// own there. It then serves a certificate from such files, as OLM's mount would hold.
func TestOLMBundleManagerStandsAside(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile(bundleCSV)
	g.Expect(err).NotTo(HaveOccurred())
	var csv v1alpha1.ClusterServiceVersion
	g.Expect(yaml.Unmarshal(data, &csv)).To(Succeed())
	deps := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	g.Expect(deps).To(HaveLen(1))
	pod := deps[0].Spec.Template.Spec
	i := slices.IndexFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == "manager" })
	g.Expect(i).NotTo(BeNumerically("<", 0), "the CSV's Deployment has no manager container")
	manager := pod.Containers[i]

	var o options
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	g.Expect(o.parse(fs, manager.Args)).To(Succeed(), "the CSV's args %q", manager.Args)
	g.Expect(o.enableWebhooks).To(BeTrue(), "--enable-webhooks: the CSV defines webhooks")
	g.Expect(o.certs.rotate).To(BeFalse(), "--webhook-cert-rotation: OLM issues and rotates the certificate")
	g.Expect(o.certs.conversion).To(BeEmpty(), "--conversion-crd: OLM writes the CronJob CRD's conversion caBundle")
	if diff := cmp.Diff(certFiles{dir: olmCertDir, name: "tls.crt", key: "tls.key"}, o.servers.webhookCert, cmp.AllowUnexported(certFiles{})); diff != "" {
		t.Errorf("the webhook server's certificate files (-OLM's mount,+read):\n%s", diff)
	}
	for _, m := range manager.VolumeMounts {
		g.Expect(m.MountPath).NotTo(Equal(olmCertDir), "volume %s is mounted where OLM mounts the certificate", m.Name)
	}
	for _, v := range pod.Volumes {
		g.Expect(v.Name).NotTo(Equal(olmCertVolume), "OLM replaces a volume of that name with its own")
	}

	// Without the rotator the webhooks are registered at once: readiness waits for no certificate Secret.
	ready, err := addWebhookCertRotator(nil, o.certs)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ready).To(BeClosed())

	// The webhook server serves the certificate in those files (a stand-in directory for OLM's mount).
	opts := o.servers
	opts.webhookCert.dir = writeCert(t, olmServiceHost, o.servers.webhookCert.name, o.servers.webhookCert.key)
	addr := startWebhookServer(t, opts)
	g.Eventually(func() ([]string, error) {
		state, err := handshake(addr)
		if err != nil {
			return nil, err
		}
		return state.PeerCertificates[0].DNSNames, nil
	}).WithTimeout(serverWait).Should(ContainElement(olmServiceHost))
}
