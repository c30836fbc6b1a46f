package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
)

func main() {
	ws := "/tmp/perf/execws"
	path := filepath.Join(ws, "session.jsonl")
	if _, err := os.Stat(path); err != nil {
		os.MkdirAll(ws, 0o755)
		os.WriteFile(path, sessiongen.ClaudeCode(sessiongen.Options{Seed: 3, TargetBytes: 100 << 20, Cwd: ws}), 0o644)
	}
	ctx := context.Background()
	os.RemoveAll("/tmp/perf/execstore")
	st, err := store.Open(ctx, "/tmp/perf/execstore/compactd.db")
	if err != nil {
		panic(err)
	}
	tc := st.NewTokenCache(1 << 16)
	d, _ := daemon.New(daemon.Options{Folders: []string{ws}, Env: daemon.Env{Home: "/tmp/perf/home"}, CountCache: tc, Savings: daemon.StrategySavings(tokens.NewCounterSet(tokens.WithCache(tc)))})
	d.Start(ctx)
	<-d.ScanDone()
	for d.Snapshot(path) == nil || d.Snapshot(path).SavingsPending {
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Println("settled")
	rj := daemon.RunnerJobs{Runner: jobs.New(st)}
	f, _ := os.Create("/tmp/perf/exec.prof")
	pprof.StartCPUProfile(f)
	t0 := time.Now()
	p := d.Parsed(path)
	fmt.Println("parsed", p != nil, time.Since(t0))
	res, err := rj.Compact(ctx, daemon.JobRequest{Path: path, Config: config.Default(), Parsed: p}, func(m string, pct int) { fmt.Printf("%8.3fs %s\n", time.Since(t0).Seconds(), m) })
	pprof.StopCPUProfile()
	fmt.Println(time.Since(t0), err, res != nil)
}
