// Package measure turns a phase of `make bench` into figures: what a controller process and the control
// plane spent over a window, the requests the audit log recorded, and, from the Job watch, which due runs
// got a Job, which got more than one, how late and how fast; and how long a controller takes to start.
//
// Files: observe.go (Observe: CPU and heap over a window and its idle spans; Audit.AddRequests), audit.go
// (reading the audit log; Interval), runs.go (due, lost and duplicated runs, runs per second), start.go
// (a controller's start, from its workqueue's metrics), promtext.go (reading those from the Prometheus
// text format), and their tests.
package measure
