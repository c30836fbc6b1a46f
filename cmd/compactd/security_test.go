package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/compactd/compactd/daemon/platform/platformtest"
)

// sandbox is one temp tree holding everything a command may touch: the
// homes, the store, a workspace with the transcript's folder and a
// sibling folder that must stay untouched.
type sandbox struct {
	root, home, storeDir, proj, sibling string
	envs                                map[string]string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root := t.TempDir()
	sb := &sandbox{
		root: root, home: filepath.Join(root, "home"), storeDir: filepath.Join(root, "state", "compactd"),
		proj: filepath.Join(root, "ws", "proj"), sibling: filepath.Join(root, "ws", "sibling"),
		envs: map[string]string{},
	}
	for k, v := range map[string]string{
		"HOME": sb.home, "USERPROFILE": sb.home, "APPDATA": filepath.Join(sb.home, "AppData", "Roaming"), "LOCALAPPDATA": filepath.Join(sb.home, "AppData", "Local"), "XDG_STATE_HOME": filepath.Join(root, "state"), "XDG_CONFIG_HOME": filepath.Join(sb.home, ".config"),
		"XDG_CACHE_HOME": filepath.Join(sb.home, ".cache"), "XDG_DATA_HOME": filepath.Join(sb.home, ".local", "share"),
		"CLAUDE_CONFIG_DIR": filepath.Join(sb.home, ".claude"), "CODEX_HOME": filepath.Join(sb.home, ".codex"),
		"COMPACTD_STORE": filepath.Join(sb.storeDir, "compactd.db"),
	} {
		sb.envs[k] = v
		t.Setenv(k, v)
	}
	for _, d := range []string{sb.home, sb.proj, sb.sibling} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(sb.sibling, "keep.txt"), []byte("not yours"), 0o644)
	t.Chdir(sb.sibling) // even the working directory gets nothing
	return sb
}

// snapshot maps every file and folder under root to a digest of its
// content and mode.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		sum := ""
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		out[p] = fmt.Sprintf("%v %s", fi.Mode(), sum)
		return nil
	})
	return out
}

