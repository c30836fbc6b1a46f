package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/compactd/compactd/compaction/facts"
	_ "github.com/compactd/compactd/compaction/format/all" // every codec
	_ "github.com/compactd/compactd/compaction/format/anthropic"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agentdb"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
	"github.com/compactd/compactd/daemon/watch"
)

func init() {
	register(&command{
		name:    "compact",
		summary: "compact a transcript into a new version (fork, dry run or in place)",
		run:     runCompact,
	})
}

// listFlag collects a repeatable flag; commas also separate values.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// turnsFlag collects turn numbers from a repeatable flag; commas also
// separate values.
type turnsFlag []int

func (l *turnsFlag) String() string { return fmt.Sprint([]int(*l)) }
func (l *turnsFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a turn number", s)
		}
		*l = append(*l, n)
	}
	return nil
}

// parseArgs parses flags that may come before or after positionals.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usagef("%v", err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func newFlagSet(name string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// openRunner opens the store (--store, else COMPACTD_STORE, else XDG) and
// returns a job runner on it.
func openRunner(ctx context.Context, e *env, storeFlag string) (*jobs.Runner, func(), error) {
	path, err := resolveStore(e, storeFlag)
	if err != nil {
		return nil, nil, err
	}
	s, err := store.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	return jobs.New(s), func() { once.Do(func() { s.Close() }) }, nil
}

// storeRefused says first that the transcript is safe when a writing
// command could not open its store.
func storeRefused(transcript string, err error) error {
	var se *store.StoreError
	if !errors.As(err, &se) {
		return err
	}
	if abs, aerr := filepath.Abs(transcript); aerr == nil {
		transcript = abs
	}
	return fmt.Errorf("%s is untouched: %w", transcript, err)
}

// resolveStore is the store's path: --store, else COMPACTD_STORE, else XDG.
func resolveStore(e *env, storeFlag string) (string, error) {
	if storeFlag != "" {
		return storeFlag, nil
	}
	return store.DefaultPath(e.getenv)
}

