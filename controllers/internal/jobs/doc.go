// Package jobs is what both reconcilers know of a CronJob's Jobs: their deterministic names, how a run's
// Job is built from the jobTemplate, whether it finished and how, whose it is, which finished Jobs the
// history limits drop, and the create and delete of a run's Job, with an existing name classified once
// (adopt our own, leave a stranger's alone).
package jobs
