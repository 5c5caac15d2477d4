// Package v1 holds the CronJob API of group batch.cronjob-operator.dev, version v1.
//
// The fields and their meaning follow batch/v1 CronJob so that users feel at home; where this API or its
// controller differs, the field's documentation says so and why.
//
// +kubebuilder:object:generate=true
// +groupName=batch.cronjob-operator.dev
package v1
