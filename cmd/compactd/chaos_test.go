package main

// The reliability suite for the command line: compactd against a hostile
// world — damaged and unusable stores, files that are not transcripts
// (pipes, loops, devices, sparse giants, a 500 MB line, a million lines),
// interrupts mid-command. Every scenario runs the real binary and asserts:
// no byte of the transcript (or a stored version) lost, no hang (ends
// within 2 s of SIGTERM), memory bounded (peak RSS of the child), and an
// error that is one sentence naming the cause and the fix.
//
// `go test` runs each scenario once; COMPACTD_STRESS=1 (make stress)
// repeats the damage trials with fresh random damage.

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/platform/platformtest"
	"github.com/compactd/compactd/daemon/store"
)

// cliRun is one finished compactd command.
type cliRun struct {
	code           int
	stdout, stderr string
	wall, cpu      time.Duration
	peakRSS        int64 // bytes
}

// runBinary runs the compactd binary with only envs (and PATH) in its
// environment and a hard deadline; a command still running then is a hang.
func runBinary(t *testing.T, bin string, envs map[string]string, deadline time.Duration, args ...string) cliRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range envs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(deadline):
		cmd.Process.Kill()
		<-done
		t.Fatalf("compactd %s hung (still running after %s)", strings.Join(args, " "), deadline)
	}
	return finished(cmd, err, start, &out, &errb)
}

func finished(cmd *exec.Cmd, err error, start time.Time, out, errb *bytes.Buffer) cliRun {
	r := cliRun{stdout: out.String(), stderr: errb.String(), wall: time.Since(start)}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	}
	if st := cmd.ProcessState; st != nil {
		r.cpu = st.UserTime() + st.SystemTime()
		r.peakRSS, _ = platformtest.PeakRSS(st)
	}
	return r
}

// oneSentence asserts a failing command said one line naming want.
func (r cliRun) oneSentence(t *testing.T, what string, want ...string) {
	t.Helper()
	msg := strings.TrimSpace(r.stderr)
	if r.code == 0 {
		t.Errorf("%s: exit 0; want a refusal", what)
		return
	}
	if strings.Contains(msg, "\n") || msg == "" {
		t.Errorf("%s: the error is not one sentence: %q", what, msg)
	}
	if strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine ") {
		t.Errorf("%s: panicked: %q", what, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: error %q does not say %q", what, msg, w)
		}
	}
}

func stressTrials(short, stress int) int {
	if os.Getenv("COMPACTD_STRESS") == "1" {
		return stress
	}
	return short
}

// chaosWorkspace is a transcript compacted once (v1 its content, v2 the
// fork) in a store of its own.
func chaosWorkspace(t *testing.T, bin string) (envs map[string]string, transcript string, original []byte) {
	t.Helper()
	envs, _ = serveEnv(t)
	dir := filepath.Join(envs["HOME"], "proj")
	os.MkdirAll(dir, 0o755)
	original = sessiongen.ClaudeCode(sessiongen.Options{Seed: 41, Turns: 40, Cwd: dir})
	transcript = filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(transcript, original, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, bin, envs, 60*time.Second, "compact", transcript); r.code != 0 {
		t.Fatalf("first compact: exit %d: %s", r.code, r.stderr)
	}
	return envs, transcript, original
}

