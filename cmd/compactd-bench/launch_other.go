//go:build !linux

package main

import "syscall"

// dieWithParent is Linux's Pdeathsig; elsewhere a measured command is
// ended by the bench's context instead.
func dieWithParent() *syscall.SysProcAttr { return nil }
