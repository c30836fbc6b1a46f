//go:build !linux

// Command compactd-bench measures compactd's performance bars; it runs on
// Linux only (see main.go), because the bars are Linux figures.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "compactd-bench runs on Linux only: its bars are measured with Linux's rusage, flock and Pdeathsig")
	os.Exit(2)
}
