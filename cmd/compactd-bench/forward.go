package main

// The forward section measures compaction by what the conversation needed
// next (the evaluation the supercompact project publishes): real sessions
// are cut where the agent compacted (its summary is the anchor) and at 70 %
// of their turns (plain truncation is the baseline); a compaction of the
// prefix is as good as the share of the entities the rest of the
// conversation refers to — that the prefix already named — its
// model-visible text still holds. Every candidate is counted by one
// tokenizer (o200k_base) over the same rendering.
//
// compactd runs as a user runs it: the prefix is a session file, the
// compaction is `compactd compact --budget N` (the built bin/compactd),
// and the fork it writes is read back with the session's codec. What is
// scored is that fork's text.
//
// What the measure cannot see: whether a name kept is understood (a list
// of names scores like an explanation), what the agent would have done
// with what was lost, reasoning the agent kept encrypted (Codex's remote
// compaction summary is encrypted: its anchor is the replacement history's
// visible text only), and entities the extractor does not recognize.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	_ "github.com/compactd/compactd/compaction/format/all" // every codec
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() {
	register(section{
		Name:    "forward",
		Summary: "forward entity coverage on real sessions: compactd vs the agent's own summary at agent compactions, vs plain truncation at 70/30 cuts, at 2k/5k/10k/20k tokens",
		Run:     benchForward,
	})
}

// forwardBudgets are the token budgets of the curve.
var forwardBudgets = []int{2000, 5000, 10000, 20000}

// forwardStrategies are the pipelines the curve reports; the first is what
// the bars hold compactd to (what `compactd compact --budget N` runs by
// default).
var forwardStrategies = [][]string{{"auto"}, {"extractive"}, {"token-budget"}}

// A candidate is one compaction's scored result.
type candidate struct {
	Tokens int
	Kept   int
	Total  int
	Notes  []string
}

func (c candidate) share() float64 {
	if c.Total == 0 {
		return 1
	}
	return float64(c.Kept) / float64(c.Total)
}

// forwardScorer counts and scores candidates.
type forwardScorer struct {
	counter *tokens.Counter
}

func (s *forwardScorer) score(msgs []transcript.Message, ref entitySet) candidate {
	text := renderVisible(msgs)
	return candidate{Tokens: s.counter.Text(text), Kept: coverage(text, ref), Total: len(ref)}
}

// truncate is plain truncation: the newest messages whose text fits n
// tokens, the oldest of them cut to the tokens left.
func (s *forwardScorer) truncate(msgs []transcript.Message, ref entitySet, n int) candidate {
	var parts []string
	used := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		text := renderVisible(msgs[i : i+1])
		t := s.counter.Text(text)
		if used+t <= n {
			parts = append(parts, text)
			used += t
			continue
		}
		if left := n - used; left > 0 {
			parts = append(parts, s.tail(text, left))
		}
		break
	}
	slices.Reverse(parts)
	text := strings.Join(parts, "")
	return candidate{Tokens: s.counter.Text(text), Kept: coverage(text, ref), Total: len(ref)}
}