func runCompact(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("compact", e)
	var strategies listFlag
	fs.Var(&strategies, "strategy", "strategy to apply (repeatable, applied left to right; default auto)")
	keepLast := fs.Int("keep-last", 0, "never touch the last N turns")
	turns := fs.Int("turns", 0, "turns turn-window keeps (default [compact] turns, else 10)")
	budget := fs.Int("budget", 0, "fit the result in N tokens, whatever the strategies (default [compact] budget; 0: none)")
	var pin, unpin turnsFlag
	fs.Var(&pin, "pin", "keep the message on this line of the transcript verbatim in every compaction (repeatable; stored with the conversation)")
	fs.Var(&unpin, "unpin", "stop keeping the message on this line verbatim (repeatable)")
	beforeAgent := fs.String("before", "", "compact the conversation as it was before the agent's own compaction aN (see history) instead, and compare with the agent's summary")
	dryRun := fs.Bool("dry-run", false, "compute and report only; write a Markdown report, change nothing")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	out := fs.String("out", "", "write the fork to this path")
	inPlace := fs.Bool("in-place", false, "replace the transcript itself (its prior content is kept in the store)")
	importFork := fs.Bool("import", false, "opencode and Kilo sessions: have the agent import the fork (its executable must be on PATH)")
	storePath := fs.String("store", "", "store database path")
	window := fs.Int("window", 0, "the model's context window in tokens; wins over gauge.context_window (default: gauge.context_window, else the transcript's model)")
	session := fs.String("session", "", "opencode and Kilo: the session of the database to compact (default: the one of this folder)")
	removeTangents := fs.Bool("remove-tangents", false, "with classify-tangents: remove every turn the model lists as a tangent")
	var removeTangent turnsFlag
	fs.Var(&removeTangent, "remove-tangent", "with classify-tangents: remove this tangent turn if the model lists it (repeatable)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: compactd compact [--strategy S]... [--keep-last N] [--budget N] [--pin LINE]... [--unpin LINE]... [--window N] [--dry-run] [--json] [--out PATH] [--in-place] [--import] [--session ID] [--store P] [--remove-tangents | --remove-tangent N]... PATH")
	}
	if *inPlace && (*out != "" || *dryRun) {
		return usagef("--in-place cannot be combined with --out or --dry-run")
	}
	if err := strategy.ValidateStrategies(strategies); err != nil {
		return usagef("%v", err)
	}
	if pos[0], err = sourceOf(ctx, e, pos[0], *session); err != nil {
		return err
	}
	// The config gives the defaults; flags the user typed override them.
	file := config.Nearest(pos[0], workingDir())
	cfg, err := config.Load(file)
	if err != nil {
		return usagef("%v", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var over config.Overrides
	if set["strategy"] {
		over.Strategies = strategies
	}
	if set["turns"] {
		over.Turns = turns
	}
	if set["keep-last"] {
		over.KeepLast = keepLast
	}
	if set["window"] {
		over.Window = window
	}
	if set["budget"] {
		over.Budget = budget
	}
	if err := over.Check(); err != nil {
		return usagef("--%v", err)
	}
	opts := cfg.CompactOptions(0, over)
	if (*removeTangents || len(removeTangent) > 0) && !slices.Contains(opts.Strategies, strategy.StrategyClassifyTangents) {
		return usagef("--remove-tangents and --remove-tangent need --strategy %s", strategy.StrategyClassifyTangents)
	}
	workspace := ""
	if file != "" {
		workspace = filepath.Dir(file)
	}
	if *storePath == "" && e.getenv("COMPACTD_STORE") == "" {
		*storePath = cfg.Store.Path
	}
	r, closeStore, err := openRunner(ctx, e, *storePath)
	if err != nil {
		if *dryRun {
			return err
		}
		return storeRefused(pos[0], err)
	}
	defer closeStore()
	for _, p := range []struct {
		lines turnsFlag
		on    bool
	}{{unpin, false}, {pin, true}} {
		for _, line := range p.lines {
			res, err := r.Pin(ctx, pos[0], line, p.on)
			if err != nil {
				return err
			}
			if !*asJSON {
				fmt.Fprintln(e.stdout, res.Message)
			}
		}
	}
	// What the window holds and what a turn costs, measured on the
	// source as the job parsed it, before anything is replaced.
	var before *figures
	inspect := func(ctx context.Context, t *transcript.Transcript, counters *tokens.CounterSet, counted jobs.Counted) {
		// The window the pipeline runs with (config.CompactOptions: --window,
		// else gauge.context_window; 0 leaves it to the transcript's model).
		before, _ = measure(ctx, t, measureOptions{
			gauge:    gauge.Options{Model: cfg.Gauge.Model, ContextWindow: opts.Window, Registry: tokens.NewRegistry()},
			counters: counters,
			prices:   cfg.PriceTable(),
			keepLast: opts.KeepLastTurns(),
			counted:  counted,
		})
	}
	res, err := r.Compact(ctx, jobs.Request{
		Path:      pos[0],
		Options:   opts,
		Summarize: cfg.Summarize,
		Workspace: workspace,
		DryRun:    *dryRun, InPlace: *inPlace, Out: *out,
		ConfirmedTangents: removeTangent, ConfirmAllTangents: *removeTangents,
		Import: *importFork, Inspect: inspect, Before: *beforeAgent,
	})
	if err != nil {
		return err
	}
	w := windowOf(before, res, e.clock())
	if *asJSON {
		return writeJSON(e.stdout, struct {
			*jobs.Result
			Window *compactWindow `json:"window,omitempty"`
		}{res, w})
	}
	printCompact(e.stdout, res)
	printWindow(e.stdout, before, w)
	return nil
}

// compactWindow is what a compaction means for the context window: the
// figures of `compact --json` beside the job's result.
type compactWindow struct {
	Tokens        int `json:"tokens"`
	ContextWindow int `json:"contextWindow"`
	// After is the window's estimated figure after the compaction: the
	// result's count plus what lies outside the transcript (gauge.Overhead)
	// plus what the agent sends again beside the fork (Result.Resent).
	After     int             `json:"after"`
	Breakdown gauge.Breakdown `json:"breakdown"`
	Reach     string          `json:"reach"`
	// Why explains a compaction that saves little of the window; "" when
	// it saves a useful share.
	Why           string           `json:"why,omitempty"`
	Cost          *pricing.Figures `json:"cost"`
	SavingPerTurn *pricing.Saving  `json:"savingPerTurn"`
	// Economics is what compacting now costs once (the kept context
	// written to the cache), saves per turn, and after how many turns it
	// pays back; whether the cache is already cold. nil without a price.
	Economics *pricing.Economics `json:"economics"`
}

func windowOf(f *figures, res *jobs.Result, now time.Time) *compactWindow {
	if f == nil || f.breakdown.Inside != res.TokensBefore {
		// Counted differently (another model's encoding): no figure
		// rather than a wrong one.
		return nil
	}
	saved := res.TokensBefore - res.TokensAfter
	over, _ := gauge.Overhead(f.gauge, f.breakdown.Inside)
	// The agent sends again, beside the fork, what res.Resent counts.
	w := &compactWindow{
		Tokens: f.gauge.Tokens, ContextWindow: f.gauge.ContextWindow, After: res.TokensAfter + max(over, 0) + res.Resent,
		Breakdown: f.breakdown, Reach: f.breakdown.Reach(), Why: f.breakdown.WhyLittle(saved), Cost: f.cost,
	}
	if f.price != nil {
		s := f.price.PerTurnSaving(f.gauge.Tokens, saved)
		w.SavingPerTurn = &s
		w.Economics = f.economics(w.Tokens-w.After, now)
	}
	return w
}

// printWindow says what the compaction does to the window:
//
//	window: 194,791 / 200,000 tokens (97.4 %): 191,537 outside the transcript, 3,254 in it
//	why so little: 98 % of what the model reads (…) is outside the transcript (…): compaction can reach at most 48 tokens
//	cost at claude-sonnet-4 list prices of 2026-11-23: … · this compaction saves $0 per turn cached, $0 uncached
func printWindow(out io.Writer, f *figures, w *compactWindow) {
	if w == nil {
		return
	}
	b := f.breakdown
	fmt.Fprintf(out, "window: %s / %s tokens (%.1f %%)", tokens.Thousands(w.Tokens), tokens.Thousands(w.ContextWindow), 100*b.Share(w.Tokens))
	switch {
	case b.Outside.Measured && b.Outside.Tokens >= 0:
		fmt.Fprintf(out, ": %s outside the transcript, %s in it; after ≈ %s", tokens.Thousands(b.Outside.Tokens), tokens.Thousands(b.Inside), tokens.Thousands(w.After))
	case b.Outside.Measured:
		fmt.Fprintf(out, ": we count %s in the transcript, above the API's figure, so nothing outside it is measurable; after ≈ %s", tokens.Thousands(b.Inside), tokens.Thousands(w.After))
	}
	fmt.Fprintln(out)
	if w.Why != "" {
		fmt.Fprintf(out, "why so little: %s\n", w.Why)
	}
	if line := costLine(f, f.gauge.Tokens-w.After); line != "" {
		fmt.Fprintln(out, line)
	}
	if e := w.Economics; e != nil {
		fmt.Fprintln(out, "economics: "+e.Line)
	}
}

// workingDir is the folder the command runs in, "" when it is gone.
func workingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printCompact(w io.Writer, res *jobs.Result) {
	saved := 0.0
	if res.TokensBefore > 0 {
		saved = 100 * float64(res.TokensBefore-res.TokensAfter) / float64(res.TokensBefore)
	}
	switch {
	case res.DryRun:
		fmt.Fprintf(w, "dry run: nothing written\n")
	default:
		fmt.Fprintf(w, "%s (from %s) written to %s\n", res.Version, res.Parent, res.ForkPath)
	}
	fmt.Fprintf(w, "tokens: %s → %s (%.1f%% saved)\n", tokens.Thousands(res.TokensBefore), tokens.Thousands(res.TokensAfter), saved)
	summarized := false
	for _, s := range res.Steps {
		if s.TokensSaved < 0 {
			// The fit's restore: room was left under the budget, so it put
			// back output that the steps before it had stripped.
			fmt.Fprintf(w, "  %-20s removed %s events, brought back %s tokens the steps before it stripped (room left under the budget)\n", s.Strategy, tokens.Thousands(s.EventsRemoved), tokens.Thousands(-s.TokensSaved))
		} else {
			fmt.Fprintf(w, "  %-20s removed %s events, saved %s tokens\n", s.Strategy, tokens.Thousands(s.EventsRemoved), tokens.Thousands(s.TokensSaved))
		}
		switch s.Strategy {
		case strategy.StrategySummarize, strategy.StrategyExtractive, strategy.StrategyNotes:
			summarized = true
		}
	}
	fmt.Fprintf(w, "retention: %.2f", res.Retention.Score)
	if n := len(res.Retention.Lost); n > 0 {
		lost := make([]string, 0, n)
		for _, f := range res.Retention.Lost {
			lost = append(lost, f.Text)
		}
		sort.Strings(lost)
		fmt.Fprintf(w, " (lost: %s)", strings.Join(lost, "; "))
	}
	fmt.Fprintln(w)
	if files := res.Retention.ContentsLost; len(files) > 0 {
		fmt.Fprintf(w, "contents no longer in the conversation (the agent would read them again): %s\n", strings.Join(files, ", "))
	}
	// Name the summarizer only when a summary step ran: auto summarizes
	// only above its threshold.
	if res.Summarizer != "" && summarized {
		fmt.Fprintf(w, "summarizer: %s\n", res.Summarizer)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	printTangents(w, res)
	printTradeOff(w, res.TradeOff)
	printAgentRetention(w, res.AgentRetention)
	if res.Carried > 0 {
		fmt.Fprintf(w, "kept %d bytes the agent appended meanwhile\n", res.Carried)
	}
	if res.ReportPath != "" {
		fmt.Fprintf(w, "report: %s\n", res.ReportPath)
	}
	if res.Imported {
		fmt.Fprintf(w, "imported: session %s\n", res.Session)
	}
	if res.Resume != "" {
		fmt.Fprintf(w, "resume: %s\n", res.Resume)
	}
}

// printAgentRetention compares the agent's own summary with compactd's
// compaction of the same history:
//
//	the agent's a2 (compact_boundary) kept 0.71 of the key facts, this compaction 1.00
//	  the agent's summary lost, this keeps: command go test ./internal/api/ -run TestRateLimitBurst -v; path internal/api/limit.go
func printAgentRetention(w io.Writer, ar *jobs.AgentRetention) {
	if ar == nil {
		return
	}
	fmt.Fprintf(w, "the agent's %s (%s) kept %.2f of the key facts, this compaction %.2f\n", ar.Compaction, ar.Kind, ar.Agent.Score, ar.Ours.Score)
	list := func(fs []facts.Fact) string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = f.Kind + " " + facts.Truncate(f.Text, 100)
		}
		return strings.Join(out, "; ")
	}
	if len(ar.AgentLostOursKept) > 0 {
		fmt.Fprintf(w, "  the agent's summary lost, this keeps: %s\n", list(ar.AgentLostOursKept))
	}
	if len(ar.OursLostAgentKept) > 0 {
		fmt.Fprintf(w, "  this lost, the agent's summary keeps: %s\n", list(ar.OursLostAgentKept))
	}
}

