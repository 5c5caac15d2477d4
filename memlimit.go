package main

import (
	"fmt"
	"runtime/debug"
	"strconv"
)

// memoryLimitFraction is the share of the container's memory limit given to the Go runtime as its soft
// limit (GOMEMLIMIT). The rest is headroom for what the runtime does not count (thread stacks outside the
// heap, cgo, the binary's pages) and for the time the garbage collector needs to catch up, so that the
// kernel's OOM killer is not what stops a manager whose cache grew.
const memoryLimitFraction = 0.9

// memoryLimit returns the soft memory limit, in bytes, that the manager sets on the Go runtime
// (debug.SetMemoryLimit): memoryLimitFraction of $MEMORY_LIMIT, the container's memory limit in bytes
// (config/manager sets it from the downward API, resourceFieldRef limits.memory). It returns 0 (set
// nothing) when GOMEMLIMIT is set, as the runtime has read that itself, or when MEMORY_LIMIT is unset. It
// returns an error when MEMORY_LIMIT is not a positive whole number of bytes.
func memoryLimit(getenv func(string) string) (int64, error) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, nil
	}
	raw := getenv("MEMORY_LIMIT")
	if raw == "" {
		return 0, nil
	}
	limit, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || limit <= 0 {
		return 0, fmt.Errorf("MEMORY_LIMIT=%q: want the container's memory limit in bytes, a positive integer", raw)
	}
	return int64(float64(limit) * memoryLimitFraction), nil
}

// setMemoryLimit sets the Go runtime's soft memory limit (debug.SetMemoryLimit) to memoryLimit's, if that is
// not 0. It returns memoryLimit's error.
func setMemoryLimit(getenv func(string) string) error {
	limit, err := memoryLimit(getenv)
	if err != nil {
		return err
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return nil
}
