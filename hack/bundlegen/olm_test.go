package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// certVolume is config/default's webhook certificate volume, and certMount its mount.
var (
	certVolume = corev1.Volume{Name: "webhook-cert", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "op-webhook-server-cert"}}}
	certMount  = corev1.VolumeMount{Name: "webhook-cert", MountPath: olmWebhookCertDir, ReadOnly: true}
	tmpVolume  = corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	tmpMount   = corev1.VolumeMount{Name: "tmp", MountPath: "/tmp/work"}
)

func TestStandAside(t *testing.T) {
	cases := map[string]struct {
		// the manager's pod spec
		args    []string
		mounts  []corev1.VolumeMount
		volumes []corev1.Volume
		sidecar *corev1.Container
		// expectations
		wantArgs    []string
		wantMounts  []corev1.VolumeMount
		wantVolumes []corev1.Volume
		wantSecrets []string
		wantErr     string
	}{
		"config/default's manager: the rotator's flags and certificate volume give way to OLM's": {
			args: []string{"--leader-elect", "--enable-webhooks", "--webhook-cert-secret=op-webhook-server-cert",
				"--webhook-service=op-webhook-service", "--validating-webhook-configuration=op-validating-webhook-configuration"},
			mounts:      []corev1.VolumeMount{certMount, tmpMount},
			volumes:     []corev1.Volume{certVolume, tmpVolume},
			wantArgs:    []string{"--leader-elect", "--enable-webhooks", "--webhook-cert-rotation=false", "--conversion-crd="},
			wantMounts:  []corev1.VolumeMount{tmpMount},
			wantVolumes: []corev1.Volume{tmpVolume},
			wantSecrets: []string{"op-webhook-server-cert"},
		},
		"rotation already off, a conversion CRD named with a separate value": {
			args:     []string{"--enable-webhooks=true", "--webhook-cert-rotation=false", "--conversion-crd", "cronjobs.example.dev", "--leader-elect"},
			wantArgs: []string{"--enable-webhooks=true", "--leader-elect", "--webhook-cert-rotation=false", "--conversion-crd="},
		},
		"the default certificate files named explicitly": {
			args:     []string{"--enable-webhooks", "--webhook-cert-path=" + olmWebhookCertDir, "--webhook-cert-name=tls.crt", "--webhook-cert-key=tls.key"},
			wantArgs: []string{"--enable-webhooks", "--webhook-cert-path=" + olmWebhookCertDir, "--webhook-cert-name=tls.crt", "--webhook-cert-key=tls.key", "--webhook-cert-rotation=false", "--conversion-crd="},
		},
		"a volume of another name at OLM's apiservice path, also mounted by a sidecar": {
			args:    []string{"--enable-webhooks"},
			mounts:  []corev1.VolumeMount{{Name: "certs", MountPath: olmAPIServiceCertDir}},
			volumes: []corev1.Volume{{Name: "certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "mine"}}}},
			sidecar: &corev1.Container{Name: "proxy", VolumeMounts: []corev1.VolumeMount{{Name: "certs", MountPath: "/certs"}}},
			// The manager's mount goes; the volume stays for the sidecar's mount elsewhere.
			wantArgs:    []string{"--enable-webhooks", "--webhook-cert-rotation=false", "--conversion-crd="},
			wantVolumes: []corev1.Volume{{Name: "certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "mine"}}}},
		},
		"no webhooks served": {
			args:    []string{"--leader-elect"},
			wantErr: "lack --enable-webhooks",
		},
		"webhooks turned off": {
			args:    []string{"--enable-webhooks=false"},
			wantErr: "lack --enable-webhooks",
		},
		"the certificate read from elsewhere": {
			args:    []string{"--enable-webhooks", "--webhook-cert-path=/certs"},
			wantErr: "--webhook-cert-path=/certs",
		},
		"another certificate file name": {
			args:    []string{"--enable-webhooks", "--webhook-cert-name=cert.pem"},
			wantErr: "--webhook-cert-name=cert.pem",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &corev1.PodSpec{
				Containers: []corev1.Container{{Name: managerContainer, Args: tc.args, VolumeMounts: tc.mounts}},
				Volumes:    tc.volumes,
			}
			if tc.sidecar != nil {
				spec.Containers = append(spec.Containers, *tc.sidecar)
			}
			secrets, err := standAside(spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("standAside() error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("standAside() error = %v", err)
			}
			if diff := cmp.Diff(tc.wantArgs, spec.Containers[0].Args); diff != "" {
				t.Errorf("args (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantMounts, spec.Containers[0].VolumeMounts, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("mounts (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantVolumes, spec.Volumes, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("volumes (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSecrets, secrets, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("certificate Secrets (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestStandAsideNeedsTheManagerContainer(t *testing.T) {
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "operator", Args: []string{"--enable-webhooks"}}}}
	if _, err := standAside(spec); err == nil || !strings.Contains(err.Error(), `no container "manager"`) {
		t.Fatalf("standAside() error = %v, want no container \"manager\"", err)
	}
}

func TestWithoutRotatorRules(t *testing.T) {
	events := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}}
	lease := rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{"op"}, Verbs: []string{"get", "update"}}
	cases := map[string]struct {
		rules []rbacv1.PolicyRule
		want  []rbacv1.PolicyRule
	}{
		"own_role.yaml's Role: the Secret goes, events and the Lease stay": {
			rules: []rbacv1.PolicyRule{
				events,
				{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"op-webhook-server-cert"}, Verbs: []string{"list", "watch", "update"}},
				lease,
			},
			want: []rbacv1.PolicyRule{events, lease},
		},
		"own_role.yaml's ClusterRole: nothing is left": {
			rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"}, ResourceNames: []string{"op"}, Verbs: []string{"list", "watch", "update"}},
				{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, ResourceNames: []string{"cronjobs.example.dev"}, Verbs: []string{"list", "watch", "update"}},
			},
		},
		"a rule not limited to names is not the rotator's": {
			rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}},
			want:  []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}},
		},
		"a named rule on a rotator resource and another keeps the other": {
			rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}, ResourceNames: []string{"x"}, Verbs: []string{"get"}}},
			want:  []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"x"}, Verbs: []string{"get"}}},
		},
		"secrets of another group are not the rotator's": {
			rules: []rbacv1.PolicyRule{{APIGroups: []string{"example.dev"}, Resources: []string{"secrets"}, ResourceNames: []string{"x"}, Verbs: []string{"get"}}},
			want:  []rbacv1.PolicyRule{{APIGroups: []string{"example.dev"}, Resources: []string{"secrets"}, ResourceNames: []string{"x"}, Verbs: []string{"get"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, withoutRotatorRules(tc.rules), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("withoutRotatorRules() (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestFlagValue(t *testing.T) {
	args := []string{"--enable-webhooks", "--zap-log-level", "debug", "-webhook-cert-path=/a", "--webhook-cert-path=/b", "--leader-elect=false"}
	cases := map[string]struct {
		name      string
		want      string
		wantFound bool
	}{
		"a boolean alone is true":             {name: "enable-webhooks", want: "true", wantFound: true},
		"a separate value":                    {name: "zap-log-level", want: "debug", wantFound: true},
		"the last of two, one or two dashes":  {name: "webhook-cert-path", want: "/b", wantFound: true},
		"a boolean given false":               {name: "leader-elect", want: "false", wantFound: true},
		"a flag that is not there":            {name: "conversion-crd"},
		"a value is not a flag of that name":  {name: "debug"},
		"a prefix of a flag is not that flag": {name: "enable"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, found := flagValue(args, tc.name)
			if got != tc.want || found != tc.wantFound {
				t.Errorf("flagValue(%q) = %q, %v, want %q, %v", tc.name, got, found, tc.want, tc.wantFound)
			}
		})
	}
}
