// Package hostile is the hostile-tenant suite (make test-hostile, test/hostile/README.md): one tenant floods
// the operator with large Jobs, waiting manual runs and a catch-up after an outage, while another runs
// minutely CronJobs and a manual run; the suite measures what the second one sees and what the manager
// costs. The manager runs as its own process (bin/manager), with the memory limit of the shipped manifests.
package hostile
