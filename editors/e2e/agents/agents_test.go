package agents

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	geminicodec "github.com/compactd/compactd/compaction/format/gemini"
	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// An agent is one real agent as the suite drives it: how it is pointed at
// the model server, how a session starts and resumes, where it writes, and
// what of its environment its requests must carry.
type agent struct {
	// name is the folder under npm/ and the cache; command its executable.
	name, command string
	// label names it in reports and the README.
	label string
	// configure writes the agent's config files and endpoint variables.
	configure func(t *testing.T, sb *sandbox, srv *modelserver.Server)
	// newID returns the id of a new session ("" when the agent picks it).
	newID func() string
	// argv are the arguments of a first turn (id may be "") and of a
	// turn resuming session id.
	first, resume func(sb *sandbox, id, prompt string) []string
	// session finds the transcript of session id ("" = the only one).
	session func(t *testing.T, sb *sandbox, id string) string
	// idOf reads a transcript's session id (the id that resumes it).
	idOf func(t *testing.T, path string) string
	// root is the folder the agent writes its transcripts under.
	root func(sb *sandbox) string
	// usageOf reads the context size a transcript line records, if any.
	usageOf func(line []byte) (int, bool)
	// environment checks that a request carries the agent's environment.
	environment func(c *modelserver.Conversation, sb *sandbox) error
	// lspInit are the initializationOptions the live client sends.
	lspInit map[string]any
	// known names issue 12's defects this agent's checks meet until they
	// are fixed, by check ("environment", "live"), for failure messages.
	known map[string]string
	// timeout bounds one agent run.
	timeout time.Duration
	// stubs, when set, lists the files the agent left for session id
	// that would make it delete the session (Gemini CLI's settled resume
	// stubs): compactd serve, watching, removes them once they settle.
	stubs func(t *testing.T, sb *sandbox, id string) []string
	// backdate, when set, moves a session's file right after its first
	// turn so that the agent's later runs meet the layout of a session
	// begun earlier; it returns the new path.
	backdate func(t *testing.T, path string) string
}

func uuid() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// firstLine decodes a transcript's first line into v.
func firstLine(t *testing.T, path string, v any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	line, _ := r.ReadBytes('\n')
	if err := json.Unmarshal(line, v); err != nil {
		t.Fatalf("%s: first line is not JSON: %v", path, err)
	}
}

func containsAll(c *modelserver.Conversation, what ...string) error {
	for _, s := range what {
		if !c.Contains(s) {
			return fmt.Errorf("the request lacks %q", s)
		}
	}
	return nil
}

// claudeModel is a model Claude Code 2.1.330 lists with no retirement date
// (it warns about claude-sonnet-4-5, retired on November 30, 2026).
const claudeModel = "claude-sonnet-4-6"

