package cluster

import "syscall"

// sysProcAttr puts a component in a process group of its own, so that Ctrl-C in a terminal reaches only
// its parent, which stops things in order, and has the kernel kill it should the parent die first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
