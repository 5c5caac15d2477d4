// Package framework is the envtest harness of the integration tests: it starts a control plane with the
// CronJob CRD and the admission webhooks once per test package, starts managers that run the CronJob
// controller (one per Describe or per spec, each on a fake clock), and offers the helpers specs share: a
// live client, one namespace per spec, the events regarding an object, a state dump for failed specs and
// the shared timeouts.
//
// A test package uses it from its suite file:
//
//	var fwk = &framework.Framework{}
//
//	var _ = BeforeSuite(func() { cfg, k8sClient = fwk.Init() })
//	var _ = AfterSuite(func() { fwk.Teardown() })
//
// Specs assert through the live client, never through a manager's cache.
//
// Time travel: a Clock drives both the controller's decisions and its workqueue's timers, so a spec that
// moves it an hour sees the reconciles a real hour would bring, in milliseconds. Move it with
// Clock.AdvanceTo, which first waits for the controller to ask for that wakeup (see Clock for why).
//
// Failures to inject, each as the cluster would see it:
//   - several managers with leader election (ManagerOptions.LeaderElection), each on a Share of one
//     Clock; Manager.Stop stops one gracefully (its Lease is released), Manager.Kill cuts its connections
//     first, so the Lease stays held until it expires, as after a crash;
//   - Framework.StopAPIServer and StartAPIServer: an outage of the kube-apiserver (etcd keeps running);
//     the API server comes back on the same address with the same certificates.
//
// Ground truth and cost:
//   - JobOracle watches Jobs on its own and records every Job ever added, with its owner, scheduled time
//     and creator, so a spec checks exactly one Job per scheduled time across failures;
//   - CountReconciles reads controller-runtime's reconcile counters, ScrapeAPIRequests the kube-apiserver's
//     request counters (writes, conflicts), to bound what the controller costs.
//
// Files, one concern each:
//   - framework.go: Framework, the control plane of a test package (Init, Teardown, API server outages),
//     and Scheme;
//   - manager.go: StartManager and Manager, a manager that runs the controller on a Clock, with leader
//     election (LeaderElection, ShortLeases), Stop and Kill;
//   - clock.go: Clock, the fake clock that drives the controller and its workqueue's timers;
//   - webhook.go, webhookconfig.go: the admission webhook server of the suite and the configurations that
//     point the API server at it (AdmissionWebhookLabel turns them off for a namespace);
//   - namespace.go: one namespace per spec; objects.go: create an object with its status;
//   - reads.go: what specs of envtest and e2e read and assert on (GetCronJob, EventReasonsRegarding,
//     JobFinished, StartSpecJobOracle); events.go: the events regarding an object;
//   - oracle.go: JobOracle, re-exported from test/oracle; outcomes.go: Outcomes, a record of what each
//     reconcile did; metrics.go: reconcile counts and the API server's request counts; scrape.go: a GET of
//     a manager's metrics endpoint (Scrape, MetricValue, FreeLocalAddress); dump.go: the state dump of a
//     failed spec;
//   - large.go: LargeJob, a Job of a given size that no CronJob owns (the hostile-tenant suites, envtest and
//     kind);
//   - kustomize.go: kustomize builds of config/ and the RBAC they render, applied for a spec (Kustomize,
//     ApplyRBAC);
//   - paths.go: where the CRDs, webhook manifests and envtest binaries are; timeouts.go: the shared waits;
//   - clock_test.go: the unit tests of Clock.
package framework
