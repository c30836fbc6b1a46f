package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
)

func main() {
	dry := flag.Bool("dry", false, "")
	prof := flag.String("prof", "", "")
	storep := flag.String("store", "/tmp/perf/prof-store.db", "")
	flag.Parse()
	ctx := context.Background()
	s, err := store.Open(ctx, *storep)
	if err != nil {
		panic(err)
	}
	r := jobs.New(s)
	if *prof != "" {
		f, _ := os.Create(*prof)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	t0 := time.Now()
	res, err := r.Compact(ctx, jobs.Request{Path: flag.Arg(0), DryRun: *dry, Progress: func(stage string, pct int) {
		fmt.Fprintf(os.Stderr, "%8.3fs %s\n", time.Since(t0).Seconds(), stage)
	}})
	if err != nil {
		panic(err)
	}
	fmt.Println(time.Since(t0), res.TokensBefore, res.TokensAfter, res.ForkPath)
}
