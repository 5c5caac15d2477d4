package main

// leaderElectionID names the Lease, in the manager's namespace, that the replicas elect their leader with.
const leaderElectionID = "cronjob-operator.batch.cronjob-operator.dev"

// Leader election uses controller-runtime's default lock, a coordination.k8s.io Lease: the candidates get
// and update the Lease by its name and create it when it is missing (a create cannot be limited to a
// name); nothing lists, watches, patches or deletes it. The election records its events (LeaderElection,
// on the Lease) with the core v1 Events API.
//
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=system,resources=leases,verbs=create
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=system,resources=leases,resourceNames=cronjob-operator.batch.cronjob-operator.dev,verbs=get;update
// +kubebuilder:rbac:groups="",namespace=system,resources=events,verbs=create;patch
