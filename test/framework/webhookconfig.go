package framework

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"
)

// AdmissionWebhookLabel is the namespace label that turns the installed admission webhooks off for the
// namespace when set to "off" (see CreateNamespaceWithoutWebhooks). It lets a spec create an object the
// webhooks would reject, as a cluster holds one admitted before the webhooks existed.
const AdmissionWebhookLabel = "test.cronjob-operator.dev/admission-webhook"

// webhookInstallOptions reads the webhook configurations of paths (files, not directories) and returns
// envtest options that install them, each webhook with a namespace selector that skips the namespaces
// labelled AdmissionWebhookLabel=off. Otherwise the configurations are installed as written.
func webhookInstallOptions(paths []string) (envtest.WebhookInstallOptions, error) {
	var opts envtest.WebhookInstallOptions
	for _, path := range paths {
		docs, err := readYAMLDocuments(path)
		if err != nil {
			return opts, err
		}
		for _, doc := range docs {
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				return opts, fmt.Errorf("decoding %s: %w", path, err)
			}
			switch meta.Kind {
			case "MutatingWebhookConfiguration":
				var c admissionv1.MutatingWebhookConfiguration
				if err := yaml.UnmarshalStrict(doc, &c); err != nil {
					return opts, fmt.Errorf("decoding %s: %w", path, err)
				}
				for i := range c.Webhooks {
					c.Webhooks[i].NamespaceSelector = webhookNamespaceSelector()
				}
				opts.MutatingWebhooks = append(opts.MutatingWebhooks, &c)
			case "ValidatingWebhookConfiguration":
				var c admissionv1.ValidatingWebhookConfiguration
				if err := yaml.UnmarshalStrict(doc, &c); err != nil {
					return opts, fmt.Errorf("decoding %s: %w", path, err)
				}
				for i := range c.Webhooks {
					c.Webhooks[i].NamespaceSelector = webhookNamespaceSelector()
				}
				opts.ValidatingWebhooks = append(opts.ValidatingWebhooks, &c)
			}
		}
	}
	if len(opts.MutatingWebhooks)+len(opts.ValidatingWebhooks) == 0 {
		return opts, fmt.Errorf("no webhook configurations in %v: run `make manifests`", paths)
	}
	return opts, nil
}

// webhookNamespaceSelector selects every namespace but those labelled AdmissionWebhookLabel=off.
func webhookNamespaceSelector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: AdmissionWebhookLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"off"},
	}}}
}

// readYAMLDocuments returns the non-empty documents of a multi-document YAML file.
func readYAMLDocuments(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading webhook configurations: %w", err)
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if len(bytes.TrimSpace(doc)) > 0 {
			docs = append(docs, doc)
		}
	}
}
