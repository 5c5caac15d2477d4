package main

import (
	"net/http"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// nameScopedConfig returns a copy of cfg whose list and watch requests of the given collections ask for one
// object only, by adding the field selector metadata.name=<name> (ANDed with any the request has).
// collections maps the URL path of a collection, as the API server serves it (for example
// /api/v1/namespaces/ns/secrets, or /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations),
// to the name of the one object to read; a path in front of it (a proxy's, in cfg.Host) is allowed. Other
// requests are sent as they are.
//
// The API server authorizes a list or watch with such a selector as a request for that name, so an informer
// made from this config needs RBAC on that name only (resourceNames), not on the whole collection.
func nameScopedConfig(cfg *rest.Config, collections map[string]string) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return nameScopedTransport{next: rt, collections: collections}
	})
	return out
}

// nameScopedTransport adds the metadata.name field selector of nameScopedConfig.
type nameScopedTransport struct {
	next        http.RoundTripper
	collections map[string]string
}

// RoundTrip implements http.RoundTripper; it does not change req, only the copy it sends.
func (t nameScopedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		return t.next.RoundTrip(req)
	}
	for path, name := range t.collections {
		if !strings.HasSuffix(req.URL.Path, path) {
			continue
		}
		q := req.URL.Query()
		selector := "metadata.name=" + name
		if s := q.Get("fieldSelector"); s != "" {
			selector = s + "," + selector
		}
		q.Set("fieldSelector", selector)
		scoped := req.Clone(req.Context())
		scoped.URL.RawQuery = q.Encode()
		return t.next.RoundTrip(scoped)
	}
	return t.next.RoundTrip(req)
}

// configManager is a manager whose GetConfig returns cfg; everything else is the manager's. It hands a
// library that builds its own clients from GetConfig (cert-controller's rotator makes its cache so) a
// narrower config than the manager's.
type configManager struct {
	manager.Manager
	cfg *rest.Config
}

// GetConfig implements manager.Manager.
func (m configManager) GetConfig() *rest.Config { return m.cfg }