// tail is the end of text that fits n tokens.
func (s *forwardScorer) tail(text string, n int) string {
	lo, hi := 0, len(text)
	for lo < hi {
		mid := (lo + hi) / 2
		if s.counter.Text(text[mid:]) <= n {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return text[lo:]
}

// forwardCompactor runs compactd on a cut's prefix the way a user does:
// `compactd compact --budget N --strategy S --out FORK session`, through
// the built binary, with its own home and store.
type forwardCompactor struct {
	bin string
	env []string
	dir string
	seq int
}

// forkResult is the part of `compact --json` the section reads.
type forkResult struct {
	ForkPath string   `json:"forkPath"`
	Notes    []string `json:"notes"`
}

// compact writes the cut's prefix as a session file (once per cut) and
// compacts it with strategies to budget, returning the fork's messages.
func (fc *forwardCompactor) compact(ctx context.Context, cut *forwardCut, cutDir string, strategies []string, budget int) ([]transcript.Message, *forkResult, error) {
	src := filepath.Join(cutDir, "session"+cut.Ext)
	if _, err := os.Stat(src); err != nil {
		if err := os.MkdirAll(cutDir, 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(src, cut.Prefix, 0o644); err != nil {
			return nil, nil, err
		}
	}
	fc.seq++
	out := filepath.Join(cutDir, fmt.Sprintf("fork-%d%s", fc.seq, cut.Ext))
	defer os.Remove(out)
	args := []string{"compact", "--json", "--budget", fmt.Sprint(budget), "--out", out}
	for _, s := range strategies {
		args = append(args, "--strategy", s)
	}
	res := &forkResult{}
	if err := runJSON(ctx, fc.bin, fc.env, res, append(args, src)...); err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(res.ForkPath)
	if err != nil {
		return nil, nil, err
	}
	t, err := cut.Codec.Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("the fork does not parse: %w", err)
	}
	return t.Messages, res, nil
}

// forwardResult is one cut's figures.
type forwardResult struct {
	cut    *forwardCut
	before int // the prefix's tokens
	anchor candidate
	// atAnchor are compactd and truncation at the anchor's tokens.
	atAnchor, truncAnchor candidate
	// curve[strategy][budget] and trunc[strategy][budget] (truncation to
	// the tokens that strategy used).
	curve, trunc map[string]map[int]candidate
}

func benchForward(ctx context.Context, cfg *config) ([]row, error) {
	split := os.Getenv("COMPACTD_FORWARD_SPLIT")
	if split == "" {
		split = "bench"
	}
	sources, err := forwardSources(split)
	if err != nil {
		return nil, err
	}
	var cuts []*forwardCut
	for _, src := range sources {
		cs, err := loadCuts(src)
		if err != nil {
			return nil, err
		}
		cuts = append(cuts, cs...)
	}
	if cfg.Quick {
		cuts = quickCuts(cuts)
	}
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		return nil, err
	}
	sc := &forwardScorer{counter: counter}
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Join(cfg.TempDir, "forward"))
	fc := &forwardCompactor{bin: bin, env: serverEnv(cfg, filepath.Join(cfg.TempDir, "forward", "store", "compactd.db")), dir: filepath.Join(cfg.TempDir, "forward")}

	var results []*forwardResult
	start := time.Now()
	for ci, cut := range cuts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := &forwardResult{cut: cut, curve: map[string]map[int]candidate{}, trunc: map[string]map[int]candidate{}}
		r.before = counter.Text(renderVisible(cut.Before))
		cutDir := filepath.Join(fc.dir, fmt.Sprintf("cut-%02d", ci))
		run := func(strategies []string, budget int) (candidate, error) {
			msgs, res, err := fc.compact(ctx, cut, cutDir, strategies, budget)
			if err != nil {
				return candidate{}, fmt.Errorf("%s %s, %s at %d tokens: %w", cut.Session, cut.Label, strings.Join(strategies, "+"), budget, err)
			}
			c := sc.score(msgs, cut.Reference)
			c.Notes = res.Notes
			return c, nil
		}
		if cut.Kind == cutAgent {
			r.anchor = sc.score(cut.Anchor, cut.Reference)
			if r.atAnchor, err = run(forwardStrategies[0], r.anchor.Tokens); err != nil {
				return nil, err
			}
			r.truncAnchor = sc.truncate(cut.Before, cut.Reference, r.anchor.Tokens)
		}
		for _, strat := range forwardStrategies {
			name := strings.Join(strat, "+")
			r.curve[name], r.trunc[name] = map[int]candidate{}, map[int]candidate{}
			for _, b := range forwardBudgets {
				if r.before < b*5/4 {
					continue // the whole prefix fits: nothing to choose
				}
				if cfg.Quick && name != "auto" {
					continue
				}
				c, err := run(strat, b)
				if err != nil {
					return nil, err
				}
				r.curve[name][b] = c
				r.trunc[name][b] = sc.truncate(cut.Before, cut.Reference, c.Tokens)
			}
		}
		cfg.logf("forward: %s %s (%s tokens, %d reference entities): %s", cut.Session, cut.Label, tokens.Thousands(r.before), len(cut.Reference), r.brief())
		results = append(results, r)
	}
	cfg.logf("forward: %d cuts in %v", len(results), time.Since(start).Round(time.Second))
	return forwardRows(results, split), nil
}

// quickCuts keeps a few cuts of each kind for -quick.
func quickCuts(cuts []*forwardCut) []*forwardCut {
	var out []*forwardCut
	n := map[string]int{}
	for _, c := range cuts {
		if n[c.Kind] < 3 {
			out = append(out, c)
			n[c.Kind]++
		}
	}
	return out
}

func (r *forwardResult) brief() string {
	var b strings.Builder
	if r.cut.Kind == cutAgent {
		fmt.Fprintf(&b, "agent %.0f%% at %d, compactd %.0f%% at %d, truncation %.0f%%; ", 100*r.anchor.share(), r.anchor.Tokens,
			100*r.atAnchor.share(), r.atAnchor.Tokens, 100*r.truncAnchor.share())
	}
	for _, bud := range forwardBudgets {
		if c, ok := r.curve["auto"][bud]; ok {
			fmt.Fprintf(&b, "%dk: %.0f%%/%.0f%% (%d) ", bud/1000, 100*c.share(), 100*r.trunc["auto"][bud].share(), c.Tokens)
		}
	}
	return b.String()
}

