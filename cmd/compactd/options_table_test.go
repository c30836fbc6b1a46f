package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
	"github.com/compactd/compactd/lsp"
)

// TestEverySurfaceRunsTheSameOptions holds the four ways a compaction is
// asked for to one rule (config.CompactOptions over the transcript's
// configuration): `compactd compact` (the CLI), the editor's command (a
// code action's arguments, decoded as the server decodes them, run by the
// daemon method the command table names), automatic compaction
// (Daemon.AutoCompact, what the trigger runs) and the dry-run savings the
// hover shows (the daemon's background estimate). For every combination of
// keep_last in .compactd.toml (unset, 0, 3), in the editor's settings
// (unset, 0, 2) and in the CLI flag / command argument (unset, 0, 4), each
// surface saves exactly what the reference run with the keep_last it
// should apply saves:
//
//	CLI             flag, else the file, else the default (1)
//	code action     argument, else the editor's, else the file, else 1
//	auto, savings   the editor's, else the file, else 1
//
// keep_last = 0 protects no turn on every surface.
func TestEverySurfaceRunsTheSameOptions(t *testing.T) {
	envs := isolatedEnv(t)
	userFile := filepath.Join(envs["XDG_CONFIG_HOME"], "compactd", "config.toml")
	if err := os.MkdirAll(filepath.Dir(userFile), 0o755); err != nil {
		t.Fatal(err)
	}
	// One pipeline for all: the one strategy the savings estimate too.
	const strat = "strip-tool-results"
	if err := os.WriteFile(userFile, []byte("[compact]\nstrategies = [\""+strat+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// reference[k] is what the pipeline saves keeping k turns, measured
	// on a copy outside any workspace file.
	refDir := t.TempDir()
	session := sessiongen.ClaudeCode(sessiongen.Options{Seed: 11, Turns: 8, Cwd: refDir})
	refPath := filepath.Join(refDir, "ref.jsonl")
	if err := os.WriteFile(refPath, session, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), envs["COMPACTD_STORE"])
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runner := jobs.New(st)
	// The reference is the pipeline run with its own options, not through
	// the configuration: strategy.Options.KeepLast means what it says, 0
	// protects no turn.
	reference := map[int]int{}
	for _, k := range []int{0, 1, 2, 3, 4} {
		res, err := runner.Compact(t.Context(), jobs.Request{Path: refPath, DryRun: true, Options: strategy.Options{Strategies: []string{strat}, KeepLast: new(k)}})
		if err != nil {
			t.Fatal(err)
		}
		reference[k] = res.TokensBefore - res.TokensAfter
	}
	if reference[0] == reference[1] || reference[1] == reference[3] || reference[2] == reference[4] {
		t.Fatalf("the session cannot tell keep_last apart: saved %v", reference)
	}

	unset := -1
	for _, file := range []int{unset, 0, 3} {
		for _, client := range []int{unset, 0, 2} {
			ws := t.TempDir()
			path := filepath.Join(ws, "session.jsonl")
			if err := os.WriteFile(path, session, 0o644); err != nil {
				t.Fatal(err)
			}
			if file != unset {
				toml := "[compact]\nkeep_last = " + strconv.Itoa(file) + "\n"
				if err := os.WriteFile(filepath.Join(ws, config.WorkspaceFile), []byte(toml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			settings := map[string]any{}
			if client != unset {
				settings["compact"] = map[string]any{"keepLast": client}
			}
			clientJSON, err := json.Marshal(settings)
			if err != nil {
				t.Fatal(err)
			}
			snaps := make(chan *index.Snapshot, 64)
			d, err := daemon.New(daemon.Options{
				Folders: []string{ws}, Env: agents.Env{Home: envs["HOME"]},
				Config: config.Layers{Files: true, Client: clientJSON},
				Jobs:   runner, Savings: index.StrategySavings(tokens.NewCounterSet()), SavingsDelay: time.Millisecond,
				OnChange: func(ev index.Event) {
					if ev.Snapshot != nil && !ev.Snapshot.SavingsPending {
						select {
						case snaps <- ev.Snapshot:
						default:
						}
					}
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			first := func(vs ...int) int {
				for _, v := range vs {
					if v != unset {
						return v
					}
				}
				return config.Default().Compact.KeepLast
			}
			check := func(surface string, got, keep int) {
				t.Helper()
				if got != reference[keep] {
					t.Errorf("file %d, editor %d: %s saved %d, want %d (keep_last %d; -1 is unset)", file, client, surface, got, reference[keep], keep)
				}
			}

			// Savings and automatic compaction take no per-request override.
			var snap *index.Snapshot
			select {
			case snap = <-snaps:
			case <-time.After(time.Minute):
				t.Fatal("no savings estimate within a minute")
			}
			saved, ok := snap.Savings[strat]
			if !ok {
				t.Fatalf("no savings for %s: %v (%s)", strat, snap.Savings, snap.SavingsErr)
			}
			check("savings", saved, first(client, file))
			auto, err := d.AutoCompact(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			check("auto-compaction", auto.TokensBefore-auto.TokensAfter, first(client, file))

			for _, over := range []int{unset, 0, 4} {
				var cliArgs []string
				argsJSON := map[string]any{"uri": "file://" + filepath.ToSlash(path)}
				if over != unset {
					cliArgs = append(cliArgs, "--keep-last", strconv.Itoa(over))
					argsJSON["keepLast"] = over
				}
				check("CLI (over "+strconv.Itoa(over)+")", cliSaved(t, envs, path, cliArgs...), first(over, file))

				raw, err := json.Marshal(argsJSON)
				if err != nil {
					t.Fatal(err)
				}
				var args lsp.CommandArgs
				if err := json.Unmarshal(raw, &args); err != nil {
					t.Fatal(err)
				}
				res, err := d.DryRun(t.Context(), daemon.CompactRequest{Path: path, Overrides: args.Overrides()})
				if err != nil {
					t.Fatal(err)
				}
				check("code action (over "+strconv.Itoa(over)+")", res.TokensBefore-res.TokensAfter, first(over, client, file))
			}
			d.Close()
		}
	}
}

// cliSaved is what `compactd compact --dry-run --json` says it saves.
func cliSaved(t *testing.T, envs map[string]string, path string, flags ...string) int {
	t.Helper()
	code, stdout, stderr := runCLI(t, envs, append([]string{"compact", "--dry-run", "--json", path}, flags...)...)
	if code != 0 {
		t.Fatalf("compact %v: exit %d: %s", flags, code, stderr)
	}
	var res struct {
		TokensBefore, TokensAfter int
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("compact --json: %v: %s", err, stdout)
	}
	return res.TokensBefore - res.TokensAfter
}

// TestWindowAndToolsPrecedence holds the other settings that reach the
// pipeline to one rule each, on every surface that can set them:
//
//	window  --window (the CLI's compact and gauge), else gauge.context_window,
//	        else the transcript's model's window (the editor's command, auto,
//	        savings and the gauge take no flag: the file, else the model's)
//	tools   per tool and per field: the editor's settings, else the workspace
//	        file, else the user file (the CLI has no editor layer)
//
// Each surface's window is read where it shows it: the CLI's "before"
// figures and the options the store recorded, the daemon's job request and
// its snapshot; the tools where the pipeline receives them.
func TestWindowAndToolsPrecedence(t *testing.T) {
	envs := isolatedEnv(t)
	userFile := filepath.Join(envs["XDG_CONFIG_HOME"], "compactd", "config.toml")
	if err := os.MkdirAll(filepath.Dir(userFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(userFile, []byte("[compact]\nstrategies = [\"strip-tool-results\"]\n[tools.Bash]\nresponse = \"keep\"\ndedup = false\n[tools.Read]\nrequest = \"strip\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), envs["COMPACTD_STORE"])
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runner := jobs.New(st)
	const modelWindow, fileWindow, flagWindow = 200_000, 150_000, 120_000
	unset := 0
	for _, file := range []int{unset, fileWindow} {
		for _, flag := range []int{unset, flagWindow} {
			ws := t.TempDir()
			path := filepath.Join(ws, "session.jsonl")
			if err := os.WriteFile(path, sessiongen.ClaudeCode(sessiongen.Options{Seed: 5, Turns: 6, Cwd: ws}), 0o644); err != nil {
				t.Fatal(err)
			}
			toml := "[tools.Bash]\nrequest = \"strip\"\nresponse = \"strip\"\n"
			if file != unset {
				toml += "[gauge]\ncontext_window = " + strconv.Itoa(file) + "\n"
			}
			if err := os.WriteFile(filepath.Join(ws, config.WorkspaceFile), []byte(toml), 0o644); err != nil {
				t.Fatal(err)
			}
			first := func(vs ...int) int {
				for _, v := range vs {
					if v != unset {
						return v
					}
				}
				return modelWindow
			}
			check := func(surface string, got, want int) {
				t.Helper()
				if got != want {
					t.Errorf("file %d, flag %d: %s runs with window %d, want %d", file, flag, surface, got, want)
				}
			}
			var flags []string
			if flag != unset {
				flags = []string{"--window", strconv.Itoa(flag)}
			}

			// The CLI: the "before" figures and the options recorded.
			code, stdout, stderr := runCLI(t, envs, append([]string{"compact", "--json", path}, flags...)...)
			if code != 0 {
				t.Fatalf("compact: exit %d: %s", code, stderr)
			}
			var res struct {
				Window struct {
					ContextWindow int `json:"contextWindow"`
				} `json:"window"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("compact --json: %v: %s", err, stdout)
			}
			check("CLI compact's figures", res.Window.ContextWindow, first(flag, file))
			h, err := runner.History(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			last := h.Versions[len(h.Versions)-1]
			if last.Options == nil {
				t.Fatalf("the compaction recorded no options: %+v", last)
			}
			check("CLI compact's pipeline", last.Options.Window, first(flag, file))
			wantCLITools := map[string]strategy.ToolHint{"Bash": {Request: "strip", Response: "strip", Dedup: last.Options.Hints["Bash"].Dedup}, "Read": {Request: "strip"}}
			if d := last.Options.Hints["Bash"].Dedup; d == nil || *d {
				t.Errorf("CLI: tools.Bash.dedup = %v, want the user file's false", d)
			}
			if !reflect.DeepEqual(last.Options.Hints, wantCLITools) {
				t.Errorf("CLI: tools %+v, want %+v", last.Options.Hints, wantCLITools)
			}
			code, stdout, stderr = runCLI(t, envs, append([]string{"gauge", "--json", path}, flags...)...)
			if code != 0 {
				t.Fatalf("gauge: exit %d: %s", code, stderr)
			}
			var rows []struct {
				ContextWindow int `json:"contextWindow"`
			}
			if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != 1 {
				t.Fatalf("gauge --json: %v: %s", err, stdout)
			}
			check("CLI gauge", rows[0].ContextWindow, first(flag, file))

			// The server: no window flag; the editor's settings set a tool.
			client := []byte(`{"tools": {"Bash": {"response": "remove"}}}`)
			d, err := daemon.New(daemon.Options{Folders: []string{ws}, Env: agents.Env{Home: envs["HOME"]}, Config: config.Layers{Files: true, Client: client}, Jobs: runner})
			if err != nil {
				t.Fatal(err)
			}
			snap, err := d.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			check("the server's gauge", snap.Window, first(file))
			opts := d.JobRequest(daemon.CompactRequest{Path: path}).Options
			check("the editor's command", opts.Window, first(file))
			wantTools := map[string]strategy.ToolHint{"Bash": {Request: "strip", Response: "remove", Dedup: opts.Hints["Bash"].Dedup}, "Read": {Request: "strip"}}
			if !reflect.DeepEqual(opts.Hints, wantTools) {
				t.Errorf("the editor's command: tools %+v, want %+v", opts.Hints, wantTools)
			}
			d.Close()
		}
	}
}
