package builders

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// Parameter declares a parameter with a default and no enum or pattern (spec.parameters).
func (w *CronJobWrapper) Parameter(name, def string) *CronJobWrapper {
	w.Spec.Parameters = append(w.Spec.Parameters, cronjobv1.Parameter{Name: name, Default: def})
	return w
}

// EnumParameter declares a parameter whose values are those of enum.
func (w *CronJobWrapper) EnumParameter(name, def string, enum ...string) *CronJobWrapper {
	w.Spec.Parameters = append(w.Spec.Parameters, cronjobv1.Parameter{Name: name, Default: def, Enum: enum})
	return w
}

// PatternParameter declares a parameter whose values match pattern.
func (w *CronJobWrapper) PatternParameter(name, def, pattern string) *CronJobWrapper {
	w.Spec.Parameters = append(w.Spec.Parameters, cronjobv1.Parameter{Name: name, Default: def, Pattern: ptr.To(pattern)})
	return w
}

// Env adds an environment variable to the Job's first container.
func (w *CronJobWrapper) Env(name, value string) *CronJobWrapper {
	c := &w.Spec.JobTemplate.Spec.Template.Spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: value})
	return w
}

// InitContainer adds an init container that runs command in the image of the first container.
func (w *CronJobWrapper) InitContainer(name string, command ...string) *CronJobWrapper {
	spec := &w.Spec.JobTemplate.Spec.Template.Spec
	spec.InitContainers = append(spec.InitContainers, corev1.Container{
		Name: name, Image: spec.Containers[0].Image, ImagePullPolicy: spec.Containers[0].ImagePullPolicy, Command: command,
	})
	return w
}

// Parameter gives a parameter of the CronJob a value for this run (spec.parameters).
func (w *CronJobRunWrapper) Parameter(name, value string) *CronJobRunWrapper {
	w.Spec.Parameters = append(w.Spec.Parameters, cronjobv1.ParameterValue{Name: name, Value: value})
	return w
}