// forwardRows turns the results into the bench's rows: the three bars,
// then the curve per strategy.
func forwardRows(results []*forwardResult, split string) []row {
	var rows []row
	// Bar 1: at the agent summary's tokens.
	var agentCuts, wins int
	agents := map[string]bool{}
	var anchorShare, oursShare, truncShare float64
	var anchorTokens, oursTokens int
	for _, r := range results {
		if r.cut.Kind != cutAgent {
			continue
		}
		agentCuts++
		agents[string(r.cut.Codec.Format())] = true
		anchorShare += r.anchor.share()
		oursShare += r.atAnchor.share()
		truncShare += r.truncAnchor.share()
		anchorTokens += r.anchor.Tokens
		oursTokens += r.atAnchor.Tokens
		if r.atAnchor.share() >= r.anchor.share() && float64(r.atAnchor.Tokens) <= 1.05*float64(r.anchor.Tokens) {
			wins++
		}
	}
	if agentCuts > 0 {
		n := float64(agentCuts)
		names := make([]string, 0, len(agents))
		for a := range agents {
			names = append(names, a)
		}
		sort.Strings(names)
		rows = append(rows, row{
			Name: fmt.Sprintf("agent-compaction cuts (%d cuts, %d agents: %s): compactd at the agent summary's tokens covers ≥ the summary's reference entities", agentCuts, len(agents), strings.Join(names, ", ")),
			Value: fmt.Sprintf("%d of %d (%.0f %%); mean: agent %.1f %% at %s tokens, compactd %.1f %% at %s, truncation %.1f %%", wins, agentCuts, 100*float64(wins)/n,
				100*anchorShare/n, tokens.Thousands(anchorTokens/agentCuts), 100*oursShare/n, tokens.Thousands(oursTokens/agentCuts), 100*truncShare/n),
			Anchor: "≥ 75 % of ≥ 10 cuts, ≥ 2 agents",
			Pass:   agentCuts >= 10 && len(agents) >= 2 && float64(wins) >= 0.75*n,
		})
	}
	// Bar 2: 70/30 cuts against truncation, per budget.
	for _, b := range forwardBudgets {
		var n int
		var ours, trunc float64
		for _, r := range results {
			c, ok := r.curve["auto"][b]
			if r.cut.Kind != cut7030 || !ok {
				continue
			}
			n++
			ours += c.share()
			trunc += r.trunc["auto"][b].share()
		}
		if n == 0 {
			continue
		}
		ours, trunc = ours/float64(n), trunc/float64(n)
		lossRatio := 0.0
		if trunc < 1 {
			lossRatio = (1 - ours) / (1 - trunc)
		}
		rows = append(rows, row{
			Name:   fmt.Sprintf("70/30 cuts at %s tokens (%d cuts): what compactd loses ÷ what plain truncation to the same tokens loses", tokens.Thousands(b), n),
			Value:  fmt.Sprintf("%.2f (compactd keeps %.1f %%, truncation %.1f %%)", lossRatio, 100*ours, 100*trunc),
			Anchor: "≤ 0.60",
			Pass:   lossRatio <= 0.6,
		})
	}
	// Bar 3: the budget is met.
	var runs, within int
	var worst float64
	for _, r := range results {
		for _, byBudget := range r.curve {
			for b, c := range byBudget {
				runs++
				dev := float64(c.Tokens-b) / float64(b)
				if dev <= 0.05 {
					within++
				}
				worst = max(worst, dev)
			}
		}
	}
	if runs > 0 {
		rows = append(rows, row{
			Name:   "compactions that land within 5 % of their budget (o200k count of the fork's visible text)",
			Value:  fmt.Sprintf("%d of %d (worst %+.1f %%)", within, runs, 100*worst),
			Anchor: "all",
			Pass:   within == runs,
		})
	}
	// The curve per strategy, both kinds of cut.
	for _, kind := range []string{cutAgent, cut7030} {
		for _, strat := range forwardStrategies {
			name := strings.Join(strat, "+")
			var cells []string
			for _, b := range forwardBudgets {
				var n, toks int
				var ours, trunc float64
				for _, r := range results {
					c, ok := r.curve[name][b]
					if r.cut.Kind != kind || !ok {
						continue
					}
					n++
					toks += c.Tokens
					ours += c.share()
					trunc += r.trunc[name][b].share()
				}
				if n == 0 {
					continue
				}
				cells = append(cells, fmt.Sprintf("%s: %.1f %% vs %.1f %% (%s tokens, %d cuts)", tokens.Thousands(b), 100*ours/float64(n), 100*trunc/float64(n), tokens.Thousands(toks/n), n))
			}
			if len(cells) > 0 {
				rows = append(rows, row{Name: fmt.Sprintf("curve, %s cuts, %s vs truncation to the same tokens", kind, name), Value: strings.Join(cells, "; ")})
			}
		}
	}
	if split != "bench" {
		for i := range rows {
			rows[i].Name = split + " split: " + rows[i].Name
		}
	}
	return rows
}
