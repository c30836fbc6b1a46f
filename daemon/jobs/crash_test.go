package jobs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/store"
)

// The crash child: when COMPACTD_CRASH_CHILD is set, the test binary runs
// jobs on COMPACTD_CRASH_PATH in a loop until killed: in-place compactions
// ("compact"), in-place compactions and restores ("restore"), or fork
// compactions ("fork").
func TestMain(m *testing.M) {
	if mode := os.Getenv("COMPACTD_CRASH_CHILD"); mode != "" {
		os.Exit(crashChild(mode, os.Getenv("COMPACTD_CRASH_PATH"), os.Getenv("COMPACTD_STORE")))
	}
	os.Exit(m.Run())
}

func crashChild(mode, path, storePath string) int {
	ctx := context.Background()
	s, err := store.Open(ctx, storePath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	r := New(s) // the real pipeline and, through format/all, the real codec
	fmt.Println("ready")
	for i := 0; ; i++ {
		switch {
		case mode == "restore" && i%2 == 1:
			_, err = r.Restore(ctx, path, "v1", true)
		case mode == "fork":
			_, err = r.Compact(ctx, Request{Path: path})
		default:
			_, err = r.Compact(ctx, Request{Path: path, InPlace: true})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("done")
	}
}

// assertForksWhole checks that every fork a killed job left beside the
// transcript is a complete transcript: forks appear whole or not at all.
// A fork is written once and never again, so one already found whole
// (the same name and size) is not parsed again: seen remembers them.
func assertForksWhole(t *testing.T, trial int, path string, seen map[string]int64) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || name == filepath.Base(path) || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			t.Fatalf("trial %d: fork %s: %v", trial, name, err)
		}
		if size, ok := seen[name]; ok && size == fi.Size() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(filepath.Dir(path), name))
		if err != nil {
			t.Fatalf("trial %d: fork %s: %v", trial, name, err)
		}
		if len(b) == 0 || b[len(b)-1] != '\n' {
			t.Fatalf("trial %d: fork %s is torn (%d bytes, no final newline)", trial, name, len(b))
		}
		codec, err := format.Detect(name, b)
		if err != nil {
			t.Fatalf("trial %d: fork %s: %v", trial, name, err)
		}
		tr, err := codec.Parse(b)
		if err != nil || tr.Skipped > 0 || len(tr.Messages) == 0 {
			t.Fatalf("trial %d: fork %s does not parse whole: %v", trial, name, err)
		}
		seen[name] = int64(len(b))
	}
}

// jobDuration runs one crash child until its first job completes and
// returns how long that took, so kill times cover a whole job however
// loaded the machine is.
func jobDuration(t *testing.T, exe, path string) time.Duration {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "COMPACTD_CRASH_CHILD=compact", "COMPACTD_CRASH_PATH="+path)
	out, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGKILL); cmd.Wait() }()
	r := bufio.NewReader(out)
	r.ReadString('\n') // ready
	start := time.Now()
	if line, err := r.ReadString('\n'); err != nil || strings.TrimSpace(line) != "done" {
		t.Fatalf("calibration child: %q %v %s", line, err, stderr.String())
	}
	return time.Since(start)
}

func crashTrials() int {
	if os.Getenv("COMPACTD_STRESS") == "1" {
		return 1000
	}
	if testing.Short() {
		return 10
	}
	return 50
}

