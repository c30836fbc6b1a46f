package main

import "syscall"

// dieWithParent makes a measured command die with its launcher, so an
// interrupted bench leaves no command running.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
