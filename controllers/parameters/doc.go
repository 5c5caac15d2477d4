// Package parameters is the rule of a CronJob's parameters (spec.parameters), in one place for the
// admission webhooks, both controllers and kubectl-cjo: whether a CronJobRun's values fit the declarations
// (Check), which value each parameter of a run gets (Resolve), and how the values reach the run's Job
// (Apply, Annotation). Nothing here reads a clock or talks to an API server.
package parameters
