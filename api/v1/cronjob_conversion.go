package v1

// Hub marks v1 as the version the other versions of CronJob convert through (api/v2 ConvertTo and
// ConvertFrom): the controllers, webhooks, metrics and kubectl cjo work on v1 (README "API versions").
func (*CronJob) Hub() {}
