package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/search"
	"github.com/compactd/compactd/daemon/store"
)

func init() {
	register(&command{
		name:    "search",
		summary: "find a past session of any agent by what was said in it, and open it or continue it in another agent",
		run:     runSearch,
	})
}

const searchUsage = `usage: compactd search [--limit N] [--agent NAME] [--json] [--open N | --handoff AGENT [--hit N]] [--folder DIR] [--no-sync] [--store P] QUERY...
  QUERY: words (all of them, in one place of a session), "a quoted phrase" (as written), word* (any word it begins)`

// runSearch finds sessions by what was said in them: every agent's
// sessions on the machine and every stored version, from the index in
// the store, brought up to date first with what changed since it was
// last (a running server keeps it current; what it already indexed costs
// a look at each session's size).
func runSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("search", e)
	limit := fs.Int("limit", search.DefaultLimit, "the most sessions to list")
	agent := fs.String("agent", "", "only this agent's sessions (claude, codex, …)")
	asJSON := fs.Bool("json", false, "print the hits as JSON")
	open := fs.Int("open", 0, "print the transcript of hit N (1 is the first), to open it: $EDITOR \"$(compactd search --open 1 …)\"")
	handoff := fs.String("handoff", "", "continue hit --hit in this agent (compactd handoff --to AGENT)")
	hit := fs.Int("hit", 1, "with --handoff, which hit")
	folder := fs.String("folder", "", "the workspace whose transcripts are indexed beside the agents' (default: the working folder)")
	noSync := fs.Bool("no-sync", false, "answer from the index as it is, without looking for what changed")
	storeFlag := fs.String("store", "", "store database path (the index lives there)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return usagef("%s", searchUsage)
	}
	if *agent != "" && agents.ByName(*agent) == nil {
		return usagef("--agent %s: no such agent (%s)", *agent, strings.Join(agentNames(), ", "))
	}
	if *open < 0 || *hit < 1 {
		return usagef("--open and --hit count hits from 1")
	}
	ws := *folder
	if ws == "" {
		ws = workingDir()
	}
	if ws != "" {
		if abs, err := filepath.Abs(ws); err == nil {
			ws = abs
		}
	}
	cfg, err := config.Load(config.Nearest("", ws))
	if err != nil {
		return usagef("%v", err)
	}
	path, err := resolveStore(e, *storeFlag)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	x := search.New(search.Options{Store: st, Env: agents.EnvFromOS(e.getenv), Folders: func() []string { return []string{ws} },
		MaxBytes: cfg.Search.MaxIndexBytes(), Now: e.clock})
	defer x.Close()
	var synced *syncFigures
	if !*noSync {
		stats, err := x.Sync(ctx, nil)
		if err != nil {
			return err
		}
		if stats.Indexed > 0 || stats.Removed > 0 {
			synced = &syncFigures{Sessions: stats.Indexed, Read: stats.Bytes, Text: stats.Text, Dropped: stats.Removed}
			fmt.Fprintf(e.stderr, "compactd search: indexed %d %s (%s of text), dropped %d deleted\n", stats.Indexed, plural(stats.Indexed, "session"), sizeText(stats.Text), stats.Removed)
		}
	}
	want := *limit
	if *open > 0 {
		want = max(want, *open)
	}
	if *handoff != "" {
		want = max(want, *hit)
	}
	res, err := x.Search(ctx, search.Query{Text: query, Limit: want, Agent: *agent})
	if err != nil {
		return usagef("%v", err)
	}
	pick := func(n int) (search.Hit, error) {
		if n > len(res.Hits) {
			return search.Hit{}, fmt.Errorf("there are %d %s for %s", len(res.Hits), plural(len(res.Hits), "hit"), query)
		}
		return res.Hits[n-1], nil
	}
	switch {
	case *open > 0:
		h, err := pick(*open)
		if err != nil {
			return err
		}
		p, err := x.Materialize(ctx, h)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(e.stdout, p)
		return err
	case *handoff != "":
		h, err := pick(*hit)
		if err != nil {
			return err
		}
		p, err := x.Materialize(ctx, h)
		if err != nil {
			return err
		}
		return runHandoff(ctx, e, []string{"--to", *handoff, "--store", path, p})
	case *asJSON:
		return writeJSON(e.stdout, searchOutput{Results: res, Indexed: synced})
	}
	printHits(e.stdout, res)
	return nil
}

// searchOutput is what --json prints: the hits, and what bringing the
// index up to date cost when it indexed anything (what a script or a
// benchmark checks: a session that grew costs the bytes it grew by).
type searchOutput struct {
	*search.Results
	Indexed *syncFigures `json:"indexed,omitempty"`
}

// syncFigures are a search's sync: sessions (re)indexed, the bytes of
// them read, the text indexed, deleted sessions dropped.
type syncFigures struct {
	Sessions int   `json:"sessions"`
	Read     int64 `json:"read_bytes"`
	Text     int64 `json:"text_bytes"`
	Dropped  int   `json:"dropped"`
}

// printHits lists the hits, each with what says the words and how to go
// on from it:
//
//	1  claude  2026-05-01 09:00  /home/ada/src/shop  "Rename the pallet table"
//	   prompt: …rename the pallet table to bins…
//	   /home/ada/.claude/projects/-home-ada-src-shop/0e0e….jsonl:12
//	   resume: claude --resume 0e0e…
func printHits(w io.Writer, res *search.Results) {
	if len(res.Hits) == 0 {
		fmt.Fprintf(w, "no session says %s\n", res.Query)
		return
	}
	for i, h := range res.Hits {
		who := h.Agent
		if who == "" {
			who = h.Format
		}
		fmt.Fprintf(w, "%-2d %s  %s", i+1, who, h.Date.Local().Format("2006-01-02 15:04"))
		if h.Project != "" {
			fmt.Fprintf(w, "  %s", h.Project)
		}
		if h.Title != "" {
			fmt.Fprintf(w, "  %q", h.Title)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "   %s: %s\n", hitLabel(h), h.Snippet)
		switch {
		case h.Path != "" && h.Line > 0:
			fmt.Fprintf(w, "   %s:%d\n", h.Path, h.Line)
		case h.Path != "":
			fmt.Fprintf(w, "   %s\n", h.Path)
		}
		if h.Version != "" {
			fmt.Fprintf(w, "   stored version %s of %s\n", h.Version, h.Conversation)
		}
		if h.Resume != "" {
			fmt.Fprintf(w, "   resume: %s\n", h.Resume)
		}
	}
	if res.More {
		fmt.Fprintln(w, "(more sessions say it: --limit N lists more)")
	}
	fmt.Fprintf(w, "open one: compactd search --open N …; continue one in another agent: compactd search --handoff AGENT --hit N … (%s)\n", strings.Join(jobs.HandoffTargets(), ", "))
}

// hitLabel says what the match is in: a prompt, an answer, a tool call…
func hitLabel(h search.Hit) string {
	switch {
	case h.Part == "tool_call":
		return "call " + h.Tool
	case h.Part == "tool_result" && h.Tool != "":
		return "result of " + h.Tool
	case h.Part == "tool_result":
		return "tool result"
	case h.Part == "reasoning":
		return "reasoning"
	case h.Role == "user":
		return "prompt"
	case h.Role == "assistant":
		return "answer"
	}
	return h.Role
}

func agentNames() []string {
	var out []string
	for _, a := range agents.All() {
		out = append(out, a.Name)
	}
	return out
}

// sizeText is a byte count as people read it.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
