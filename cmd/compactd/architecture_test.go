package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compactd/compactd/daemon/agents"
	_ "github.com/compactd/compactd/daemon/agents/all"
)

const module = "github.com/compactd/compactd/"

// importRules are ARCHITECTURE.md's "must not import" column, each package
// pattern with what none of its packages may depend on, directly or not
// (test files aside). "x/..." is x and every package below it; "x" is x
// alone.
var importRules = []struct {
	packages string
	never    []string
	why      string
}{
	{"compaction/...", []string{"daemon/...", "lsp/...", "cmd/..."}, "the pure domain knows nothing of state, storage, watching or the protocol"},
	{"compaction/transcript", []string{"compaction/...", "daemon/...", "lsp/...", "cmd/..."}, "the model imports nothing of ours"},
	{"daemon/...", []string{"lsp/...", "cmd/..."}, "the daemon knows nothing of the protocol"},
	{"daemon/agents/...", []string{"daemon", "daemon/config", "daemon/index", "daemon/watch", "daemon/jobs", "daemon/store"}, "what compactd knows of an agent is read by the daemon, never the reverse"},
	{"daemon/config", []string{"daemon", "daemon/index", "daemon/watch", "daemon/jobs", "daemon/store"}, "the configuration is read by the parts, never the reverse"},
	{"daemon/index", []string{"daemon", "daemon/watch"}, "the index hears of changes from the daemon; it does not watch"},
	{"daemon/watch", []string{"daemon", "daemon/index", "daemon/jobs", "daemon/store"}, "the watcher finds files; it does not read them"},
	{"daemon/jobs", []string{"daemon", "daemon/index", "daemon/watch"}, "jobs run on files and the store, whoever asks"},
	{"daemon/store", []string{"daemon", "daemon/jobs", "daemon/index", "daemon/watch", "daemon/search"}, "the store is below the jobs"},
	{"daemon/sessionstate", []string{"daemon", "daemon/watch"}, "a command's state between runs carries the index's entry; it neither watches nor serves"},
	{"daemon/search", []string{"daemon", "daemon/index", "daemon/jobs"}, "search reads the sessions and the store; the daemon and the CLI feed it"},
	{"lsp/...", []string{"cmd/..."}, "cmd wires lsp, never the reverse"},
}

func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// TestImportRules holds every package to its layer's rules with `go list
// -deps`'s view of what it depends on.
func TestImportRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		// Under Wine the test binary runs without a Go toolchain of its OS;
		// the rules are the same on every OS and the Linux unit run holds them.
		t.Skipf("no go command to list the packages with: %v", err)
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue
		}
		for _, r := range importRules {
			if !matches(r.packages, pkg) {
				continue
			}
			checked++
			for _, dep := range fields[1:] {
				dep, ours := strings.CutPrefix(dep, module)
				if !ours || dep == pkg {
					continue
				}
				for _, never := range r.never {
					if matches(never, dep) && !(r.packages == "compaction/transcript" && dep == pkg) {
						t.Errorf("%s depends on %s: %s (%s must not import %s)", pkg, dep, r.why, r.packages, never)
					}
				}
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d packages matched a rule: the module path or the rules are wrong", checked)
	}
}

// agentWords are what names an agent in code: each registered agent's
// name, setting and executable, and their words but the generic ones
// ("cursor-agent" names Cursor, "agent" names none).
func agentWords() []string {
	var words []string
	generic := []string{"agent", "code", "chat"}
	add := func(w string) {
		w = strings.ToLower(w)
		if len(w) >= 4 && !slices.Contains(words, w) && !slices.Contains(generic, w) {
			words = append(words, w)
		}
	}
	for _, a := range agents.All() {
		for _, w := range []string{a.Name, a.Setting, a.Command, a.ClientSetting()} {
			add(w)
			for _, part := range strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '_' }) {
				add(part)
			}
		}
	}
	return words
}

