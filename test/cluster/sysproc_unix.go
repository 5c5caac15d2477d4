//go:build unix && !linux

package cluster

import "syscall"

// sysProcAttr puts a component in a process group of its own, so that Ctrl-C in a terminal reaches only its
// parent.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