// printTradeOff shows what a few budgets would keep, so the user picks
// one (--budget):
//
//	trade-off (--budget N: tokens after, share of the conversation's names kept):
//	  1,200 → 1,180   58 %
//	  2,400 → 2,350   71 %  ← knee
func printTradeOff(w io.Writer, points []strategy.TradePoint) {
	if len(points) == 0 {
		return
	}
	fmt.Fprintln(w, "trade-off (--budget N: tokens after, share of the conversation's names kept):")
	for _, p := range points {
		knee := ""
		if p.Knee {
			knee = "  ← knee"
		}
		fmt.Fprintf(w, "  %8s → %-8s %3.0f %%%s\n", tokens.Thousands(p.Budget), tokens.Thousands(p.Tokens), 100*p.Kept, knee)
	}
}

// printTangents lists the turns classify-tangents found, one line each,
// and says what became of them.
func printTangents(w io.Writer, res *jobs.Result) {
	if len(res.Tangents) == 0 {
		return
	}
	fmt.Fprintln(w, "tangents (turns the model judged unrelated to the current task):")
	for _, t := range res.Tangents {
		state := "kept"
		switch {
		case t.Removed && res.DryRun:
			state = "would be removed"
		case t.Removed:
			state = "removed"
		}
		fmt.Fprintf(w, "  turn %-4d %7d tokens  %-16s %s\n", t.Turn, t.Tokens, state, t.Preview)
	}
	pending := res.PendingTangents()
	if len(pending) == 0 {
		return
	}
	tokens := 0
	for _, t := range pending {
		tokens += t.Tokens
	}
	turns := fmt.Sprintf("%d tangent turn", len(pending))
	if len(pending) != 1 {
		turns += "s"
	}
	if res.DryRun {
		fmt.Fprintf(w, "would remove %s (%d tokens) only when confirmed: add --remove-tangents, or --remove-tangent N per turn\n", turns, tokens)
		return
	}
	fmt.Fprintf(w, "kept %s (%d tokens), since not confirmed: rerun with --remove-tangents, or --remove-tangent N per turn, to remove them\n", turns, tokens)
}

