// Package framework is the envtest harness of the integration tests: it starts a control plane with the
// CronJob CRD once per test package, starts managers that run the CronJob controller (one per Describe or
// per spec, each with its own fake clock), and offers the helpers specs share: a live client, one
// namespace per spec, the events regarding an object, a state dump for failed specs and the shared
// timeouts.
//
// A test package uses it from its suite file:
//
//	var fwk = &framework.Framework{}
//
//	var _ = BeforeSuite(func() { cfg, k8sClient = fwk.Init() })
//	var _ = AfterSuite(func() { fwk.Teardown() })
//
// Specs assert through the live client, never through a manager's cache.
package framework