// TestChaosDamagedStores: in-place compaction and restore on a damaged
// store refuse, say the transcript is untouched and how to repair the
// store, and leave it byte-identical; doctor diagnoses the damage and
// --fix recovers what is readable (the damaged file kept aside), after
// which compaction works again.
func TestChaosDamagedStores(t *testing.T) {
	bin := compactdBinary(t)
	damages := map[string]func(path string){
		"truncated": func(p string) {
			fi, _ := os.Stat(p)
			os.Truncate(p, fi.Size()/2)
		},
		"random pages": func(p string) {
			fi, _ := os.Stat(p)
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			defer f.Close()
			junk := make([]byte, 4096)
			for off := int64(4096); off < fi.Size(); off += 2 * 4096 {
				rand.Read(junk)
				f.WriteAt(junk, off)
			}
		},
	}
	trials := stressTrials(1, 25)
	for name, spoil := range damages {
		t.Run(name, func(t *testing.T) {
			for trial := 0; trial < trials; trial++ {
				envs, transcript, original := chaosWorkspace(t, bin)
				st := envs["COMPACTD_STORE"]
				spoil(st)
				for _, args := range [][]string{
					{"compact", "--in-place", transcript},
					{"restore", "--in-place", transcript, "v2"},
					{"compact", transcript},
				} {
					r := runBinary(t, bin, envs, 30*time.Second, args...)
					r.oneSentence(t, strings.Join(args[:len(args)-1], " "), transcript+" is untouched", st, "compactd doctor --fix")
					if got, _ := os.ReadFile(transcript); !bytes.Equal(got, original) {
						t.Fatalf("%s on a %s store changed the transcript", args[0], name)
					}
				}
				r := runBinary(t, bin, envs, 30*time.Second, "doctor")
				r.oneSentence(t, "doctor", "damaged", "--fix")
				if !strings.Contains(r.stdout, "integrity:") {
					t.Errorf("doctor printed no findings: %q", r.stdout)
				}
				r = runBinary(t, bin, envs, 60*time.Second, "doctor", "--fix")
				if r.code != 0 || !strings.Contains(r.stdout, "damaged store is kept at") {
					t.Fatalf("doctor --fix: exit %d, %s %s", r.code, r.stdout, r.stderr)
				}
				if kept, _ := filepath.Glob(st + ".damaged-*"); len(kept) == 0 {
					t.Error("doctor --fix did not keep the damaged store")
				}
				if r := runBinary(t, bin, envs, 60*time.Second, "compact", "--in-place", transcript); r.code != 0 {
					t.Fatalf("compact --in-place after doctor --fix: exit %d: %s", r.code, r.stderr)
				}
				// Its prior content is in the recovered store, byte for byte.
				r = runBinary(t, bin, envs, 30*time.Second, "history", "--json", transcript)
				if r.code != 0 || !strings.Contains(r.stdout, `"versions"`) {
					t.Fatalf("history after recovery: exit %d %s", r.code, r.stderr)
				}
			}
		})
	}
}

// TestChaosUnusableStores: a store that is a folder, a pipe, under a file,
// read-only (file or folder) or not SQLite at all refuses every writing
// command in one sentence naming the store and what to do; a missing
// parent folder is created.
func TestChaosUnusableStores(t *testing.T) {
	bin := compactdBinary(t)
	envs, transcript, original := chaosWorkspace(t, bin)
	dir := t.TempDir()
	mk := func(name string, setup func(p string)) string {
		p := filepath.Join(dir, name)
		setup(p)
		return p
	}
	cases := map[string]struct {
		path string
		says string
	}{
		"a folder":         {mk("folder.db", func(p string) { os.Mkdir(p, 0o700) }), "is a folder"},
		"a named pipe":     {mk("pipe.db", func(p string) { platformtest.Mkfifo(p) }), "not a regular file"},
		"under a file":     {mk("file/compactd.db", func(p string) { os.WriteFile(filepath.Dir(p), nil, 0o600) }), "is a file, not a folder"},
		"random bytes":     {mk("random.db", func(p string) { b := make([]byte, 1<<16); rand.Read(b); os.WriteFile(p, b, 0o600) }), "not a compactd store"},
		"read-only file":   {mk("ro.db", func(p string) { os.WriteFile(p, nil, 0o400) }), "chmod 600"},
		"read-only folder": {mk("rodir/compactd.db", func(p string) { os.Mkdir(filepath.Dir(p), 0o500) }), "read-only folder"},
	}
	for name, c := range cases {
		for _, args := range [][]string{{"compact", "--in-place", transcript}, {"restore", "--in-place", transcript, "v1"}, {"history", transcript}, {"doctor"}} {
			r := runBinary(t, bin, envs, 10*time.Second, append(args, "--store", c.path)...)
			r.oneSentence(t, name+": "+args[0], c.path, c.says)
			if strings.Contains(r.stderr, "is it a compactd store") {
				t.Errorf("%s: misleading error %q", name, r.stderr)
			}
		}
	}
	if got, _ := os.ReadFile(transcript); !bytes.Equal(got, original) {
		t.Fatal("a refused command changed the transcript")
	}
	missing := filepath.Join(dir, "new", "parent", "compactd.db")
	if r := runBinary(t, bin, envs, 60*time.Second, "compact", "--store", missing, transcript); r.code != 0 {
		t.Errorf("a store whose parent is missing: exit %d: %s", r.code, r.stderr)
	}
	os.Chmod(filepath.Join(dir, "rodir"), 0o700)
}

