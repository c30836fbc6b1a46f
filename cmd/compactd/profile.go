package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the command to the file
// COMPACTD_CPUPROFILE names, for `go tool pprof` (how the 100 MB bars of
// make bench are investigated); it returns the function that ends it.
func startProfile(getenv func(string) string) func() {
	path := getenv("COMPACTD_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "compactd: COMPACTD_CPUPROFILE: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "compactd: COMPACTD_CPUPROFILE: %v\n", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