// sourceOf is the transcript a command works on: path itself, or for an
// agent's session database (opencode.db, kilo.db) the session --session
// names, else the one of the current folder.
func sourceOf(ctx context.Context, e *env, path, session string) (string, error) {
	switch {
	case watch.IsAgentDatabase(path) && session != "":
		return watch.RenderDatabaseSession(ctx, agents.EnvFromOS(e.getenv), path, session)
	case watch.IsAgentDatabase(path):
		return sessionOfDatabase(ctx, e, path)
	case session != "":
		return "", usagef("--session names a session of an agent's database (opencode.db, kilo.db); %s is not one", path)
	}
	return path, nil
}

// sessionOfDatabase renders the sessions an agent's database holds for the
// current folder and returns the one to compact: it must be exactly one.
func sessionOfDatabase(ctx context.Context, e *env, db string) (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	rendered, err := watch.RenderDatabase(ctx, agents.EnvFromOS(e.getenv), db, []string{cwd})
	if err != nil {
		return "", err
	}
	if len(rendered) == 1 {
		return rendered[0], nil
	}
	all, err := watch.DatabaseSessions(ctx, db)
	if err != nil {
		return "", err
	}
	if len(rendered) == 0 {
		return "", fmt.Errorf("%s holds no session of %s; name one with --session ID: it holds %s", db, cwd, watch.ListSessions(all))
	}
	var here []agentdb.Session
	for _, s := range all {
		if slices.ContainsFunc(rendered, func(p string) bool { return strings.Contains(p, s.ID) }) {
			here = append(here, s)
		}
	}
	return "", fmt.Errorf("%s holds %d sessions of %s; name one with --session ID: %s", db, len(rendered), cwd, watch.ListSessions(here))
}