// TestChaosOddFiles: what is not a transcript is refused at once, in
// bounded memory, whatever it is: a named pipe (which once blocked every
// command forever, deaf to SIGTERM), a symlink loop, a device, a folder,
// 2 GiB of zeros, a session followed by 2 GiB of NULs, a 600 MB line.
func TestChaosOddFiles(t *testing.T) {
	bin := compactdBinary(t)
	envs, _ := serveEnv(t)
	dir := filepath.Join(envs["HOME"], "odd")
	os.MkdirAll(dir, 0o755)
	session := sessiongen.ClaudeCode(sessiongen.Options{Seed: 5, Turns: 6, Cwd: dir})
	at := func(name string) string { return filepath.Join(dir, name) }
	platformtest.Mkfifo(at("pipe.jsonl"))
	os.Symlink(at("loop-b.jsonl"), at("loop-a.jsonl"))
	os.Symlink(at("loop-a.jsonl"), at("loop-b.jsonl"))
	os.Symlink("/dev/zero", at("zero-device.jsonl"))
	os.Mkdir(at("folder.jsonl"), 0o755)
	sparse := func(name string, head []byte, size int64) {
		os.WriteFile(at(name), head, 0o600)
		os.Truncate(at(name), size)
	}
	sparse("zeros.jsonl", nil, 2<<30)
	sparse("session-then-nuls.jsonl", session, 2<<30)
	sparse("long-line.jsonl", append(append([]byte(nil), session...), `{"type":"user","message":{"content":"`...), 600<<20)
	cases := map[string]string{
		"pipe.jsonl":              "named pipe",
		"loop-a.jsonl":            "too many levels of symbolic links",
		"zero-device.jsonl":       "character device",
		"folder.jsonl":            "a folder",
		"zeros.jsonl":             "not a recognized transcript",
		"session-then-nuls.jsonl": "more than compactd reads",
		"long-line.jsonl":         "a line longer than",
	}
	for name, says := range cases {
		for _, cmd := range [][]string{{"gauge"}, {"compact"}, {"compact", "--in-place"}, {"compact", "--dry-run"}} {
			r := runBinary(t, bin, envs, 10*time.Second, append(cmd, at(name))...)
			r.oneSentence(t, strings.Join(cmd, " ")+" "+name, name, says)
			if r.peakRSS > 200<<20 {
				t.Errorf("%s %s: peak RSS %d MiB; want it bounded (not following the file)", cmd[0], name, r.peakRSS>>20)
			}
			// A refusal costs about 10 ms of CPU (a streamed scan of the
			// 600 MB line about 100 ms); the bound is on CPU, not the wall
			// clock, which a loaded machine stretches. A hang is caught by
			// runBinary's deadline.
			if r.cpu > 2*time.Second {
				t.Errorf("%s %s took %s of CPU; refusing should cost next to nothing", cmd[0], name, r.cpu)
			}
		}
	}
	// history of a pipe must not block either (it looks the file up).
	r := runBinary(t, bin, envs, 10*time.Second, "history", at("pipe.jsonl"))
	if r.code == 0 {
		t.Error("history of a named pipe succeeded")
	}
}

