package parameters_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	"github.com/cronjob-operator/cronjob-operator/controllers/parameters"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// nightly declares DATE (a date pattern), MODE (an enum) and NOTE (free).
func nightly() *builders.CronJobWrapper {
	return builders.MakeCronJob("nightly", "ns").
		PatternParameter("DATE", "2026-01-01", `^\d{4}-\d{2}-\d{2}$`).
		EnumParameter("MODE", "full", "full", "delta").
		Parameter("NOTE", "")
}

func values(kv ...string) []cronjobv1.ParameterValue {
	var out []cronjobv1.ParameterValue
	for i := 0; i < len(kv); i += 2 {
		out = append(out, cronjobv1.ParameterValue{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

func TestCheck(t *testing.T) {
	manyValues := make([]string, 12)
	for i := range manyValues {
		manyValues[i] = string(rune('a' + i))
	}
	cases := map[string]struct {
		// spec
		cronJob *builders.CronJobWrapper
		given   []cronjobv1.ParameterValue
		// expectations
		want []string
	}{
		"no values: fit": {
			cronJob: nightly(),
		},
		"values in the enum and matching the pattern, and a free one: fit": {
			cronJob: nightly(), given: values("DATE", "2026-03-02", "MODE", "delta", "NOTE", "anything at all"),
		},
		"an empty value of a free parameter: fits": {
			cronJob: nightly(), given: values("NOTE", ""),
		},
		"a name the CronJob does not declare: refused, naming the declared ones": {
			cronJob: nightly(), given: values("DAY", "monday"),
			want: []string{`spec.parameters[DAY]: Invalid value: "monday": CronJob nightly declares no parameter DAY (it declares DATE, MODE, NOTE): remove the value or correct its name`},
		},
		"a value for a CronJob without parameters: refused": {
			cronJob: builders.MakeCronJob("plain", "ns"), given: values("DATE", "2026-03-02"),
			want: []string{`spec.parameters[DATE]: Invalid value: "2026-03-02": CronJob plain declares no parameter DATE (it declares none): remove the value or correct its name`},
		},
		"a name that differs in case: undeclared, as environment variables are case-sensitive": {
			cronJob: nightly(), given: values("date", "2026-03-02"),
			want: []string{`spec.parameters[date]: Invalid value: "2026-03-02": CronJob nightly declares no parameter date (it declares DATE, MODE, NOTE): remove the value or correct its name`},
		},
		"a value outside the enum: refused, listing the enum": {
			cronJob: nightly(), given: values("MODE", "fast"),
			want: []string{`spec.parameters[MODE]: Invalid value: "fast": is not one of the values of CronJob nightly's parameter MODE: "full", "delta"`},
		},
		"a value outside an enum of 12: the first 10 listed": {
			cronJob: builders.MakeCronJob("letters", "ns").EnumParameter("L", "a", manyValues...), given: values("L", "z"),
			want: []string{`spec.parameters[L]: Invalid value: "z": is not one of the values of CronJob letters's parameter L: "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" and 2 more`},
		},
		"a value not matching the pattern: refused, giving the pattern": {
			cronJob: nightly(), given: values("DATE", "2026-13-1"),
			want: []string{`spec.parameters[DATE]: Invalid value: "2026-13-1": does not match the pattern ^\d{4}-\d{2}-\d{2}$ of CronJob nightly's parameter DATE`},
		},
		"an unanchored pattern matches anywhere in the value, as CEL's matches()": {
			cronJob: builders.MakeCronJob("loose", "ns").PatternParameter("ID", "x1", `[0-9]`), given: values("ID", "abc7def"),
		},
		"a pattern that does not compile (stored before admission checked it): no value fits": {
			cronJob: builders.MakeCronJob("broken", "ns").PatternParameter("ID", "x", `(`), given: values("ID", "x"),
			want: []string{"spec.parameters[ID]: Invalid value: \"x\": cannot be checked: the pattern ( of CronJob broken's parameter ID does not compile (error parsing regexp: missing closing ): `(`): correct the CronJob's pattern"},
		},
		"two values that do not fit: both reported, in the run's order": {
			cronJob: nightly(), given: values("MODE", "fast", "DATE", "today"),
			want: []string{
				`spec.parameters[MODE]: Invalid value: "fast": is not one of the values of CronJob nightly's parameter MODE: "full", "delta"`,
				`spec.parameters[DATE]: Invalid value: "today": does not match the pattern ^\d{4}-\d{2}-\d{2}$ of CronJob nightly's parameter DATE`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, err := range parameters.Check(tc.cronJob.Obj(), tc.given) {
				got = append(got, err.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	cases := map[string]struct {
		declared *builders.CronJobWrapper
		given    []cronjobv1.ParameterValue
		want     []parameters.Value
	}{
		"no parameters declared: nothing, whatever is given": {
			declared: builders.MakeCronJob("plain", "ns"), given: values("DATE", "2026-03-02"),
		},
		"no values given (a scheduled run): the defaults, in declaration order": {
			declared: nightly(),
			want:     []parameters.Value{{Name: "DATE", Value: "2026-01-01"}, {Name: "MODE", Value: "full"}, {Name: "NOTE", Value: ""}},
		},
		"some values given, in another order: those, the defaults for the rest, in declaration order": {
			declared: nightly(), given: values("NOTE", "rerun", "DATE", "2026-03-02"),
			want: []parameters.Value{{Name: "DATE", Value: "2026-03-02"}, {Name: "MODE", Value: "full"}, {Name: "NOTE", Value: "rerun"}},
		},
		"an empty value given: empty, not the default": {
			declared: builders.MakeCronJob("c", "ns").Parameter("X", "default"), given: values("X", ""),
			want: []parameters.Value{{Name: "X", Value: ""}},
		},
		"an undeclared value given: left out": {
			declared: builders.MakeCronJob("c", "ns").Parameter("X", "x"), given: values("Y", "y"),
			want: []parameters.Value{{Name: "X", Value: "x"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := parameters.Resolve(tc.declared.Obj().Spec.Parameters, tc.given)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Resolve (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestApply(t *testing.T) {
	env := func(kv ...string) []corev1.EnvVar {
		var out []corev1.EnvVar
		for i := 0; i < len(kv); i += 2 {
			out = append(out, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	fromSecret := corev1.EnvVar{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "token"}}}
	dateMode := []parameters.Value{{Name: "DATE", Value: "2026-03-02"}, {Name: "MODE", Value: "delta"}}
	cases := map[string]struct {
		// spec
		pod    corev1.PodSpec
		values []parameters.Value
		// expectations
		want corev1.PodSpec
	}{
		"no values: the pod template unchanged": {
			pod:  corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Env: env("A", "1")}}},
			want: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Env: env("A", "1")}}},
		},
		"containers without env: the variables, in the order of the values": {
			pod:    corev1.PodSpec{Containers: []corev1.Container{{Name: "main"}}},
			values: dateMode,
			want:   corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Env: env("DATE", "2026-03-02", "MODE", "delta")}}},
		},
		"every container and init container gets them": {
			pod: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "fetch"}},
				Containers:     []corev1.Container{{Name: "main"}, {Name: "sidecar", Env: env("A", "1")}},
			},
			values: dateMode,
			want: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "fetch", Env: env("DATE", "2026-03-02", "MODE", "delta")}},
				Containers: []corev1.Container{
					{Name: "main", Env: env("DATE", "2026-03-02", "MODE", "delta")},
					{Name: "sidecar", Env: env("A", "1", "DATE", "2026-03-02", "MODE", "delta")},
				},
			},
		},
		"an env entry of the same name is overridden in its place, so entries after it can use $(NAME)": {
			pod:    corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Env: env("MODE", "full", "OUT", "/data/$(MODE)", "Z", "z")}}},
			values: dateMode,
			want:   corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Env: env("MODE", "delta", "OUT", "/data/$(MODE)", "Z", "z", "DATE", "2026-03-02")}}},
		},
		"an entry of the same name from a Secret: replaced by the value, valueFrom cleared": {
			pod:    corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Env: []corev1.EnvVar{fromSecret}}}},
			values: []parameters.Value{{Name: "TOKEN", Value: "t"}},
			want:   corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Env: env("TOKEN", "t")}}},
		},
		"the same name twice in the template: both replaced, so neither hides the value": {
			pod:    corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Env: env("MODE", "a", "MODE", "b")}}},
			values: dateMode,
			want:   corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Env: env("MODE", "delta", "MODE", "delta", "DATE", "2026-03-02")}}},
		},
		"envFrom is left alone: explicit env wins over it in Kubernetes": {
			pod: corev1.PodSpec{Containers: []corev1.Container{{Name: "main",
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}}}},
			values: dateMode[:1],
			want: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Env: env("DATE", "2026-03-02"),
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := *tc.pod.DeepCopy()
			parameters.Apply(&got, tc.values)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Apply (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestAnnotation(t *testing.T) {
	cases := map[string]struct {
		values []parameters.Value
		want   string
	}{
		"keys sorted, compact": {
			values: []parameters.Value{{Name: "MODE", Value: "full"}, {Name: "DATE", Value: "2026-01-01"}, {Name: "A_NOTE", Value: ""}},
			want:   `{"A_NOTE":"","DATE":"2026-01-01","MODE":"full"}`,
		},
		"quotes and newlines escaped, < and > as \\u escapes (encoding/json), UTF-8 kept": {
			values: []parameters.Value{{Name: "Q", Value: "a \"b\"\nc ü <d>"}},
			want:   `{"Q":"a \"b\"\nc ü \u003cd\u003e"}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, parameters.Annotation(tc.values)); diff != "" {
				t.Errorf("Annotation (-want,+got):\n%s", diff)
			}
		})
	}
}
