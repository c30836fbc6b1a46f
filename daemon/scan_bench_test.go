package daemon

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/index"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon/platform/platformtest"
	"github.com/compactd/compactd/daemon/store"
)

var (
	scanFiles = flag.Int("scan.files", 8, "BenchmarkColdScan: transcripts to index")
	scanMB    = flag.Int("scan.mb", 25, "BenchmarkColdScan: size of each transcript in MB")
)

// BenchmarkColdScan indexes -scan.files Claude Code transcripts of
// -scan.mb each with the store's token cache, as compactd serve does, and
// reports the scan's CPU/wall ratio (both cores busy: ≥ 1.6 on two idle
// cores), the process's RSS once the scan has settled and its peak.
func BenchmarkColdScan(b *testing.B) {
	ws := b.TempDir()
	for i := range *scanFiles {
		dir := filepath.Join(ws, fmt.Sprintf("p%02d", i%4))
		os.MkdirAll(dir, 0o755)
		data := sessiongen.ClaudeCode(sessiongen.Options{Seed: uint64(100 + i), TargetBytes: *scanMB << 20, Cwd: ws})
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	debug.FreeOSMemory()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		st, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "store.db"))
		if err != nil {
			b.Fatal(err)
		}
		cache := st.NewTokenCache(1 << 16)
		d, err := New(Options{Folders: []string{ws}, Env: agents.Env{Home: b.TempDir()}, CountCache: cache, Savings: index.StrategySavings(tokens.NewCounterSet(tokens.WithCache(cache)))})
		if err != nil {
			b.Fatal(err)
		}
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset the peak RSS
		cpu0, t0 := cpuNow(), time.Now()
		b.StartTimer()
		if err := d.Start(b.Context()); err != nil {
			b.Fatal(err)
		}
		<-d.ScanDone()
		b.StopTimer()
		wall, cpu := time.Since(t0), cpuNow()-cpu0
		time.Sleep(2 * time.Second) // what the bench waits before reading RSS
		b.ReportMetric(float64(cpu)/float64(wall), "cpu/wall")
		b.ReportMetric(float64(procKB("VmRSS"))/1024, "MB-RSS-after")
		b.ReportMetric(float64(procKB("VmHWM"))/1024, "MB-RSS-peak")
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MB-heap-after")
		if p := os.Getenv("SCAN_HEAP_PROFILE"); p != "" {
			writeHeapProfile(b, p)
		}
		d.Close()
		st.Close()
		b.StartTimer()
	}
}

func cpuNow() time.Duration { return platformtest.CPUTime() }

// procKB reads a field (kB) of /proc/self/status, 0 if absent.
func procKB(field string) int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}