// TestChaosMillionLines: compacting 13 MB of a million tiny records, or a
// million blank lines, costs linear work and bounded memory (it was 51–62
// s; a megabyte of blank lines took 416 s and 23 GB). The figure,
// ≤ 3 s, is `make bench`'s ("compact, 13 MB of 1,000,000 lines"); this
// guard bounds CPU time (which load does not stretch) at 10× that bar, and
// memory well above today's peak (about 700 MiB), far below the defect's.
func TestChaosMillionLines(t *testing.T) {
	bin := compactdBinary(t)
	envs, _ := serveEnv(t)
	dir := filepath.Join(envs["HOME"], "big")
	os.MkdirAll(dir, 0o755)
	session := sessiongen.ClaudeCode(sessiongen.Options{Seed: 9, Turns: 2, Cwd: dir})
	for name, line := range map[string]string{"tiny-records": `{"type":"x"}` + "\n", "blank-lines": "\n"} {
		var b bytes.Buffer
		b.Write(session)
		for i := 0; i < 1_000_000; i++ {
			b.WriteString(line)
		}
		path := filepath.Join(dir, name+".jsonl")
		os.WriteFile(path, b.Bytes(), 0o600)
		r := runBinary(t, bin, envs, 120*time.Second, "compact", path)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
		}
		t.Logf("%s (%d MB): %s wall, %s CPU, peak RSS %d MiB", name, b.Len()>>20, r.wall.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.peakRSS>>20)
		if r.cpu > 30*time.Second {
			t.Errorf("%s: compact took %s of CPU; want far below 30 s (the bench's bar is 3 s of wall time)", name, r.cpu)
		}
		if r.peakRSS > 2<<30 {
			t.Errorf("%s: peak RSS %d MiB; want < 2 GiB", name, r.peakRSS>>20)
		}
	}
}

// TestChaosInterrupts: every command ends on SIGTERM or Ctrl-C, whether it
// waits (for another compaction's lock) or computes (a million records),
// and the transcript is whole afterwards. How soon — the issue's "within
// 2 s" — is `make bench`'s figure ("signal → exit"): a loaded machine
// stretches the wall clock, so here a command still running 10 s after
// the signal is a hang, and nothing shorter is asserted.
func TestChaosInterrupts(t *testing.T) {
	if !platformtest.SignalsSupported {
		t.Skip("skip: Windows has no SIGTERM or SIGINT to send another process")
	}
	bin := compactdBinary(t)
	envs, transcript, original := chaosWorkspace(t, bin)
	// Hold the conversation's lock as a running compaction would.
	locks, _ := filepath.Glob(filepath.Join(filepath.Dir(envs["COMPACTD_STORE"]), "locks", "*.lock"))
	if len(locks) != 1 {
		t.Fatalf("locks = %v; want the conversation's one", locks)
	}
	unlock, err := platformtest.LockFile(locks[0])
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	big := filepath.Join(filepath.Dir(transcript), "big.jsonl")
	var b bytes.Buffer
	b.Write(original)
	for i := 0; i < 1_500_000; i++ {
		fmt.Fprintf(&b, "{\"type\":\"x\",\"n\":%d}\n", i)
	}
	os.WriteFile(big, b.Bytes(), 0o600)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for _, args := range [][]string{{"compact", "--in-place", transcript}, {"compact", big}, {"gauge", big}} {
			cmd := exec.Command(bin, args...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			for k, v := range envs {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Interrupt once the command is under way: its store or its
			// file is open (the lock wait, the read of the big file).
			waitBusy(t, cmd.Process.Pid, done)
			sent := time.Now()
			platformtest.Signal(cmd.Process, sig)
			select {
			case err := <-done:
				t.Logf("%s after %v: ended %s later", strings.Join(args, " "), sig, time.Since(sent).Round(time.Millisecond))
				r := finished(cmd, err, start, &out, &errb)
				if r.code == 0 && args[0] == "compact" && args[2] == transcript {
					t.Errorf("%s ended 0 although interrupted while waiting", strings.Join(args, " "))
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("%s ignored %v (killed after 10 s)", strings.Join(args, " "), sig)
			}
		}
	}
	if got, _ := os.ReadFile(transcript); !bytes.Equal(got, original) {
		t.Fatal("an interrupted command changed the transcript")
	}
	// The server too ends on SIGTERM, mid-session.
	p := spawnServe(t, bin, envs)
	p.send(initializeBody(1, filepath.Dir(transcript)))
	p.reply(30 * time.Second)
	p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	sent := time.Now()
	platformtest.Signal(p.cmd.Process, syscall.SIGTERM)
	select {
	case <-p.exited:
		t.Logf("compactd serve ended %s after SIGTERM", time.Since(sent).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		t.Fatal("compactd serve ignored SIGTERM")
	}
}

// waitBusy waits until pid has opened more than its startup files (the
// store, a lock, a transcript): the command is under way.
func waitBusy(t *testing.T, pid int, done chan error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			done <- err
			return // it finished first: nothing to interrupt
		default:
		}
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if strings.HasSuffix(target, ".lock") || strings.HasSuffix(target, ".jsonl") {
				return
			}
		}
		runtimeGosched()
	}
	t.Fatal("the command never got under way")
}

