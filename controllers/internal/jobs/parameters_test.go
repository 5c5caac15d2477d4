package jobs_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/internal/jobs"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
)

func TestNewWithParameters(t *testing.T) {
	env := func(kv ...string) []corev1.EnvVar {
		var out []corev1.EnvVar
		for i := 0; i < len(kv); i += 2 {
			out = append(out, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	withParameters := func() *cronjobv1.CronJob {
		return Hourly().PatternParameter("DATE", "2026-01-01", `^\d{4}-\d{2}-\d{2}$`).EnumParameter("MODE", "full", "full", "delta").
			Env("MODE", "from-template").Env("KEEP", "kept").InitContainer("fetch", "true").Obj()
	}
	cases := map[string]struct {
		// spec
		cronJob *cronjobv1.CronJob
		given   []cronjobv1.ParameterValue
		// expectations
		wantAnnotation string // "" means none
		wantMain       []corev1.EnvVar
		wantInit       []corev1.EnvVar
	}{
		"a scheduled run (no values): the defaults, the template's MODE overridden in its place": {
			cronJob:        withParameters(),
			wantAnnotation: `{"DATE":"2026-01-01","MODE":"full"}`,
			wantMain:       env("MODE", "full", "KEEP", "kept", "DATE", "2026-01-01"),
			wantInit:       env("DATE", "2026-01-01", "MODE", "full"),
		},
		"a run that gives DATE: its value, MODE's default": {
			cronJob: withParameters(), given: []cronjobv1.ParameterValue{{Name: "DATE", Value: "2026-03-02"}},
			wantAnnotation: `{"DATE":"2026-03-02","MODE":"full"}`,
			wantMain:       env("MODE", "full", "KEEP", "kept", "DATE", "2026-03-02"),
			wantInit:       env("DATE", "2026-03-02", "MODE", "full"),
		},
		"a CronJob without parameters: no annotation, the template's env as it is, whatever the run gives": {
			cronJob:  Hourly().Env("MODE", "from-template").InitContainer("fetch", "true").Obj(),
			given:    []cronjobv1.ParameterValue{{Name: "MODE", Value: "delta"}},
			wantMain: env("MODE", "from-template"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := jobs.NewWithParameters(tc.cronJob, TopOfTheHour, time.UTC, created, tc.given)
			annotation, ok := job.Annotations[cronjobv1.ParametersAnnotation]
			if diff := cmp.Diff(tc.wantAnnotation, annotation); diff != "" || ok != (tc.wantAnnotation != "") {
				t.Errorf("annotation %s (present %v) (-want,+got):\n%s", cronjobv1.ParametersAnnotation, ok, diff)
			}
			pod := job.Spec.Template.Spec
			if diff := cmp.Diff(tc.wantMain, pod.Containers[0].Env); diff != "" {
				t.Errorf("env of the container (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantInit, pod.InitContainers[0].Env); diff != "" {
				t.Errorf("env of the init container (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(withoutEnv(tc.cronJob.Spec.JobTemplate.Spec.Template.Spec), withoutEnv(pod)); diff != "" {
				t.Errorf("pod template besides env (-template,+job): only env may change:\n%s", diff)
			}
		})
	}
}

// withoutEnv is the pod spec with the env of its containers cleared.
func withoutEnv(spec corev1.PodSpec) corev1.PodSpec {
	spec = *spec.DeepCopy()
	for i := range spec.Containers {
		spec.Containers[i].Env = nil
	}
	for i := range spec.InitContainers {
		spec.InitContainers[i].Env = nil
	}
	return spec
}

// TestNewWithoutParametersIsTheJobOfBefore pins the Job of a CronJob without parameters to its JSON from
// before parameters existed (this test's golden, produced by jobs.New of that release): declaring none must
// change no byte of any Job, whatever a run gives.
func TestNewWithoutParametersIsTheJobOfBefore(t *testing.T) {
	const golden = `{"metadata":{"name":"hourly-29540760","namespace":"ns","labels":{"app":"hourly","batch.cronjob-operator.dev/trigger":"schedule"},"annotations":{"batch.cronjob-operator.dev/created-at":"2026-03-02T10:00:01.25Z","batch.cronjob-operator.dev/scheduled-at":"2026-03-02T10:00:00Z","batch.kubernetes.io/cronjob-scheduled-timestamp":"2026-03-02T10:00:00Z"},"ownerReferences":[{"apiVersion":"batch.cronjob-operator.dev/v1","kind":"CronJob","name":"hourly","uid":"cj-uid","controller":true,"blockOwnerDeletion":true}]},"spec":{"template":{"metadata":{},"spec":{"initContainers":[{"name":"fetch","image":"busybox","command":["true"],"resources":{}}],"containers":[{"name":"main","image":"busybox","command":["sh","-c","date"],"env":[{"name":"MODE","value":"from-template"}],"resources":{}}],"restartPolicy":"Never"}}},"status":{}}`
	cj := Hourly().Env("MODE", "from-template").InitContainer("fetch", "true").Obj()
	for name, job := range map[string]any{
		"New":                                 jobs.New(cj, TopOfTheHour, time.UTC, created),
		"NewWithParameters, no values":        jobs.NewWithParameters(cj, TopOfTheHour, time.UTC, created, nil),
		"NewWithParameters, a value for MODE": jobs.NewWithParameters(cj, TopOfTheHour, time.UTC, created, []cronjobv1.ParameterValue{{Name: "MODE", Value: "delta"}}),
	} {
		got, err := json.Marshal(job)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(golden, string(got)); diff != "" {
			t.Errorf("%s: Job JSON (-before,+now):\n%s", name, diff)
		}
	}
}
