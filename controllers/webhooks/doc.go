// Package webhooks is the CronJob admission webhook, laid out as kubebuilder v4 scaffolds it: a defaulter
// and a validator, registered by SetupCronJobWebhookWithManager. The validator refuses what the CRD schema
// and CEL cannot see, with the controller's own schedule parser, so admission and the controller agree.
package webhooks
