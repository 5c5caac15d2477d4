package main

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// Under OLM the manager's webhook serving certificate is OLM's: OLM issues it for the webhook Service it
// makes (<deployment>-service), keeps it in a Secret of its own, rotates it, writes its CA into the
// webhook configurations it makes and into the CronJob CRD's conversion, and mounts it into every
// container of the Deployment: volume webhook-cert at olmWebhookCertDir (tls.crt, tls.key, where the
// manager's --webhook-cert-path, -name and -key point by default) and volume apiservice-cert at
// olmAPIServiceCertDir (apiserver.crt, apiserver.key). OLM replaces volumes of those names; one of another
// name at either path would clash with its mount. So the manager stands aside: standAside turns its
// rotator off and drops its own certificate volume, and rotatorRules are left out of the CSV's RBAC.
const (
	olmWebhookCertDir    = "/tmp/k8s-webhook-server/serving-certs"
	olmAPIServiceCertDir = "/apiserver.local.config/certificates"
)

// olmCertVolumes are the names of the volumes OLM mounts its certificate from.
var olmCertVolumes = []string{"webhook-cert", "apiservice-cert"}

// rotatorFlags are the manager's flags for its own certificate rotation (flags.go). Under OLM they are
// replaced by olmFlags: no rotation, and no CRD whose conversion caBundle the manager writes.
var (
	rotatorFlags = []string{"webhook-cert-rotation", "webhook-cert-secret", "webhook-service", "validating-webhook-configuration", "conversion-crd"}
	olmFlags     = []string{"--webhook-cert-rotation=false", "--conversion-crd="}
)

// certFileFlags are the manager's flags that say where the webhook server reads its certificate, with the
// values that are OLM's mount (or no flag at all: these are the defaults).
var certFileFlags = map[string]string{
	"webhook-cert-path": olmWebhookCertDir,
	"webhook-cert-name": "tls.crt",
	"webhook-cert-key":  "tls.key",
}

// managerContainer is the name of the manager's container in the Deployment.
const managerContainer = "manager"

// standAside makes the manager's pod spec fit OLM's certificate, in place: in the manager container the
// rotator's flags give way to olmFlags; from every container the volume mounts at OLM's paths or with
// OLM's volume names go, and so do the volumes no container mounts any more. It returns the names of the
// Secrets those volumes held (the build's certificate Secret, which OLM's replaces). It returns an error,
// and changes nothing, if there is no manager container, if it does not serve webhooks (--enable-webhooks),
// or if it would read its certificate elsewhere than OLM mounts it.
func standAside(spec *corev1.PodSpec) ([]string, error) {
	i := slices.IndexFunc(spec.Containers, func(c corev1.Container) bool { return c.Name == managerContainer })
	if i < 0 {
		return nil, fmt.Errorf("the Deployment has no container %q", managerContainer)
	}
	args := spec.Containers[i].Args
	if v, ok := flagValue(args, "enable-webhooks"); !ok || v != "true" {
		return nil, fmt.Errorf("the manager's args %q lack --enable-webhooks: the CSV's webhook definitions need its webhook server", args)
	}
	for name, want := range certFileFlags {
		if v, ok := flagValue(args, name); ok && v != want {
			return nil, fmt.Errorf("the manager reads its webhook certificate from --%s=%s, OLM mounts it at %s (%s): drop the flag", name, v, want, olmWebhookCertDir)
		}
	}
	spec.Containers[i].Args = append(withoutFlags(args, rotatorFlags), olmFlags...)

	dropped := map[string]bool{}
	for c := range spec.Containers {
		spec.Containers[c].VolumeMounts = slices.DeleteFunc(spec.Containers[c].VolumeMounts, func(m corev1.VolumeMount) bool {
			olm := m.MountPath == olmWebhookCertDir || m.MountPath == olmAPIServiceCertDir || slices.Contains(olmCertVolumes, m.Name)
			if olm {
				dropped[m.Name] = true
			}
			return olm
		})
	}
	var secrets []string
	spec.Volumes = slices.DeleteFunc(spec.Volumes, func(v corev1.Volume) bool {
		if !dropped[v.Name] || mounted(spec, v.Name) {
			return false
		}
		if v.Secret != nil {
			secrets = append(secrets, v.Secret.SecretName)
		}
		return true
	})
	return secrets, nil
}

// mounted reports whether a container of spec mounts the volume name.
func mounted(spec *corev1.PodSpec, name string) bool {
	for _, c := range spec.Containers {
		if slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == name }) {
			return true
		}
	}
	return false
}

// flagValue returns the value of the last occurrence of flag name in args ("--name=v", "--name v", "-name=v";
// "--name" alone is "true", as for a boolean), and whether there is one.
func flagValue(args []string, name string) (string, bool) {
	value, found := "", false
	for i := 0; i < len(args); i++ {
		n, v, hasValue := splitFlag(args[i])
		if n != name {
			continue
		}
		found = true
		switch {
		case hasValue:
			value = v
		case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			value = args[i+1]
			i++
		default:
			value = "true"
		}
	}
	return value, found
}

// withoutFlags returns args without the flags named in names, and without the value argument of one
// written as "--name value".
func withoutFlags(args, names []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		n, _, hasValue := splitFlag(args[i])
		if !slices.Contains(names, n) {
			out = append(out, args[i])
			continue
		}
		if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
		}
	}
	return out
}

// splitFlag splits "--name=value" (or with one dash) into its name and value; name is "" for an argument
// that is not a flag.
func splitFlag(arg string) (name, value string, hasValue bool) {
	if !strings.HasPrefix(arg, "-") {
		return "", "", false
	}
	name, value, hasValue = strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name, value, hasValue
}

// rotatorRules are the resources of the manager's own certificate rotation (webhookcerts.go), each granted
// by name: its Secret, the validating webhook configuration and the CronJob CRD, whose caBundles it writes.
// Under OLM the rotator is off and OLM writes those caBundles, so withoutRotatorRules drops them.
var rotatorRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"secrets"}},
	{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"}},
	{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}},
}

// withoutRotatorRules returns rules without the rotator's resources: a rule limited to resourceNames loses
// every resource of rotatorRules of its API group, and goes when none is left. Rules not limited to names
// are kept whole: they are not the rotator's.
func withoutRotatorRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, r := range rules {
		if len(r.ResourceNames) == 0 {
			out = append(out, r)
			continue
		}
		r = *r.DeepCopy()
		r.Resources = slices.DeleteFunc(r.Resources, func(res string) bool { return isRotatorResource(r.APIGroups, res) })
		if len(r.Resources) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// isRotatorResource reports whether resource of one of groups is one of rotatorRules'.
func isRotatorResource(groups []string, resource string) bool {
	for _, rr := range rotatorRules {
		if slices.Contains(rr.Resources, resource) && slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(rr.APIGroups, g) }) {
			return true
		}
	}
	return false
}
