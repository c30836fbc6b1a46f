package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the command to the file
// COMPACTD_CPUPROFILE names, and its allocations (sampled every 64 KB, as
// the heap profile's alloc_space and alloc_objects) to the file
// COMPACTD_MEMPROFILE names, for `go tool pprof` (how the 100 MB bars of
// make bench are investigated); it returns the function that ends them.
func startProfile(getenv func(string) string) func() {
	stopCPU := startCPUProfile(getenv("COMPACTD_CPUPROFILE"))
	memPath := getenv("COMPACTD_MEMPROFILE")
	if memPath == "" {
		return stopCPU
	}
	runtime.MemProfileRate = 64 << 10
	return func() {
		stopCPU()
		f, err := os.Create(memPath)
		if err != nil {
			fmt.Fprintf(os.Stderr, "compactd: COMPACTD_MEMPROFILE: %v\n", err)
			return
		}
		defer f.Close()
		runtime.GC() // the profile holds what the last collection saw
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fmt.Fprintf(os.Stderr, "compactd: COMPACTD_MEMPROFILE: %v\n", err)
		}
	}
}

func startCPUProfile(path string) func() {
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
