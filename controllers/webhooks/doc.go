// Package webhooks is the CronJob validating admission webhook, registered by SetupCronJobWebhookWithManager:
// it refuses what the CRD schema and CEL cannot see, with the controller's own schedule parser and a dry-run
// create of the Job the controller would build, so admission and the controller agree. Beside it, the
// CronJobRun webhook (SetupCronJobRunWebhookWithManager) warns at create when the named CronJob is missing,
// refuses values of spec.parameters that do not fit the CronJob's parameters, and refuses a range backfill
// (spec.range) that reaches into the future or holds no slot or more than MaxBackfillSlots. The manager
// serves them all, and the conversion webhook, through a DrainingServer, which moves the API server's
// kept-alive connections to other replicas before it stops.
package webhooks