// runtimeGosched yields between polls of /proc without sleeping a fixed time.
func runtimeGosched() { runtime.Gosched() }

// TestChaosFileReplacedOrDeletedMidCompaction: a transcript replaced by
// another file, or deleted, while an in-place compaction works on it loses
// nothing: the replacement is in the file or in the store, a deleted file
// is not brought back, and what was recorded reads back.
func TestChaosFileReplacedOrDeletedMidCompaction(t *testing.T) {
	bin := compactdBinary(t)
	for _, what := range []string{"replaced", "deleted"} {
		t.Run(what, func(t *testing.T) {
			envs, _ := serveEnv(t)
			dir := filepath.Join(envs["HOME"], "proj")
			os.MkdirAll(dir, 0o755)
			// Large enough that the command is still at work when the
			// file changes under it.
			var b bytes.Buffer
			b.Write(sessiongen.ClaudeCode(sessiongen.Options{Seed: 71, Turns: 30, Cwd: dir}))
			for i := 0; i < 200_000; i++ {
				fmt.Fprintf(&b, "{\"type\":\"x\",\"n\":%d}\n", i)
			}
			path := filepath.Join(dir, "session.jsonl")
			os.WriteFile(path, b.Bytes(), 0o644)
			other := sessiongen.ClaudeCode(sessiongen.Options{Seed: 72, Turns: 8, Cwd: dir})
			cmd := exec.Command(bin, "compact", "--in-place", path)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			for k, v := range envs {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			waitBusy(t, cmd.Process.Pid, done)
			if what == "replaced" {
				tmp := path + ".new"
				os.WriteFile(tmp, other, 0o644)
				os.Rename(tmp, path)
			} else {
				os.Remove(path)
			}
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatal("compact --in-place hung after the file changed")
			}
			if strings.Contains(errb.String(), "panic") {
				t.Fatalf("panicked: %s", errb.String())
			}
			now, statErr := os.ReadFile(path)
			if what == "deleted" && statErr == nil {
				t.Fatalf("a deleted transcript was brought back (%d bytes); stderr %s", len(now), errb.String())
			}
			if what == "replaced" && !bytes.Equal(now, other) {
				// Compacted: the replacement must then be in the store.
				st, err := store.Open(context.Background(), envs["COMPACTD_STORE"])
				if err != nil {
					t.Fatal(err)
				}
				vs, _ := st.AllVersions(context.Background())
				found := false
				for _, v := range vs {
					if v.ContentHash == store.ContentHash(other) {
						b, err := st.Content(context.Background(), v.ContentHash)
						found = err == nil && bytes.Equal(b, other)
					}
				}
				st.Close()
				if !found {
					t.Errorf("the replacement is neither in the file nor in the store")
				}
			}
			t.Logf("%s: exit stderr %q", what, strings.TrimSpace(errb.String()))
		})
	}
}
