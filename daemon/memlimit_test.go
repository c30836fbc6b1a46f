package daemon

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/compactd/compactd/daemon/agents"

	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
)

func TestJobsLiftTheMemoryLimitUntilTheLastEnds(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const limit = 256 << 20
	m := NewMemoryLimit(limit)
	current := func() int64 { return debug.SetMemoryLimit(-1) }
	if got := current(); got != limit {
		t.Fatalf("limit after NewMemoryLimit = %d, want %d", got, limit)
	}
	first := m.Lift()
	second := m.Lift()
	if got := current(); got != math.MaxInt64 {
		t.Fatalf("limit while jobs run = %d, want none", got)
	}
	first()
	first() // a second release of the same job changes nothing
	if got := current(); got != math.MaxInt64 {
		t.Fatalf("limit while one job still runs = %d, want none", got)
	}
	second()
	if got := current(); got != limit {
		t.Fatalf("limit after the last job = %d, want %d", got, limit)
	}
}

func TestNoMemoryLimitLiftsNothing(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	debug.SetMemoryLimit(300 << 20) // as GOMEMLIMIT would
	var m *MemoryLimit
	release := m.Lift()
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Fatalf("a user's GOMEMLIMIT was lifted: %d", got)
	}
	release()
}

func TestACompactionRunsWithoutTheLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	dir := t.TempDir()
	for _, k := range []string{"HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"} {
		t.Setenv(k, filepath.Join(dir, "home", k))
	}
	src, err := os.ReadFile("testdata/claude-mcp-overhead.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ws", "session.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), filepath.Join(dir, "store", "compactd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const limit = 200 << 20
	d, err := New(Options{Folders: []string{filepath.Dir(path)}, Env: agents.Env{Home: filepath.Join(dir, "home")}, Jobs: jobs.New(st), Memory: NewMemoryLimit(limit)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var during []int64
	progress := func(string, int) { during = append(during, debug.SetMemoryLimit(-1)) }
	if _, err := d.DryRun(t.Context(), CompactRequest{Path: path, Progress: progress}); err != nil {
		t.Fatal(err)
	}
	if len(during) == 0 {
		t.Fatal("the job reported no progress")
	}
	for _, l := range during {
		if l != math.MaxInt64 {
			t.Fatalf("the limit during the job was %d, want none", l)
		}
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Fatalf("the limit after the job = %d, want %d", got, limit)
	}
}