// TestCrashDuringInPlace kills in-place compactions and restores with
// SIGKILL at random moments, on a Claude Code session and a Codex rollout
// in turn: the transcript is always a whole version (never torn), the
// store stays sound, and every recorded version restores.
func TestCrashDuringInPlace(t *testing.T) {
	root := isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	storePath := os.Getenv("COMPACTD_STORE")
	claudePath, claudeOrig := claudeSession(t, filepath.Join(root, "proj"), 77, 24)
	codexPath := filepath.Join(root, "sessions", "rollout-2025-11-17T09-30-00-0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl")
	codexOrig := sessiongen.Codex(sessiongen.Options{Seed: 78, Turns: 24})
	os.MkdirAll(filepath.Dir(codexPath), 0o755)
	if err := os.WriteFile(codexPath, codexOrig, 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{claudePath, codexPath}
	origs := map[string][]byte{claudePath: claudeOrig, codexPath: codexOrig}
	path, orig := claudePath, claudeOrig
	rng := rand.New(rand.NewSource(1))
	ctx := context.Background()
	// Kill anywhere in the first job and a half: before, during and after
	// the write. The first job (v1 recorded, then the compaction) is the
	// longest one, so measure it on a copy.
	calib := filepath.Join(root, "calib", filepath.Base(path))
	os.MkdirAll(filepath.Dir(calib), 0o755)
	os.WriteFile(calib, orig, 0o644)
	span := jobDuration(t, exe, calib) * 3 / 2
	t.Logf("one in-place job takes %v; kills land in [0, %v)", span*2/3, span)
	compacted, versions := 0, 0
	restored := map[string]bool{} // content hashes read back whole
	forks := map[string]int64{}   // forks found whole: name → size
	forksOf := map[string]map[string]int64{claudePath: forks, codexPath: {}}
	for trial := 0; trial < crashTrials(); trial++ {
		// Claude Code and Codex in turn, each through every mode.
		path, orig = paths[trial%2], origs[paths[trial%2]]
		mode := []string{"compact", "restore", "fork"}[(trial/2)%3]
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "COMPACTD_CRASH_CHILD="+mode, "COMPACTD_CRASH_PATH="+path)
		out, _ := cmd.StdoutPipe()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewReader(out)
		lines.ReadString('\n') // "ready": the store is open
		if mode == "compact" && (trial/6)%8 == 1 {
			// Now and then (trials 6 and 7, one per codec, then every
			// eighth round) the kill lands during the second job: the
			// first has replaced the file in place by then, so some kills
			// come after a write however slow load makes the jobs, not
			// only where the calibration guessed.
			if line, _ := lines.ReadString('\n'); strings.TrimSpace(line) != "done" {
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
				t.Fatalf("trial %d: the first job did not finish: %q %s", trial, line, stderr.String())
			}
		}
		time.Sleep(time.Duration(rng.Int63n(int64(span)))) // a random kill time, not a wait for anything
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if strings.TrimSpace(stderr.String()) != "" {
			t.Fatalf("trial %d: child failed before the kill: %s", trial, stderr.String())
		}

		s, err := store.Open(ctx, storePath)
		if err != nil {
			t.Fatalf("trial %d: reopen store: %v", trial, err)
		}
		if probs, err := s.IntegrityCheck(ctx); err != nil || len(probs) > 0 {
			t.Fatalf("trial %d: integrity: %v %v", trial, probs, err)
		}
		known := map[string]bool{store.ContentHash(orig): true}
		for _, o := range origs {
			known[store.ContentHash(o)] = true
		}
		vs, err := s.AllVersions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Every version restores. Versions share contents (each fork of
		// the same source is the same bytes), and a committed version can
		// only be hurt by a later kill through the store itself, so each
		// trial reads the contents it has not read yet, and every 100th
		// trial and the last read them all again.
		if trial%100 == 99 || trial == crashTrials()-1 {
			restored = map[string]bool{}
		}
		for _, v := range vs {
			known[v.ContentHash] = true
			if restored[v.ContentHash] {
				continue
			}
			if _, err := s.Content(ctx, v.ContentHash); err != nil {
				t.Fatalf("trial %d: %s does not restore: %v", trial, v.Label, err)
			}
			restored[v.ContentHash] = true
		}
		versions = len(vs)
		s.Close()
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("trial %d: transcript gone: %v", trial, err)
		}
		if !known[store.ContentHash(got)] {
			t.Fatalf("trial %d (%s): transcript is neither the old nor a recorded new content (%d bytes)", trial, mode, len(got))
		}
		if !bytes.Equal(got, orig) {
			compacted++
		}
		assertForksWhole(t, trial, path, forksOf[path])
	}
	// Kills must land during work that changes the file, not only before
	// it (the trials killed during a second job guarantee some do).
	if compacted == 0 {
		t.Errorf("no trial found the transcript compacted: the kills all came before any write")
	}
	t.Logf("%d trials, %d found the transcript replaced; %d versions (%d distinct contents) all restore; %d forks, all whole",
		crashTrials(), compacted, versions, len(restored), len(forksOf[claudePath])+len(forksOf[codexPath]))
}

// TestConcurrentAppendLosesNothing appends lines at about 50 per second
// while in-place and fork compactions run; every appended line ends up in
// the file or in a source version a compaction deliberately read.
func TestConcurrentAppendLosesNothing(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	path := writeTranscript(t, root, conversationBytes("s-app", 20, "g"))

	duration := 3 * time.Second
	if testing.Short() {
		duration = time.Second
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var written []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			role := "assistant"
			if i%3 == 0 {
				role = "user"
			}
			line := fmt.Sprintf(`{"session":"s-app","role":%q,"text":"appended-%06d"}`+"\n", role, i)
			// Like the agents: open, append one whole line, close.
			// Opened as the agents open it (Node's libuv and Rust share
			// delete on Windows, so a rename never refuses them).
			f, err := platform.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := f.WriteString(line); err != nil {
				t.Error(err)
			}
			f.Close()
			written = append(written, "appended-"+fmt.Sprintf("%06d", i))
		}
	}()
	deadline := time.Now().Add(duration)
	// make stress: 1,000 compactions under the appender, however long that takes.
	minRuns := 4
	if os.Getenv("COMPACTD_STRESS") == "1" {
		minRuns = 1000
	}
	runs := 0
	for runs < minRuns || time.Now().Before(deadline) {
		_, err := r.Compact(ctx, Request{Path: path, InPlace: runs%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		runs++
	}
	close(stop)
	wg.Wait()

	final, _ := os.ReadFile(path)
	var seen bytes.Buffer
	seen.Write(final)
	vs, _ := r.Store.AllVersions(ctx)
	for _, v := range vs {
		if v.Kind == store.KindSource {
			b, _ := r.Store.Content(ctx, v.ContentHash)
			seen.Write(b)
		}
	}
	lost := 0
	for _, id := range written {
		if !bytes.Contains(seen.Bytes(), []byte(id)) {
			lost++
			t.Errorf("line %s was lost", id)
		}
	}
	// Lines appended after the last in-place compaction read the file
	// must be in the file itself, in order.
	idx := -1
	for _, line := range strings.Split(string(final), "\n") {
		if i := strings.Index(line, "appended-"); i >= 0 {
			n, _ := strconv.Atoi(line[i+9 : i+15])
			if n <= idx {
				t.Errorf("appended lines out of order: %d after %d", n, idx)
			}
			idx = n
		}
	}
	if len(written) < 20 || runs < 2 {
		t.Errorf("too little happened: %d lines, %d compactions", len(written), runs)
	}
	t.Logf("%d lines appended during %d compactions, %d lost", len(written), runs, lost)
}
