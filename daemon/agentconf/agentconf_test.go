package agentconf

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
)

type entry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

var ours = entry{Command: "/usr/local/bin/compactd", Args: []string{"mcp", "--agent", "x", "--store", "/home/dev/.local/state/compactd/compactd.db"}}

// decodeJSONC is a JSONC file's value.
func decodeJSONC(t *testing.T, b []byte) map[string]any {
	t.Helper()
	std, err := hujson.Standardize(append([]byte(nil), b...))
	if err != nil {
		t.Fatalf("not JSONC: %v\n%s", err, b)
	}
	var v map[string]any
	if err := json.Unmarshal(std, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestJSONRoundTripsOnRealConfigFiles(t *testing.T) {
	for _, tc := range []struct {
		file string
		key  []string
	}{
		{"claude-user.json", []string{"mcpServers"}},
		{"claude-user-no-mcp.json", []string{"mcpServers"}},
		{"claude-project.mcp.json", []string{"mcpServers"}},
		{"gemini-settings.json", []string{"mcpServers"}},
		{"gemini-settings-comments.json", []string{"mcpServers"}},
		{"qwen-settings.json", []string{"mcpServers"}},
		{"opencode.jsonc", []string{"mcp"}},
		{"", []string{"mcpServers"}}, // no file yet
	} {
		t.Run(tc.file, func(t *testing.T) {
			var orig []byte
			if tc.file != "" {
				var err error
				if orig, err = os.ReadFile(filepath.Join("testdata", tc.file)); err != nil {
					t.Fatal(err)
				}
			}
			installed, err := SetJSON(orig, tc.key, "compactd", ours)
			if err != nil {
				t.Fatal(err)
			}
			// The entry is there, and every other value is as it was.
			got := decodeJSONC(t, installed)
			servers := got[tc.key[0]].(map[string]any)
			var e entry
			b, _ := json.Marshal(servers["compactd"])
			if json.Unmarshal(b, &e) != nil || e.Command != ours.Command || len(e.Args) != len(ours.Args) {
				t.Fatalf("entry %s", b)
			}
			delete(servers, "compactd")
			if len(servers) == 0 {
				delete(got, tc.key[0])
			}
			if orig != nil {
				want := decodeJSONC(t, orig)
				if w, ok := want[tc.key[0]].(map[string]any); ok && len(w) == 0 {
					delete(want, tc.key[0])
				}
				gb, _ := json.Marshal(got)
				wb, _ := json.Marshal(want)
				if !bytes.Equal(gb, wb) {
					t.Fatalf("other values changed:\n%s\nwant\n%s", gb, wb)
				}
			}
			// The bytes before the entry's member are the file's own.
			if orig != nil && !bytes.HasPrefix(installed, orig[:commonPrefix(orig, installed)]) {
				t.Fatal("prefix")
			}
			again, err := SetJSON(installed, tc.key, "compactd", ours)
			if err != nil || !bytes.Equal(again, installed) {
				t.Fatalf("a second install changed the file: %v\n%s", err, again)
			}
			removed, err := RemoveJSON(installed, tc.key, "compactd")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(removed, orig) {
				t.Fatalf("install then uninstall is not the original file:\n%s\nwant\n%s", removed, orig)
			}
			if r, err := RemoveJSON(orig, tc.key, "compactd"); err != nil || !bytes.Equal(r, orig) {
				t.Fatalf("uninstalling what is not there changed the file: %v", err)
			}
		})
	}
}

func TestJSONReplacesAnOutdatedEntryInItsSpan(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "gemini-settings-comments.json"))
	if err != nil {
		t.Fatal(err)
	}
	old := ours
	old.Command = "/old/compactd"
	v1, err := SetJSON(orig, []string{"mcpServers"}, "compactd", old)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := SetJSON(v1, []string{"mcpServers"}, "compactd", ours)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(v2), "/old/compactd") || !strings.Contains(string(v2), ours.Command) {
		t.Fatalf("not replaced:\n%s", v2)
	}
	// Outside the entry's value, the bytes are v1's.
	p := commonPrefix(v1, v2)
	s := commonSuffix(v1[p:], v2[p:])
	if changed := string(v1[p : len(v1)-s]); !strings.Contains(changed, "old") || strings.Contains(changed, "github") {
		t.Fatalf("the change reaches beyond the entry: %q", changed)
	}
}

func TestJSONRefusesWhatItCannotEdit(t *testing.T) {
	for _, src := range []string{`{"mcpServers": []}`, `[1, 2]`, `{"mcpServers": {`} {
		if _, err := SetJSON([]byte(src), []string{"mcpServers"}, "compactd", ours); err == nil {
			t.Errorf("SetJSON(%s): want an error", src)
		}
	}
}

func TestTOMLRoundTripsOnARealConfigFile(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "codex-config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	table := TOMLTable{{Key: "command", Value: ours.Command}, {Key: "args", Value: ours.Args}, {Key: "env", Value: map[string]string{"CODEX_HOME": "/home/dev/.codex"}}}
	path := []string{"mcp_servers", "compactd"}
	for _, src := range [][]byte{orig, nil} {
		installed, err := SetTOML(src, path, table)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := toml.Unmarshal(installed, &doc); err != nil {
			t.Fatalf("not TOML: %v\n%s", err, installed)
		}
		got, ok, err := GetTOML(installed, path)
		if err != nil || !ok || got["command"] != ours.Command || got["env"].(map[string]any)["CODEX_HOME"] != "/home/dev/.codex" {
			t.Fatalf("entry %v %v %v", got, ok, err)
		}
		if !bytes.HasPrefix(installed, src) {
			t.Fatal("the install changed the file before the new table")
		}
		if again, err := SetTOML(installed, path, table); err != nil || !bytes.Equal(again, installed) {
			t.Fatalf("a second install changed the file: %v", err)
		}
		// An outdated entry is replaced where it stands.
		old := TOMLTable{{Key: "command", Value: "/old/compactd"}}
		outdated, _ := SetTOML(installed, path, old)
		if renewed, err := SetTOML(outdated, path, table); err != nil || !bytes.Equal(renewed, installed) {
			t.Fatalf("renewing an outdated entry: %v\n%s", err, renewed)
		}
		removed, err := RemoveTOML(installed, path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(removed, src) {
			t.Fatalf("install then uninstall:\n%s\nwant\n%s", removed, src)
		}
	}
	// The github server's sub-table stays with it when compactd's table is
	// put before the profile.
	if _, _, ok, err := tableSpan(orig, []string{"mcp_servers", "github"}); !ok || err != nil {
		t.Fatalf("github's table: %v %v", ok, err)
	}
}

func TestTOMLRefusesAnInlineDefinition(t *testing.T) {
	src := []byte("[mcp_servers]\ncompactd = { command = \"x\" }\n")
	if _, err := SetTOML(src, []string{"mcp_servers", "compactd"}, TOMLTable{{Key: "command", Value: "y"}}); err == nil || !strings.Contains(err.Error(), "inline") {
		t.Fatalf("want a refusal of the inline definition, got %v", err)
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}
