package main

import (
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// A build of a small config/manifests: the CSV base, a CRD served as v1 and v2 with a conversion webhook,
// the manager with config/default's webhook flags and certificate volume, its RBAC (the rotator's rules
// among them), a role for users, the webhook Service and configuration, the certificate Secret, a metrics
// Service, a PodDisruptionBudget, the Namespace and a sample.
const (
	buildBase = `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: op.v0.0.0
  annotations:
    capabilities: Basic Install
spec:
  displayName: Op
  installModes:
  - {type: AllNamespaces, supported: true}
  customresourcedefinitions:
    owned:
    - name: widgets.example.dev
      version: v1
      displayName: Widget
      resources: [{kind: Job, name: "", version: v1}]
      specDescriptors:
      - {path: size, displayName: Size}
      - {path: parts.count, displayName: Parts, description: Given by hand.}
      statusDescriptors:
      - {path: phase, displayName: Phase}
    - name: widgets.example.dev
      version: v2
      displayName: Widget
      resources: [{kind: Job, name: "", version: v1}]
`
	buildCRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.dev
spec:
  group: example.dev
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service: {name: op-webhook-service, namespace: op-system, path: /convert}
      conversionReviewVersions: [v1]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: Widget is a thing. It has parts.
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                description: |-
                  size is how big the widget is, in
                  centimetres. At most 100.
                type: integer
              parts:
                type: object
                properties:
                  count: {type: integer}
          status:
            type: object
            properties:
              phase: {type: string, description: phase is where the widget is}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
  - name: v3alpha1
    served: false
    storage: false
    schema:
      openAPIV3Schema:
        type: object
`
	buildManager = `---
apiVersion: v1
kind: Namespace
metadata:
  name: op-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: op-controller-manager
  namespace: op-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: op-manager-own-role
  namespace: op-system
rules:
- {apiGroups: [""], resources: [secrets], resourceNames: [op-webhook-server-cert], verbs: [list, watch, update]}
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [create]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: op-manager-role
rules:
- {apiGroups: [batch], resources: [jobs], verbs: [create, get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: op-manager-own-role
rules:
- {apiGroups: [apiextensions.k8s.io], resources: [customresourcedefinitions], resourceNames: [widgets.example.dev], verbs: [list, watch, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: op-widget-editor-role
  labels: {app.kubernetes.io/managed-by: kustomize, rbac.authorization.k8s.io/aggregate-to-edit: "true"}
rules:
- {apiGroups: [example.dev], resources: [widgets], verbs: [create, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: op-manager-own-rolebinding
  namespace: op-system
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: op-manager-own-role}
subjects:
- {kind: ServiceAccount, name: op-controller-manager, namespace: op-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: op-manager-rolebinding
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: op-manager-role}
subjects:
- {kind: ServiceAccount, name: op-controller-manager, namespace: op-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: op-manager-own-rolebinding
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: op-manager-own-role}
subjects:
- {kind: ServiceAccount, name: op-controller-manager, namespace: op-system}
---
apiVersion: v1
kind: Secret
metadata:
  name: op-webhook-server-cert
  namespace: op-system
---
apiVersion: v1
kind: Service
metadata:
  name: op-webhook-service
  namespace: op-system
spec:
  ports: [{port: 443, targetPort: 9443}]
  selector: {control-plane: controller-manager}
---
apiVersion: v1
kind: Service
metadata:
  name: op-metrics-service
  namespace: op-system
  labels: {app.kubernetes.io/managed-by: kustomize, control-plane: controller-manager}
spec:
  ports: [{name: https, port: 8443, targetPort: 8443}]
  selector: {control-plane: controller-manager}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: op-controller-manager
  namespace: op-system
  labels: {app.kubernetes.io/managed-by: kustomize, control-plane: controller-manager}
spec:
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      serviceAccountName: op-controller-manager
      containers:
      - name: manager
        image: controller:latest
        args: [--leader-elect, --enable-webhooks, --webhook-cert-secret=op-webhook-server-cert]
        volumeMounts:
        - {name: webhook-cert, mountPath: /tmp/k8s-webhook-server/serving-certs, readOnly: true}
      volumes:
      - name: webhook-cert
        secret: {secretName: op-webhook-server-cert, optional: true}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: op-controller-manager
  namespace: op-system
spec:
  minAvailable: 1
  selector:
    matchLabels: {control-plane: controller-manager}
`
	buildWebhooks = `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: op-validating-webhook-configuration
webhooks:
- name: vwidget-v1.example.dev
  admissionReviewVersions: [v1]
  clientConfig:
    service: {name: op-webhook-service, namespace: op-system, path: /validate-widget}
  failurePolicy: Fail
  sideEffects: None
  timeoutSeconds: 5
  matchConditions:
  - {name: not-status, expression: "true"}
  rules:
  - {apiGroups: [example.dev], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [widgets]}
`
	buildSamples = `---
apiVersion: example.dev/v2
kind: Widget
metadata:
  name: big
  namespace: default
  labels: {app.kubernetes.io/managed-by: kustomize}
spec:
  size: 90
---
apiVersion: example.dev/v1
kind: Widget
metadata:
  name: small
  namespace: default
spec:
  size: 3
`
	smallBuild = buildBase + buildCRD + buildManager + buildWebhooks + buildSamples
)

// testOptions are the options the tests make bundles for.
var testOptions = options{
	version:        semver.MustParse("1.2.3"),
	image:          "registry.example/op:v1.2.3",
	channels:       []string{"stable"},
	defaultChannel: "stable",
}

func TestMakeBundleCSV(t *testing.T) {
	b, err := makeBundle([]byte(smallBuild), testOptions)
	if err != nil {
		t.Fatalf("makeBundle() error = %v", err)
	}
	csv := b.csv
	if csv.Name != "cronjob-operator.v1.2.3" || csv.Spec.Version.String() != "1.2.3" {
		t.Errorf("name %s, version %s; want cronjob-operator.v1.2.3, 1.2.3", csv.Name, csv.Spec.Version)
	}
	if diff := cmp.Diff([]v1alpha1.RelatedImage{{Name: "manager", Image: testOptions.image}}, csv.Spec.RelatedImages); diff != "" {
		t.Errorf("relatedImages (-want,+got):\n%s", diff)
	}
	if got := csv.Annotations["containerImage"]; got != testOptions.image {
		t.Errorf("containerImage = %q, want %q", got, testOptions.image)
	}

	// The install strategy: the Deployment with the image, standing aside, without kustomize's label.
	deps := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	if len(deps) != 1 || deps[0].Name != "op-controller-manager" {
		t.Fatalf("deployments = %+v, want op-controller-manager only", deps)
	}
	if diff := cmp.Diff(map[string]string{"control-plane": "controller-manager"}, map[string]string(deps[0].Label)); diff != "" {
		t.Errorf("deployment label (-want,+got):\n%s", diff)
	}
	manager := deps[0].Spec.Template.Spec.Containers[0]
	if manager.Image != testOptions.image {
		t.Errorf("manager image = %q, want %q", manager.Image, testOptions.image)
	}
	if diff := cmp.Diff([]string{"--leader-elect", "--enable-webhooks", "--webhook-cert-rotation=false", "--conversion-crd="}, manager.Args); diff != "" {
		t.Errorf("manager args (-want,+got):\n%s", diff)
	}
	if n := len(manager.VolumeMounts) + len(deps[0].Spec.Template.Spec.Volumes); n != 0 {
		t.Errorf("the Deployment keeps %d certificate volumes and mounts, want none", n)
	}

	// RBAC: what is bound to the ServiceAccount, without the rotator's rules.
	wantPerms := []v1alpha1.StrategyDeploymentPermissions{{ServiceAccountName: "op-controller-manager", Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
	}}}
	if diff := cmp.Diff(wantPerms, csv.Spec.InstallStrategy.StrategySpec.Permissions); diff != "" {
		t.Errorf("permissions (-want,+got):\n%s", diff)
	}
	wantClusterPerms := []v1alpha1.StrategyDeploymentPermissions{{ServiceAccountName: "op-controller-manager", Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"create", "get", "list", "watch"}},
	}}}
	if diff := cmp.Diff(wantClusterPerms, csv.Spec.InstallStrategy.StrategySpec.ClusterPermissions); diff != "" {
		t.Errorf("clusterPermissions (-want,+got):\n%s", diff)
	}

	// Webhooks: the conversion webhook and the validating one, by name, with the Service's ports.
	wantWebhooks := []v1alpha1.WebhookDescription{
		{
			GenerateName: "cwidgets.example.dev", Type: v1alpha1.ConversionWebhook, DeploymentName: "op-controller-manager",
			ContainerPort: 443, TargetPort: ptr.To(intstr.FromInt32(9443)), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"}, WebhookPath: ptr.To("/convert"), ConversionCRDs: []string{"widgets.example.dev"},
		},
		{
			GenerateName: "vwidget-v1.example.dev", Type: v1alpha1.ValidatingAdmissionWebhook, DeploymentName: "op-controller-manager",
			ContainerPort: 443, TargetPort: ptr.To(intstr.FromInt32(9443)),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE"},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.dev"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
			}},
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds: ptr.To[int32](5), AdmissionReviewVersions: []string{"v1"}, WebhookPath: ptr.To("/validate-widget"),
		},
	}
	if diff := cmp.Diff(wantWebhooks, csv.Spec.WebhookDefinitions); diff != "" {
		t.Errorf("webhookdefinitions (-want,+got):\n%s", diff)
	}
	if len(b.notes) != 1 || !strings.Contains(b.notes[0], "vwidget-v1.example.dev: its matchConditions") {
		t.Errorf("notes = %q, want one on vwidget-v1.example.dev's matchConditions", b.notes)
	}

	// Owned CRDs: the served versions, descriptions from the schema where the base gives none.
	owned := csv.Spec.CustomResourceDefinitions.Owned
	var got [][]string
	for _, d := range owned {
		row := []string{d.Version, d.Kind, d.Description}
		for _, s := range d.SpecDescriptors {
			row = append(row, s.Path+": "+s.Description)
		}
		for _, s := range d.StatusDescriptors {
			row = append(row, s.Path+": "+s.Description)
		}
		got = append(got, row)
	}
	want := [][]string{
		{"v1", "Widget", "Widget is a thing.", "size: size is how big the widget is, in centimetres.", "parts.count: Given by hand.", "phase: phase is where the widget is"},
		{"v2", "Widget", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("owned CRDs: version, kind, description, descriptors (-want,+got):\n%s", diff)
	}

	wantExamples := `[
  {
    "apiVersion": "example.dev/v1",
    "kind": "Widget",
    "metadata": {
      "name": "small"
    },
    "spec": {
      "size": 3
    }
  },
  {
    "apiVersion": "example.dev/v2",
    "kind": "Widget",
    "metadata": {
      "name": "big"
    },
    "spec": {
      "size": 90
    }
  }
]`
	if diff := cmp.Diff(wantExamples, csv.Annotations["alm-examples"]); diff != "" {
		t.Errorf("alm-examples (-want,+got):\n%s", diff)
	}
}

func TestMakeBundleShips(t *testing.T) {
	b, err := makeBundle([]byte(smallBuild), testOptions)
	if err != nil {
		t.Fatalf("makeBundle() error = %v", err)
	}
	var got []string
	for _, o := range b.others {
		got = append(got, o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()+" "+strings.Join(sortedKeys(toAny(o.GetLabels())), ","))
	}
	// Not the Namespace, ServiceAccount, bound RBAC, webhook Service or certificate Secret; no namespace
	// and no managed-by label on what ships.
	want := []string{
		"ClusterRole//op-widget-editor-role rbac.authorization.k8s.io/aggregate-to-edit",
		"Service//op-metrics-service control-plane",
		"PodDisruptionBudget//op-controller-manager ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects shipped as they are (-want,+got):\n%s", diff)
	}
	if len(b.crds) != 1 || b.crds[0].GetName() != "widgets.example.dev" {
		t.Errorf("CRDs = %d, want widgets.example.dev", len(b.crds))
	}
}

func TestMakeBundleRefuses(t *testing.T) {
	cases := map[string]struct {
		build   string
		wantErr string
	}{
		"a served version the base does not describe": {
			build:   strings.Replace(smallBuild, "  - name: v3alpha1\n    served: false", "  - name: v3alpha1\n    served: true", 1),
			wantErr: "no owned entry for version v3alpha1",
		},
		"a base entry for a version the build does not serve": {
			build:   strings.Replace(smallBuild, "  - name: v2\n    served: true", "  - name: v2\n    served: false", 1),
			wantErr: "owned entry for version v2 of CRD widgets.example.dev, which the build does not serve",
		},
		"a descriptor of a field the schema lacks": {
			build:   strings.Replace(smallBuild, "{path: parts.count,", "{path: parts.total,", 1),
			wantErr: "spec.parts.total is not a field of the schema",
		},
		"a webhook calling a Service the build lacks": {
			build:   strings.Replace(smallBuild, "{name: op-webhook-service, namespace: op-system, path: /validate-widget}", "{name: other, namespace: op-system, path: /validate-widget}", 1),
			wantErr: "calls Service other, which the build lacks",
		},
		"a webhook Service that selects other Pods": {
			build:   strings.Replace(smallBuild, "  ports: [{port: 443, targetPort: 9443}]\n  selector: {control-plane: controller-manager}", "  ports: [{port: 443, targetPort: 9443}]\n  selector: {control-plane: other}", 1),
			wantErr: "does not select the Pods",
		},
		"a mutating webhook": {
			build:   smallBuild + "---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: m\n",
			wantErr: "MutatingWebhookConfiguration m",
		},
		"a kind a bundle cannot hold": {
			build:   smallBuild + "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n",
			wantErr: "cannot hold a DaemonSet",
		},
		"a second Deployment": {
			build:   smallBuild + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: other\n",
			wantErr: "more than one Deployment",
		},
		"no CSV base": {
			build:   strings.TrimPrefix(buildCRD+buildManager, "---\n"),
			wantErr: "no ClusterServiceVersion",
		},
		"a manager that does not serve webhooks": {
			build:   strings.Replace(smallBuild, "--enable-webhooks, ", "", 1),
			wantErr: "lack --enable-webhooks",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := makeBundle([]byte(tc.build), testOptions)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("makeBundle() error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestFirstSentence(t *testing.T) {
	cases := map[string]struct{ desc, want string }{
		"two sentences over lines":  {desc: "size is how big,\nin cm. At most 100.", want: "size is how big, in cm."},
		"a URL's dots do not end":   {desc: "see https://en.wikipedia.org/wiki/Cron. More.", want: "see https://en.wikipedia.org/wiki/Cron."},
		"one sentence, no stop":     {desc: "phase is where it is", want: "phase is where it is"},
		"a stop at the very end":    {desc: "phase is where it is.", want: "phase is where it is."},
		"no description":            {desc: "", want: ""},
		"a list after a colon line": {desc: "policy says what:\nAllow runs. Forbid skips.", want: "policy says what: Allow runs."},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := firstSentence(tc.desc); got != tc.want {
				t.Errorf("firstSentence(%q) = %q, want %q", tc.desc, got, tc.want)
			}
		})
	}
}

// toAny returns m as a map of any, for sortedKeys.
func toAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}
