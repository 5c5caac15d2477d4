//go:build unix && !linux

package main

import "syscall"

// sysProcAttr puts the manager in a process group of its own, so that Ctrl-C in a terminal reaches only
// localcluster.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
