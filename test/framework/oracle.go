package framework

import (
	"context"

	"k8s.io/client-go/rest"

	"github.com/cronjob-operator/cronjob-operator/test/oracle"
)

// JobOracle records every Job ever added to a namespace through a watch of its own: see oracle.Oracle.
type JobOracle = oracle.Oracle

// ObservedJob is what a JobOracle recorded of a Job when it first saw it: see oracle.ObservedJob.
type ObservedJob = oracle.ObservedJob

// StartJobOracle starts a JobOracle on the Jobs of namespace ns: see oracle.Start.
func StartJobOracle(ctx context.Context, cfg *rest.Config, ns string) (*JobOracle, error) {
	return oracle.Start(ctx, cfg, ns)
}
