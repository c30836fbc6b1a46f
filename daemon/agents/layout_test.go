package agents_test

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/claude"
	"github.com/compactd/compactd/daemon/agents/copilotchat"
)

// Where the agents keep their sessions on each OS, for a user whose home
// is h: Claude Code's projects under ~/.claude everywhere (with a slug of
// the folder as Windows spells it), VS Code's workspaceStorage under
// %APPDATA% on Windows, ~/Library/Application Support on macOS and
// ~/.config on Linux.
func TestSessionFoldersPerOS(t *testing.T) {
	h := filepath.Join(string(filepath.Separator)+"users", "ada")
	appData := filepath.Join(h, "AppData", "Roaming")
	j := filepath.Join
	for _, c := range []struct {
		goos, code, cursor string
		env                agents.Env
	}{
		{"linux", j(h, ".config", "Code", "User", "workspaceStorage"), j(h, ".config", "Cursor", "User", "workspaceStorage"), agents.Env{GOOS: "linux", Home: h}},
		{"darwin", j(h, "Library", "Application Support", "Code", "User", "workspaceStorage"), j(h, "Library", "Application Support", "Cursor", "User", "workspaceStorage"), agents.Env{GOOS: "darwin", Home: h}},
		{"windows", j(appData, "Code", "User", "workspaceStorage"), j(appData, "Cursor", "User", "workspaceStorage"), agents.Env{GOOS: "windows", Home: h}},
		{"windows, APPDATA moved", j(h, "roam", "Code", "User", "workspaceStorage"), j(h, "roam", "Cursor", "User", "workspaceStorage"), agents.Env{GOOS: "windows", Home: h, AppData: j(h, "roam")}},
	} {
		got := copilotchat.WorkspaceStorage(c.env)
		if !slices.Contains(got, c.code) || !slices.Contains(got, c.cursor) {
			t.Errorf("%s: workspaceStorage folders %v; want %s and %s among them", c.goos, got, c.code, c.cursor)
		}
		if got, want := claude.ProjectDir(c.env, j(h, "calc")), j(h, ".claude", "projects", agents.Slug(j(h, "calc"))); got != want {
			t.Errorf("%s: Claude Code project folder %s, want %s", c.goos, got, want)
		}
	}
}

// Claude Code and Qwen Code name a project's folder by its path with every
// character but letters and digits as '-': C:\Users\ada\calc is
// C--Users-ada-calc, as real Windows sessions show; the expectations are
// what Claude Code's own function (from its 2.1.330 bundle) returns.
func TestSlugOfAWindowsPath(t *testing.T) {
	for path, want := range map[string]string{
		`C:\Users\ada\calc`:     "C--Users-ada-calc",
		`E:\AI\my proj`:         "E--AI-my-proj",
		"/home/ada/calc":        "-home-ada-calc",
		`C:\Users\Zoë\Projekte`: "C--Users-Zo--Projekte",
		"/home/ada/🚀":           "-home-ada---",
		// Past 200 characters: the first 200 and the base-36 hash of the
		// path, as Claude Code 2.1.330's own function gives it.
		`C:\Users\ada\Documents\Projects\` + strings.Repeat("verylongfoldername", 12) + `\src`: "C--Users-ada-Documents-Projects-" +
			strings.Repeat("verylongfoldername", 9) + "verylo-9x472r",
	} {
		if got := agents.Slug(path); got != want {
			t.Errorf("Slug(%q) = %q, want %q", path, got, want)
		}
	}
}

// The home the agents take: %USERPROFILE% on Windows even when Git Bash
// set HOME, $HOME elsewhere.
func TestHomePerOS(t *testing.T) {
	env := map[string]string{"HOME": "/c/Users/ada", "USERPROFILE": `C:\Users\ada`, "APPDATA": `C:\Users\ada\AppData\Roaming`}
	got := agents.EnvFromOS(func(k string) string { return env[k] })
	want := env["HOME"]
	if runtime.GOOS == "windows" {
		want = env["USERPROFILE"]
	}
	if got.Home != want || got.AppData != env["APPDATA"] {
		t.Errorf("EnvFromOS on %s: home %q, appData %q; want %q, %q", runtime.GOOS, got.Home, got.AppData, want, env["APPDATA"])
	}
}

// VS Code's workspace.json names its folder by URI: a Windows folder comes
// back with its drive and backslashes on any OS.
func TestFileURIPath(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///c%3A/Users/ada/calc":   `c:\Users\ada\calc`,
		"file:///E:/AI/my%20proj":       `E:\AI\my proj`,
		"file://server/share/calc":      `\\server\share\calc`,
		"file:///home/ada/calc":         filepath.FromSlash("/home/ada/calc"),
		"file:///home/ada/with%20space": filepath.FromSlash("/home/ada/with space"),
	} {
		if got, ok := agents.FileURIPath(uri); !ok || got != want {
			t.Errorf("FileURIPath(%q) = %q, %v; want %q", uri, got, ok, want)
		}
	}
	for _, bad := range []string{"vscode-remote://ssh-remote+x/home/ada", "", "file://"} {
		if got, ok := agents.FileURIPath(bad); ok {
			t.Errorf("FileURIPath(%q) = %q; want none", bad, got)
		}
	}
}
