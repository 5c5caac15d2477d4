package main

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recordingTransport records the URL of the one request it is sent and answers it with 200.
type recordingTransport struct{ url string }

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.url = req.URL.String()
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: req}, nil
}

func TestNameScopedTransport(t *testing.T) {
	collections := map[string]string{
		"/api/v1/namespaces/op/secrets":                                       "cert",
		"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations": "mine",
	}
	cases := map[string]struct {
		// request
		method, url string
		// expectations
		wantURL string
	}{
		"list of the Secrets of the namespace asks for the one by name": {
			method: http.MethodGet, url: "https://api/api/v1/namespaces/op/secrets?limit=500",
			wantURL: "https://api/api/v1/namespaces/op/secrets?fieldSelector=metadata.name%3Dcert&limit=500",
		},
		"watch with a field selector ANDs the name to it": {
			method: http.MethodGet, url: "https://api/api/v1/namespaces/op/secrets?fieldSelector=type%3DOpaque&watch=true",
			wantURL: "https://api/api/v1/namespaces/op/secrets?fieldSelector=type%3DOpaque%2Cmetadata.name%3Dcert&watch=true",
		},
		"list behind a proxy's path prefix is scoped too": {
			method: http.MethodGet, url: "https://proxy/k8s/c1/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
			wantURL: "https://proxy/k8s/c1/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations?fieldSelector=metadata.name%3Dmine",
		},
		"Secrets of another namespace are left alone": {
			method: http.MethodGet, url: "https://api/api/v1/namespaces/other/secrets",
			wantURL: "https://api/api/v1/namespaces/other/secrets",
		},
		"get of one object is left alone": {
			method: http.MethodGet, url: "https://api/api/v1/namespaces/op/secrets/cert",
			wantURL: "https://api/api/v1/namespaces/op/secrets/cert",
		},
		"update is left alone": {
			method: http.MethodPut, url: "https://api/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
			wantURL: "https://api/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
		},
		"another collection is left alone": {
			method: http.MethodGet, url: "https://api/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
			wantURL: "https://api/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			next := &recordingTransport{}
			req, err := http.NewRequest(tc.method, tc.url, http.NoBody)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := nameScopedTransport{next: next, collections: collections}.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if diff := cmp.Diff(tc.wantURL, next.url); diff != "" {
				t.Errorf("URL sent (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.url, req.URL.String()); diff != "" {
				t.Errorf("the caller's request changed (-want,+got):\n%s", diff)
			}
		})
	}
}
