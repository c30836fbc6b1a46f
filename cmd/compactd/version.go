package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/compactd/compactd/lsp"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print compactd's version",
		run:     runVersion,
	})
}

// runVersion prints "compactd 0.1.0 (go1.26.8, 1a2b3c4d)": the version the
// server reports in serverInfo, the Go release, and the commit when the
// build recorded one.
func runVersion(ctx context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return usagef("usage: compactd version")
	}
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		// go install …@v1.2.3 records the module version it fetched.
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			rev = ", module " + v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 8 {
				rev = ", " + s.Value[:8]
			}
		}
	}
	fmt.Fprintf(e.stdout, "compactd %s (%s%s)\n", lsp.Version, runtime.Version(), rev)
	return nil
}
