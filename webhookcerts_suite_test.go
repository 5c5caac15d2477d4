package main

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/cronjob-operator/cronjob-operator/test/framework"
)

// TestManager runs the envtest specs of the main package's wiring: the webhook certificate rotator with the
// RBAC config/default grants.
func TestManager(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(framework.Timeout)
	SetDefaultEventuallyPollingInterval(framework.Interval)
	SetDefaultConsistentlyDuration(framework.ConsistentDuration)
	SetDefaultConsistentlyPollingInterval(framework.Interval)
	RunSpecs(t, "Manager wiring suite")
}