var claude = agent{
	name: "claude", command: "claude", label: "Claude Code",
	configure: func(t *testing.T, sb *sandbox, srv *modelserver.Server) {
		sb.setenv("ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=sk-ant-e2e-dummy",
			"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1")
	},
	newID: uuid,
	first: func(sb *sandbox, id, prompt string) []string {
		return []string{"-p", prompt, "--model", claudeModel, "--allowedTools", "Read Bash Edit Write", "--session-id", id}
	},
	resume: func(sb *sandbox, id, prompt string) []string {
		return []string{"-p", prompt, "--model", claudeModel, "--allowedTools", "Read Bash Edit Write", "--resume", id}
	},
	session: func(t *testing.T, sb *sandbox, id string) string {
		return filepath.Join(sb.getenv("CLAUDE_CONFIG_DIR"), "projects", claudeSlug(sb.project), id+".jsonl")
	},
	idOf: func(t *testing.T, path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") },
	root: func(sb *sandbox) string { return filepath.Join(sb.getenv("CLAUDE_CONFIG_DIR"), "projects") },
	usageOf: func(line []byte) (int, bool) {
		var r struct {
			Type    string `json:"type"`
			Message struct {
				Model string `json:"model"`
				Usage *struct {
					Input         int `json:"input_tokens"`
					CacheCreation int `json:"cache_creation_input_tokens"`
					CacheRead     int `json:"cache_read_input_tokens"`
					Output        int `json:"output_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &r) != nil || r.Type != "assistant" || r.Message.Usage == nil || r.Message.Model == "<synthetic>" {
			return 0, false
		}
		u := r.Message.Usage
		return u.Input + u.CacheCreation + u.CacheRead + u.Output, true
	},
	environment: func(c *modelserver.Conversation, sb *sandbox) error {
		// Claude Code re-renders its environment attachment on every start.
		return containsAll(c, "# Environment", "Primary working directory: "+sb.project)
	},
	timeout: 2 * time.Minute,
}

// claudeSlug is Claude Code's folder name for a project path.
func claudeSlug(abs string) string {
	b := []byte(abs)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

var codex = agent{
	name: "codex", command: "codex", label: "Codex CLI",
	configure: func(t *testing.T, sb *sandbox, srv *modelserver.Server) {
		// gpt-5.5 is in Codex's catalogue: with an unknown model it offers
		// no apply_patch tool.
		cfg := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "e2e"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.e2e]
name = "compactd e2e model server"
base_url = "%s/v1"
env_key = "E2E_OPENAI_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, srv.URL())
		if err := os.WriteFile(filepath.Join(sb.getenv("CODEX_HOME"), "config.toml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		sb.setenv("E2E_OPENAI_KEY=sk-e2e-dummy")
	},
	newID: func() string { return "" },
	first: func(sb *sandbox, id, prompt string) []string {
		return []string{"exec", "--skip-git-repo-check", prompt}
	},
	resume: func(sb *sandbox, id, prompt string) []string {
		return []string{"exec", "--skip-git-repo-check", "resume", id, prompt}
	},
	session: func(t *testing.T, sb *sandbox, id string) string {
		var found []string
		filepath.WalkDir(filepath.Join(sb.getenv("CODEX_HOME"), "sessions"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(p, ".jsonl") && (id == "" || strings.Contains(d.Name(), id)) {
				found = append(found, p)
			}
			return nil
		})
		if len(found) != 1 {
			t.Fatalf("want one Codex rollout for session %q, found %v", id, found)
		}
		return found[0]
	},
	idOf: func(t *testing.T, path string) string {
		var meta struct {
			Type    string `json:"type"`
			Payload struct {
				ID string `json:"id"`
			} `json:"payload"`
		}
		firstLine(t, path, &meta)
		if meta.Type != "session_meta" || meta.Payload.ID == "" {
			t.Fatalf("%s does not start with a session_meta naming its id", path)
		}
		return meta.Payload.ID
	},
	root: func(sb *sandbox) string { return filepath.Join(sb.getenv("CODEX_HOME"), "sessions") },
	usageOf: func(line []byte) (int, bool) {
		var r struct {
			Type    string `json:"type"`
			Payload struct {
				Type string `json:"type"`
				Info *struct {
					Last struct {
						Input  int `json:"input_tokens"`
						Output int `json:"output_tokens"`
						Total  int `json:"total_tokens"`
					} `json:"last_token_usage"`
				} `json:"info"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &r) != nil || r.Type != "event_msg" || r.Payload.Type != "token_count" || r.Payload.Info == nil {
			return 0, false
		}
		if l := r.Payload.Info.Last; l.Total > 0 {
			return l.Total, true
		}
		return 0, false
	},
	environment: func(c *modelserver.Conversation, sb *sandbox) error {
		return containsAll(c, "<environment_context>", "<cwd>"+sb.project+"</cwd>")
	},
	known: map[string]string{
		"environment": " (issue 12, defect 2: a fork that drops <environment_context> keeps the world_state saying it was sent)",
		"live":        " (issue 12, defect 12: the usage of a token_count read apart from its message is not attached)",
	},
	timeout: 2 * time.Minute,
}

// geminiModel is pinned so that every turn asks the same model (Gemini
// CLI's router otherwise picks per prompt); it is the CLI's default.
const geminiModel = "gemini-3.1-pro-preview"

var gemini = agent{
	name: "gemini", command: "gemini", label: "Gemini CLI",
	configure: func(t *testing.T, sb *sandbox, srv *modelserver.Server) {
		dir := filepath.Join(sb.home, ".gemini")
		os.MkdirAll(dir, 0o700)
		// Without selectedType a base URL selects another auth type and -p
		// fails with "Invalid auth method selected.". Session retention
		// stays on, as users have it: each --resume leaves a stub without a
		// prompt under the resumed id, and 0.61's cleanup, at the next start
		// of any other session, deletes every file of an id with such a stub
		// — the session itself included (by its 8-character suffix). The
		// suite checks that compactd keeps the original through it.
		settings := `{"security": {"auth": {"selectedType": "gemini-api-key"}},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
 "general": {"disableAutoUpdate": true, "disableUpdateNag": true}}`
		if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
		// GEMINI_CLI_NO_RELAUNCH: Gemini CLI starts a second Node with a larger heap
		// and runs in it, with this variable set; starting there saves a whole Node
		// start-up (about half the CPU of a run, 28 runs per session) and runs the same code.
		sb.setenv("GOOGLE_GEMINI_BASE_URL="+srv.URL(), "GEMINI_API_KEY=e2e-dummy", "GEMINI_CLI_NO_RELAUNCH=true")
	},
	newID: uuid,
	first: func(sb *sandbox, id, prompt string) []string {
		return []string{"--yolo", "--skip-trust", "-m", geminiModel, "-p", prompt, "--session-id", id}
	},
	resume: func(sb *sandbox, id, prompt string) []string {
		return []string{"--yolo", "--skip-trust", "-m", geminiModel, "-p", prompt, "--resume", id}
	},
	session: func(t *testing.T, sb *sandbox, id string) string {
		// Each --resume leaves a small stub beside the session it resumed,
		// under the same id: the session is the largest file naming it.
		var best string
		var size int64 = -1
		matches, _ := filepath.Glob(filepath.Join(sb.home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
		for _, p := range matches {
			var head struct {
				SessionID string `json:"sessionId"`
			}
			firstLine(t, p, &head)
			if fi, err := os.Stat(p); err == nil && head.SessionID == id && fi.Size() > size {
				best, size = p, fi.Size()
			}
		}
		if best == "" {
			t.Fatalf("no Gemini session file names session %s (files: %v)", id, matches)
		}
		return best
	},
	idOf: func(t *testing.T, path string) string {
		var head struct {
			SessionID string `json:"sessionId"`
		}
		firstLine(t, path, &head)
		if head.SessionID == "" {
			t.Fatalf("%s does not start with a sessionId", path)
		}
		return head.SessionID
	},
	root: func(sb *sandbox) string { return filepath.Join(sb.home, ".gemini", "tmp") },
	usageOf: func(line []byte) (int, bool) {
		var r struct {
			Type   string `json:"type"`
			Tokens *struct {
				Total int `json:"total"`
			} `json:"tokens"`
		}
		if json.Unmarshal(line, &r) != nil || r.Type != "gemini" || r.Tokens == nil || r.Tokens.Total == 0 {
			return 0, false
		}
		return r.Tokens.Total, true
	},
	environment: func(c *modelserver.Conversation, sb *sandbox) error {
		return containsAll(c, "<session_context>", "Workspace Directories:", sb.project)
	},
	// Gemini CLI's sessions live outside the workspace and the agent
	// folders compactd watches by default: a glob adds them.
	lspInit: map[string]any{"compactd": map[string]any{"watch": map[string]any{"globs": []string{"~/.gemini/tmp/**/session-*.jsonl"}}}},
	known: map[string]string{
		"rejected": " (issue 12, defect 1, when the API says \"oneof field 'data' is already set\")",
	},
	timeout: 3 * time.Minute,
	// The session's file is named for the minute it began; a --resume in
	// another minute leaves a stub under a second name. Named an hour
	// earlier, every resume leaves one: the two-files layout with which
	// Gemini CLI 0.61 deleted the original once a fork was resumed (issue
	// 23), whatever minute the suite runs in. Gemini CLI finds a session
	// by the id inside, not by the name.
	stubs: func(t *testing.T, sb *sandbox, id string) []string {
		matches, _ := filepath.Glob(filepath.Join(sb.home, ".gemini", "tmp", "*", "chats", "session-*-"+id[:8]+".json*"))
		var out []string
		for _, p := range matches {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if st, ok := geminicodec.StubOf(b); ok && st.Settled {
				out = append(out, p)
			}
		}
		return out
	},
	backdate: func(t *testing.T, path string) string {
		base := filepath.Base(path)
		stamp, err := time.Parse("2006-01-02T15-04", strings.TrimPrefix(base, "session-")[:16])
		if err != nil {
			t.Fatalf("%s: not named session-<YYYY-MM-DDTHH-MM>-<id8>: %v", path, err)
		}
		moved := filepath.Join(filepath.Dir(path), "session-"+stamp.Add(-time.Hour).Format("2006-01-02T15-04")+base[len("session-")+16:])
		if err := os.Rename(path, moved); err != nil {
			t.Fatal(err)
		}
		return moved
	},
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
