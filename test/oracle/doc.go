// Package oracle is the ground truth of the test layers and the benchmark: a watch of its own that records
// every Job ever added, with its owner, scheduled time, creator and the time it was first seen. It imports
// no test framework, so the bench command can use it too; test/framework re-exports it.
//
// Files: oracle.go (Oracle, its watch and what it recorded: ObservedJob).
package oracle