// TestNoAgentNamedOutsideItsFolders is ARCHITECTURE.md's "add an agent"
// recipe made a check: the jobs, the strategies, the gauge and the
// protocol adapter name no agent in code (identifiers and strings; their
// comments and tests may), so a new agent is its two folders and a line
// in each registry. The editors are held to the same in their code, in
// what the VS Code manifest contributes (its settings, commands and
// activation; its Marketplace description is prose) and in the settings
// the Neovim plugin documents: their watch setting takes the agents' keys
// the server advertises (editor-info's watchSwitches).
func TestNoAgentNamedOutsideItsFolders(t *testing.T) {
	words := agentWords()
	if len(words) < 8 {
		t.Fatalf("the registry names only %v", words)
	}
	named := func(s string) string {
		s = strings.ToLower(s)
		for _, w := range words {
			if strings.Contains(s, w) {
				return w
			}
		}
		return ""
	}
	root := filepath.Join("..", "..")
	for _, dir := range []string{"daemon/jobs", "daemon/search", "compaction/strategy", "compaction/gauge", "lsp"} {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, filepath.Join(root, dir), func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for _, f := range p.Files {
				ast.Inspect(f, func(n ast.Node) bool {
					var s string
					switch x := n.(type) {
					case *ast.Ident:
						s = x.Name
					case *ast.BasicLit:
						if x.Kind == token.STRING {
							s, _ = strconv.Unquote(x.Value)
						}
					case *ast.ImportSpec:
						return false // the registries' imports: agents/all, format/all
					}
					if w := named(s); w != "" {
						t.Errorf("%s: %q names the agent %q", fset.Position(n.Pos()), s, w)
					}
					return true
				})
			}
		}
	}
	// The editors' code, comments stripped; the generated goldens are test data.
	comments := map[string]*regexp.Regexp{
		".ts":  regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`),
		".lua": regexp.MustCompile(`--[^\n]*`),
	}
	// "cursor" is the editor's cursor in the editors' code (and a CSS
	// property): the Cursor agent is named by its other words there.
	editorWords := slices.DeleteFunc(slices.Clone(words), func(w string) bool { return w == "cursor" })
	for _, dir := range []string{"editors/vscode/src", "editors/nvim/lua"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Base(p) == "wireGoldens.ts" {
				return err
			}
			re := comments[filepath.Ext(p)]
			if re == nil {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			code := strings.ToLower(re.ReplaceAllString(string(b), ""))
			for _, w := range editorWords {
				if i := strings.Index(code, w); i >= 0 {
					t.Errorf("%s: names the agent %q in code: …%s…", p, w, code[max(i-30, 0):min(i+30, len(code))])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Every key and string the VS Code manifest contributes.
	manifest, err := os.ReadFile(filepath.Join(root, "editors", "vscode", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes      any `json:"contributes"`
		ActivationEvents any `json:"activationEvents"`
	}
	if err := json.Unmarshal(manifest, &pkg); err != nil {
		t.Fatal(err)
	}
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if w := named(k); w != "" {
					t.Errorf("package.json %s: the key %q names the agent %q", where, k, w)
				}
				walk(where+"."+k, e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", where, i), e)
			}
		case string:
			if w := named(x); w != "" {
				t.Errorf("package.json %s: %q names the agent %q", where, x, w)
			}
		}
	}
	walk("contributes", pkg.Contributes)
	walk("activationEvents", pkg.ActivationEvents)
	if !bytes.Contains(manifest, []byte(`"compactd.watch"`)) {
		t.Error("package.json contributes no compactd.watch setting")
	}
	// The settings the Neovim plugin documents (its help file's last
	// section, the defaults).
	help, err := os.ReadFile(filepath.Join(root, "editors", "nvim", "doc", "compactd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, settings, ok := strings.Cut(string(help), "*compactd-settings*")
	if !ok {
		t.Fatal("the Neovim help has no *compactd-settings* section")
	}
	for _, line := range strings.Split(settings, "\n") {
		if w := named(line); w != "" {
			t.Errorf("the Neovim help's settings name the agent %q: %s", w, line)
		}
	}
}
