package main

import "syscall"

// sysProcAttr puts the manager in a process group of its own, so that Ctrl-C in a terminal reaches only
// localcluster, and has the kernel kill it should localcluster die without stopping it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
