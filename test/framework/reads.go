package framework

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

// The helpers below read what specs of every cluster-backed layer (envtest and e2e) assert on. They take
// the Gomega of the enclosing Eventually (or Default), so a failed read retries instead of failing the
// spec, and a live client: a manager's cache would show the controller's view, not the API server's.

// GetCronJob reads the CronJob named like cj from the API server through c.
func GetCronJob(ctx context.Context, g gomega.Gomega, c client.Reader, cj *cronjobv1.CronJob) *cronjobv1.CronJob {
	var got cronjobv1.CronJob
	g.Expect(c.Get(ctx, client.ObjectKeyFromObject(cj), &got)).To(gomega.Succeed())
	return &got
}

// EventReasonsRegarding returns the "<type>/<reason>" of the events regarding obj, oldest first (see
// EventsRegarding and EventReasons).
func EventReasonsRegarding(ctx context.Context, g gomega.Gomega, c client.Reader, obj client.Object) []string {
	events, err := EventsRegarding(ctx, c, obj)
	g.Expect(err).NotTo(gomega.HaveOccurred())
	return EventReasons(events)
}

// JobFinished reports whether the Job has finished, and how: batchv1.JobComplete or batchv1.JobFailed. A
// Job is finished when either condition is True, as the controller and batch/v1 CronJob read it.
func JobFinished(job *batchv1.Job) (bool, batchv1.JobConditionType) {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true, c.Type
		}
	}
	return false, ""
}

// StartSpecJobOracle starts a JobOracle on namespace ns (see StartJobOracle) that stops when the spec
// ends; it fails the spec if the oracle cannot start.
func StartSpecJobOracle(ctx context.Context, cfg *rest.Config, ns string) *JobOracle {
	ginkgo.GinkgoHelper()
	oracle, err := StartJobOracle(ctx, cfg, ns)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(oracle.Stop)
	return oracle
}