// changedOutside lists paths created, changed or removed outside allowed.
func changedOutside(before, after map[string]string, allowed ...string) []string {
	inside := func(p string) bool {
		for _, a := range allowed {
			// Inside an allowed folder, or one of the folders leading to it.
			if p == a || strings.HasPrefix(p, a+string(filepath.Separator)) || strings.HasPrefix(a, p+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	var bad []string
	for p, v := range after {
		if before[p] != v && !inside(p) {
			bad = append(bad, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok && !inside(p) {
			bad = append(bad, p+" (removed)")
		}
	}
	return bad
}

// (a) compact and restore write only the transcript's folder and the store.
func TestCommandsWriteOnlyBesideTheTranscriptAndTheStore(t *testing.T) {
	sb := newSandbox(t)
	path, orig := writeSession(t, sb.proj, "chat.jsonl", 9, 8)
	steps := [][]string{
		{"compact", path},
		{"compact", "--dry-run", path},
		{"compact", "--in-place", path},
		{"restore", path, "v1"},
		{"restore", "--in-place", path, "v1"},
		{"history", path},
		{"diff", path, "v1", "v2"},
		{"doctor", "--fix"},
	}
	for _, args := range steps {
		before := snapshot(t, sb.root)
		code, _, stderr := runCLI(t, sb.envs, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		after := snapshot(t, sb.root)
		allowed := []string{sb.storeDir}
		if args[0] == "compact" || args[0] == "restore" {
			allowed = append(allowed, sb.proj)
		}
		if bad := changedOutside(before, after, allowed...); len(bad) > 0 {
			t.Errorf("%v wrote outside %v: %v", args, allowed, bad)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Error("restore --in-place v1 did not bring the original back")
	}
}

// (b) a symlinked transcript or an escaping fork folder is refused.
func TestCommandsRefuseToWriteThroughSymlinks(t *testing.T) {
	platformtest.NeedSymlinks(t)
	sb := newSandbox(t)
	target, orig := writeSession(t, sb.sibling, "real.jsonl", 10, 4)
	link := filepath.Join(sb.proj, "chat.jsonl")
	os.Symlink(target, link)
	before := snapshot(t, sb.sibling)

	code, _, stderr := runCLI(t, sb.envs, "compact", "--in-place", link)
	if code != 1 || !strings.Contains(stderr, "symbolic link") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("compact --in-place through a link: exit %d, %q", code, stderr)
	}
	escape := filepath.Join(sb.proj, "out")
	os.Symlink(sb.sibling, escape)
	code, _, stderr = runCLI(t, sb.envs, "compact", "--out", filepath.Join(escape, "fork.jsonl"), link)
	if code != 1 || !strings.Contains(stderr, "outside the workspace") {
		t.Errorf("compact --out through an escaping link: exit %d, %q", code, stderr)
	}
	if bad := changedOutside(before, snapshot(t, sb.sibling)); len(bad) > 0 {
		t.Errorf("written through a link: %v", bad)
	}
	if got, _ := os.ReadFile(target); !bytes.Equal(got, orig) {
		t.Error("the link's target changed")
	}
}

// (c) the store is private: 0600 files, 0700 folder.
func TestStoreIsPrivate(t *testing.T) {
	if !platformtest.PermissionBits {
		t.Skip("skip: Windows has no Unix permission bits; the store is private by the ACLs of the user's profile folder")
	}
	sb := newSandbox(t)
	path, _ := writeSession(t, sb.proj, "chat.jsonl", 12, 4)
	if code, _, stderr := runCLI(t, sb.envs, "compact", path); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, sb.envs, "compact", "--dry-run", path); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	db := sb.envs["COMPACTD_STORE"]
	for _, p := range []string{db, db + "-wal", db + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			if strings.HasSuffix(p, ".db") {
				t.Fatal(err)
			}
			continue // the WAL is checkpointed away on close
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v; want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	for _, d := range []string{sb.storeDir, filepath.Join(sb.storeDir, "reports"), filepath.Join(sb.storeDir, "locks")} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v; want 0700", d, fi.Mode().Perm())
		}
	}
	filepath.WalkDir(sb.storeDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, _ := d.Info(); fi != nil && fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s is readable by others (%v)", p, fi.Mode().Perm())
			}
		}
		return nil
	})
}

var inetSocket = regexp.MustCompile(`socket\(AF_INET6?,`)

// (d) with no model configured, compact (auto, summarizing with the
// extractive summarizer) opens no network socket; with a model configured
// the same check sees one, so it can fail.
func TestNoNetworkWithoutModel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (apt-get install -y strace); cannot watch the process's sockets")
	}
	pkgDir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// The build keeps the real environment, so it uses the shared build
	// cache; only the traced process runs in the sandbox.
	buildEnv := os.Environ()
	sb := newSandbox(t)
	bin := filepath.Join(t.TempDir(), "compactd")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = pkgDir
	build.Env = buildEnv
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := os.Environ()
	for k, v := range sb.envs {
		env = append(env, k+"="+v)
	}
	// A small window makes auto summarize after its mechanical steps.
	write := func(toml string) {
		os.WriteFile(filepath.Join(sb.root, "ws", ".compactd.toml"), []byte("[gauge]\ncontext_window = 8000\n"+toml), 0o644)
	}
	traced := func(path string) (trace string, res compactJSON) {
		t.Helper()
		traceFile := filepath.Join(t.TempDir(), "trace")
		cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=socket,connect", "-o", traceFile, bin, "compact", "--json", path)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			if strings.Contains(stderr.String(), "ptrace") || strings.Contains(stderr.String(), "Operation not permitted") {
				t.Skipf("strace cannot trace here: %s", strings.TrimSpace(stderr.String()))
			}
			t.Fatalf("traced compact: %v\n%s", err, stderr.String())
		}
		b, err := os.ReadFile(traceFile)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), compactResult(t, stdout.String())
	}

	write("")
	path, _ := writeSession(t, sb.proj, "chat.jsonl", 13, 12)
	trace, res := traced(path)
	if res.Summarizer != "extractive" {
		t.Fatalf("summarizer = %q; want extractive (notes %q)", res.Summarizer, res.Notes)
	}
	if fork, _ := os.ReadFile(res.ForkPath); !bytes.Contains(fork, []byte(`"isCompactSummary":true`)) {
		t.Errorf("the fork has no summary: the extractive summarizer did not run")
	}
	if m := inetSocket.FindAllString(trace, -1); len(m) > 0 {
		t.Errorf("compact without a model opened %d network sockets:\n%s", len(m), trace)
	}

	// The converse: a model configured (a local server speaking the
	// OpenAI shape) shows up in the same trace.
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "The user builds the inventory service."}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 10},
		})
	}))
	defer srv.Close()
	write(fmt.Sprintf("[summarize]\nprovider = \"openai\"\nbase_url = %q\nmodel = \"gpt-4o-mini\"\n", srv.URL+"/v1"))
	path2, _ := writeSession(t, sb.proj, "other.jsonl", 14, 12)
	trace, res = traced(path2)
	if hits.Load() == 0 || res.Summarizer != "summarize" {
		t.Fatalf("the model was not called (hits %d, summarizer %q, notes %q)", hits.Load(), res.Summarizer, res.Notes)
	}
	if !inetSocket.MatchString(trace) {
		t.Errorf("with a model configured the trace shows no network socket; the check cannot fail:\n%s", trace)
	}
}
