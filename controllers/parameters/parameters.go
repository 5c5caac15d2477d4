package parameters

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// Value is the value one parameter has in a run.
type Value struct {
	Name  string
	Value string
}

// Resolve returns the value of each parameter of declared, in declaration order: the one given names,
// else the parameter's default. Values of names declared does not hold are left out (Check reports them).
// It returns nil when declared is empty, so that a CronJob without parameters changes nothing.
func Resolve(declared []cronjobv1.Parameter, given []cronjobv1.ParameterValue) []Value {
	if len(declared) == 0 {
		return nil
	}
	values := make([]Value, 0, len(declared))
	for _, p := range declared {
		v := Value{Name: p.Name, Value: p.Default}
		if i := slices.IndexFunc(given, func(g cronjobv1.ParameterValue) bool { return g.Name == p.Name }); i >= 0 {
			v.Value = given[i].Value
		}
		values = append(values, v)
	}
	return values
}

// maxEnumListed is how many items of an enum the message of a value outside it lists.
const maxEnumListed = 10

// Check returns one error per value of given that does not fit the parameters cj declares, at
// spec.parameters[NAME] of the CronJobRun, each naming the CronJob, the parameter and what would fit: a
// name cj does not declare, a value not in the parameter's enum, a value not matching its pattern (a
// pattern that does not compile fits no value: the CRD refuses one, as its rule that the default matches
// the pattern fails to evaluate). An empty list means the values fit; a CronJob without parameters fits
// no value.
func Check(cj *cronjobv1.CronJob, given []cronjobv1.ParameterValue) field.ErrorList {
	var errs field.ErrorList
	for _, g := range given {
		path := field.NewPath("spec", "parameters").Key(g.Name)
		i := slices.IndexFunc(cj.Spec.Parameters, func(p cronjobv1.Parameter) bool { return p.Name == g.Name })
		if i < 0 {
			errs = append(errs, field.Invalid(path, g.Value, fmt.Sprintf("CronJob %s declares no parameter %s (%s): remove the value or correct its name",
				cj.Name, g.Name, declaredNames(cj.Spec.Parameters))))
			continue
		}
		p := &cj.Spec.Parameters[i]
		switch {
		case len(p.Enum) > 0 && !slices.Contains(p.Enum, g.Value):
			errs = append(errs, field.Invalid(path, g.Value, fmt.Sprintf("is not one of the values of CronJob %s's parameter %s: %s",
				cj.Name, p.Name, quotedList(p.Enum, maxEnumListed))))
		case p.Pattern != nil:
			re, err := regexp.Compile(*p.Pattern)
			if err != nil {
				errs = append(errs, field.Invalid(path, g.Value, fmt.Sprintf("cannot be checked: the pattern %s of CronJob %s's parameter %s does not compile (%v): correct the CronJob's pattern",
					*p.Pattern, cj.Name, p.Name, err)))
			} else if !re.MatchString(g.Value) {
				errs = append(errs, field.Invalid(path, g.Value, fmt.Sprintf("does not match the pattern %s of CronJob %s's parameter %s",
					*p.Pattern, cj.Name, p.Name)))
			}
		}
	}
	return errs
}

// Apply sets each value as the environment variable of its name in every container and init container of
// spec: every env entry of that name is replaced in its place (value set, valueFrom cleared), else the
// variable is appended, in the order of values. Without values it changes nothing.
func Apply(spec *corev1.PodSpec, values []Value) {
	for i := range spec.InitContainers {
		setEnv(&spec.InitContainers[i], values)
	}
	for i := range spec.Containers {
		setEnv(&spec.Containers[i], values)
	}
}

// setEnv is Apply for one container.
func setEnv(c *corev1.Container, values []Value) {
	for _, v := range values {
		entry := corev1.EnvVar{Name: v.Name, Value: v.Value}
		found := false
		for i := range c.Env {
			if c.Env[i].Name == v.Name {
				c.Env[i], found = entry, true
			}
		}
		if !found {
			c.Env = append(c.Env, entry)
		}
	}
}

// Annotation returns the value of cronjobv1.ParametersAnnotation for values: a compact JSON object of
// name to value, keys sorted.
func Annotation(values []Value) string {
	m := make(map[string]string, len(values))
	for _, v := range values {
		m[v.Name] = v.Value
	}
	out, err := json.Marshal(m) // encoding/json sorts map keys
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return string(out)
}

// declaredNames says which parameters are declared, for a message.
func declaredNames(declared []cronjobv1.Parameter) string {
	if len(declared) == 0 {
		return "it declares none"
	}
	names := make([]string, len(declared))
	for i, p := range declared {
		names[i] = p.Name
	}
	return "it declares " + strings.Join(names, ", ")
}

// quotedList lists items quoted, at most most of them, then how many more.
func quotedList(items []string, most int) string {
	quoted := make([]string, 0, min(len(items), most))
	for _, item := range items[:min(len(items), most)] {
		quoted = append(quoted, fmt.Sprintf("%q", item))
	}
	list := strings.Join(quoted, ", ")
	if len(items) > most {
		list += fmt.Sprintf(" and %d more", len(items)-most)
	}
	return list
}
