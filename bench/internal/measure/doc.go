// Package measure turns a phase of `make bench` into figures: what a controller process and the control
// plane spent over a window, the requests the audit log recorded, and, from the Job watch, which due runs
// got a Job, which got more than one, how late and how fast.
//
// Files: observe.go (Observe: CPU and heap over a window and its idle spans; Audit.AddRequests), audit.go
// (reading the audit log; Interval), runs.go (due, lost and duplicated runs, runs per second),
// measure_test.go (their unit tests).
package measure
