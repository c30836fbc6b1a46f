package main

// The forward section measures compaction by what the conversation needed
// next (the evaluation the supercompact project publishes): real sessions
// are cut where the agent compacted (its summary is the anchor) and at 50 %
// and 70 % of their prompts (plain truncation is the baseline); a
// compaction of the prefix is as good as the share of the entities the
// rest of the conversation refers to — that the prefix already named — its
// model-visible text still holds, and as the share of the working state
// (forward_state.go) it still shows. Every candidate is counted by one
// tokenizer (o200k_base) over the same rendering.
//
// The sessions are split by project into a tuning half and a validation
// half (testdata/forward/manifest.json); the section reports each, per
// agent and per budget, and holds the validation half to the bars.
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
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/compactd/compactd/compaction/format/all" // every codec
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() {
	register(section{
		Name:    "forward",
		Summary: "forward entity coverage and working state on real sessions, per half, agent and budget: compactd vs the agent's own summary at agent compactions, vs plain truncation at 50/50 and 70/30 cuts, at 2k/5k/10k/20k tokens",
		Run:     benchForward,
	})
}

// forwardBudgets are the token budgets of the curve
// ($COMPACTD_FORWARD_BUDGETS, comma-separated, narrows a run).
var forwardBudgets = func() []int {
	var out []int
	for _, s := range strings.Split(os.Getenv("COMPACTD_FORWARD_BUDGETS"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = []int{2000, 5000, 10000, 20000}
	}
	return out
}()

// forwardStrategies are the pipelines the curve reports: "auto", what
// `compactd compact --budget N` runs by default and what the bars hold
// compactd to, then those $COMPACTD_FORWARD_STRATEGIES adds
// (comma-separated; "a+b" is a pipeline).
func forwardStrategies() [][]string {
	out := [][]string{{"auto"}}
	for _, s := range strings.Split(os.Getenv("COMPACTD_FORWARD_STRATEGIES"), ",") {
		if s = strings.TrimSpace(s); s != "" && s != "auto" {
			out = append(out, strings.Split(s, "+"))
		}
	}
	return out
}

// Bars the validation half is held to.
const (
	// lossRatioBar: what compactd loses of the reference over what
	// truncation to the same tokens loses, at every budget.
	lossRatioBar = 0.45
	// anchorWinsBar: the share of an agent's compaction cuts where
	// compactd at the summary's size keeps at least as much as the
	// summary, for every agent that writes a readable summary.
	anchorWinsBar = 0.8
)

// A candidate is one compaction's scored result.
type candidate struct {
	Tokens int
	Kept   int
	Total  int
	// StateKept of StateTotal files' last state the text still shows.
	StateKept, StateTotal int
	Notes                 []string
	// Failed is why the compaction failed ("" when it did not): it then
	// kept nothing.
	Failed      string
	text, plain string // for dumps
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

func (s *forwardScorer) score(msgs []transcript.Message, cut *forwardCut) candidate {
	text, plain := renderVisible(msgs), renderPlain(msgs)
	return candidate{Tokens: s.counter.Text(text), Kept: coverage(text, cut.Reference), Total: len(cut.Reference),
		StateKept: stateKept(plain, cut.State), StateTotal: len(cut.State), text: text, plain: plain}
}

// truncate is plain truncation: the newest messages whose text fits n
// tokens, the oldest of them cut to the tokens left.
func (s *forwardScorer) truncate(cut *forwardCut, n int) candidate {
	msgs := cut.Before
	var parts, plains []string
	used := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if isSystemPrompt(&msgs[i]) {
			continue
		}
		text := renderVisible(msgs[i : i+1])
		t := s.counter.Text(text)
		if used+t <= n {
			parts = append(parts, text)
			plains = append(plains, renderPlain(msgs[i:i+1]))
			used += t
			continue
		}
		if left := n - used; left > 0 {
			parts = append(parts, s.tail(text, left))
			plains = append(plains, s.tail(renderPlain(msgs[i:i+1]), left))
		}
		break
	}
	slices.Reverse(parts)
	slices.Reverse(plains)
	text, plain := strings.Join(parts, ""), strings.Join(plains, "")
	return candidate{Tokens: s.counter.Text(text), Kept: coverage(text, cut.Reference), Total: len(cut.Reference),
		StateKept: stateKept(plain, cut.State), StateTotal: len(cut.State), text: text, plain: plain}
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

// readable reports whether the agent's compaction left the model a
// summary it can read (Codex's remote compaction keeps its summary
// encrypted: the anchor is then only the replacement history's prompts).
func (r *forwardResult) readable() bool {
	for i := range r.cut.Anchor {
		if r.cut.Anchor[i].Origin == transcript.OriginSummary {
			return true
		}
	}
	return false
}

func benchForward(ctx context.Context, cfg *config) ([]row, error) {
	entries, err := readManifest()
	if err != nil {
		return nil, err
	}
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		return nil, err
	}
	// $COMPACTD_FORWARD_BIN measures another build (an earlier commit's,
	// to compare) on the same cuts.
	bin := os.Getenv("COMPACTD_FORWARD_BIN")
	if bin == "" {
		if bin, err = serverBinary(ctx, cfg); err != nil {
			return nil, err
		}
	}
	defer os.RemoveAll(filepath.Join(cfg.TempDir, "forward"))
	var rows []row
	for _, split := range forwardSplits(entries) {
		sources, err := forwardSources(entries, split)
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
		results, err := runForward(ctx, cfg, bin, counter, split, cuts)
		if err != nil {
			return nil, err
		}
		rows = append(rows, forwardRows(results, split)...)
	}
	return rows, nil
}

// runForward compacts and scores every cut, $COMPACTD_FORWARD_JOBS cuts at
// a time (default 2), each worker with its own store.
func runForward(ctx context.Context, cfg *config, bin string, counter *tokens.Counter, split string, cuts []*forwardCut) ([]*forwardResult, error) {
	jobs := 2
	if n, err := strconv.Atoi(os.Getenv("COMPACTD_FORWARD_JOBS")); err == nil && n > 0 {
		jobs = n
	}
	sc := &forwardScorer{counter: counter}
	results := make([]*forwardResult, len(cuts))
	errs := make([]error, len(cuts))
	next := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range jobs {
		dir := filepath.Join(cfg.TempDir, "forward", split, fmt.Sprintf("w%d", w))
		fc := &forwardCompactor{bin: bin, env: serverEnv(cfg, filepath.Join(dir, "store", "compactd.db")), dir: dir}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ci := range next {
				results[ci], errs[ci] = forwardCutRun(ctx, cfg, fc, sc, cuts[ci], filepath.Join(fc.dir, fmt.Sprintf("cut-%03d", ci)))
			}
		}()
	}
	for ci := range cuts {
		if ctx.Err() != nil {
			break
		}
		next <- ci
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	cfg.logf("forward: %s: %d cuts in %v", split, len(results), time.Since(start).Round(time.Second))
	return results, nil
}

// forwardCutRun compacts one cut at the anchor's size and every budget,
// and scores each fork and the truncation to its tokens.
func forwardCutRun(ctx context.Context, cfg *config, fc *forwardCompactor, sc *forwardScorer, cut *forwardCut, cutDir string) (*forwardResult, error) {
	defer os.RemoveAll(cutDir)
	r := &forwardResult{cut: cut, curve: map[string]map[int]candidate{}, trunc: map[string]map[int]candidate{}}
	r.before = sc.counter.Text(renderVisible(cut.Before))
	dump := os.Getenv("COMPACTD_FORWARD_DUMP")
	if dump != "" {
		dumpCandidates(dump, cut, "", nil)
	}
	run := func(strategies []string, budget int) (candidate, error) {
		msgs, res, err := fc.compact(ctx, cut, cutDir, strategies, budget)
		if err != nil {
			if ctx.Err() != nil {
				return candidate{}, ctx.Err()
			}
			// A compaction that fails is a result: it kept nothing. The
			// run goes on, and the failures are counted and named.
			cfg.logf("forward: FAILED: %s %s, %s at %d tokens: %v", cut.Session, cut.Label, strings.Join(strategies, "+"), budget, err)
			return candidate{Total: len(cut.Reference), StateTotal: len(cut.State), Failed: fmt.Sprintf("%s %s at %d: %v", cut.Session, cut.Label, budget, err)}, nil
		}
		c := sc.score(msgs, cut)
		c.Notes = res.Notes
		return c, nil
	}
	var err error
	if cut.Kind == cutAgent {
		r.anchor = sc.score(cut.Anchor, cut)
		if r.atAnchor, err = run(forwardStrategies()[0], r.anchor.Tokens); err != nil {
			return nil, err
		}
		r.truncAnchor = sc.truncate(cut, r.anchor.Tokens)
		if dump != "" {
			dumpCandidates(dump, cut, "anchor", map[string]candidate{"agent": r.anchor, "compactd": r.atAnchor, "truncation": r.truncAnchor})
		}
	}
	for _, strat := range forwardStrategies() {
		name := strings.Join(strat, "+")
		r.curve[name], r.trunc[name] = map[int]candidate{}, map[int]candidate{}
		for _, b := range forwardBudgets {
			if r.before < b*5/4 {
				continue // the whole prefix fits: nothing to choose
			}
			c, err := run(strat, b)
			if err != nil {
				return nil, err
			}
			r.curve[name][b] = c
			tokens := c.Tokens
			if c.Failed != "" {
				tokens = b
			}
			r.trunc[name][b] = sc.truncate(cut, tokens)
			if dump != "" {
				dumpCandidates(dump, cut, fmt.Sprintf("%s-%d", name, b), map[string]candidate{"compactd": c, "truncation": r.trunc[name][b]})
			}
		}
	}
	cfg.logf("forward: %s %s (%s tokens, %d reference entities, %d files of working state): %s", cut.Session, cut.Label, tokens.Thousands(r.before), len(cut.Reference), len(cut.State), r.brief())
	return r, nil
}

// dumpCandidates writes, for a -v look at one cut, each candidate's text
// and the reference entities it lost.
func dumpCandidates(dir string, cut *forwardCut, label string, cands map[string]candidate) {
	base := filepath.Join(dir, cut.Split, strings.NewReplacer("/", "_").Replace(cut.Session+"-"+cut.Label))
	if err := os.MkdirAll(base, 0o755); err != nil {
		return
	}
	if _, err := os.Stat(filepath.Join(base, "session"+cut.Ext)); err != nil {
		os.WriteFile(filepath.Join(base, "session"+cut.Ext), cut.Prefix, 0o644)
	}
	if cands == nil {
		return
	}
	for name, c := range cands {
		var lost []string
		for e := range cut.Reference {
			if !containsEntity(c.text, e) {
				lost = append(lost, e.Kind+":"+e.Key)
			}
		}
		sort.Strings(lost)
		var b strings.Builder
		fmt.Fprintf(&b, "%s at %s: %d tokens, %d of %d reference entities, %d of %d files' state\nnotes: %s\nlost: %s\n\n", name, label, c.Tokens, c.Kept, c.Total, c.StateKept, c.StateTotal,
			strings.Join(c.Notes, " | "), strings.Join(lost, ", "))
		b.WriteString(c.text)
		os.WriteFile(filepath.Join(base, label+"-"+name+".txt"), []byte(b.String()), 0o644)
	}
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
			t := r.trunc["auto"][bud]
			fmt.Fprintf(&b, "%dk: %.0f%%/%.0f%% (%d", bud/1000, 100*c.share(), 100*t.share(), c.Tokens)
			if c.StateTotal > 0 {
				fmt.Fprintf(&b, ", state %d/%d vs %d", c.StateKept, c.StateTotal, t.StateKept)
			}
			b.WriteString(") ")
		}
	}
	return b.String()
}

// tally sums candidates' shares against truncation's.
type tally struct {
	n                  int
	ours, trunc        float64 // summed shares
	tokens             int
	stateOurs, stTrunc int
	stateTotal         int
}

func (t *tally) add(c, tr candidate) {
	t.n++
	t.ours += c.share()
	t.trunc += tr.share()
	t.tokens += c.Tokens
	t.stateOurs += c.StateKept
	t.stTrunc += tr.StateKept
	t.stateTotal += c.StateTotal
}

// lossRatio is what compactd loses over what truncation loses, on mean
// shares (0 when truncation loses nothing).
func (t *tally) lossRatio() float64 {
	ours, trunc := t.ours/float64(t.n), t.trunc/float64(t.n)
	if trunc >= 1 {
		return 0
	}
	return (1 - ours) / (1 - trunc)
}

func (t *tally) cell() string {
	s := fmt.Sprintf("%.2f (%.1f %% vs %.1f %%, %s tokens, %d cuts", t.lossRatio(), 100*t.ours/float64(t.n), 100*t.trunc/float64(t.n), tokens.Thousands(t.tokens/t.n), t.n)
	if t.stateTotal > 0 {
		s += fmt.Sprintf("; working state %d of %d vs %d", t.stateOurs, t.stateTotal, t.stTrunc)
	}
	return s + ")"
}

// forwardRows turns one half's results into the bench's rows: the bars
// (held on the validation half and the first corpus's bench half; the
// tuning half's are figures to tune by), then the figures per agent,
// per project (tuning half) and per strategy.
func forwardRows(results []*forwardResult, split string) []row {
	var rows []row
	barred := split != splitTune && split != "dev"
	bar := func(r row, anchor string, pass bool) row {
		if barred {
			r.Anchor, r.Pass = anchor, pass
		}
		return r
	}
	agentsOf := func(keep func(*forwardResult) bool) []string {
		seen := map[string]bool{}
		for _, r := range results {
			if keep(r) {
				seen[r.cut.Agent] = true
			}
		}
		out := make([]string, 0, len(seen))
		for a := range seen {
			out = append(out, a)
		}
		sort.Strings(out)
		return out
	}

	// At the agent summary's tokens: per agent that writes a readable
	// summary, then every agent compaction.
	anchorRow := func(label string, keep func(*forwardResult) bool, held bool) {
		var n, wins int
		var anchorShare, oursShare, truncShare float64
		var anchorTokens, oursTokens, stA, stO, stT, stN int
		for _, r := range results {
			if r.cut.Kind != cutAgent || !keep(r) {
				continue
			}
			n++
			anchorShare += r.anchor.share()
			oursShare += r.atAnchor.share()
			truncShare += r.truncAnchor.share()
			anchorTokens += r.anchor.Tokens
			oursTokens += r.atAnchor.Tokens
			stA, stO, stT, stN = stA+r.anchor.StateKept, stO+r.atAnchor.StateKept, stT+r.truncAnchor.StateKept, stN+r.anchor.StateTotal
			if r.atAnchor.share() >= r.anchor.share() && float64(r.atAnchor.Tokens) <= 1.05*float64(r.anchor.Tokens) {
				wins++
			}
		}
		if n == 0 {
			return
		}
		f := float64(n)
		value := fmt.Sprintf("%d of %d (%.0f %%); mean: agent %.1f %% at %s tokens, compactd %.1f %% at %s, truncation %.1f %%", wins, n, 100*float64(wins)/f,
			100*anchorShare/f, tokens.Thousands(anchorTokens/n), 100*oursShare/f, tokens.Thousands(oursTokens/n), 100*truncShare/f)
		if stN > 0 {
			value += fmt.Sprintf("; working state: agent %d, compactd %d, truncation %d of %d", stA, stO, stT, stN)
		}
		r := row{Name: fmt.Sprintf("%s split, agent-compaction cuts, %s: compactd at the agent summary's tokens keeps ≥ the summary's reference entities", split, label), Value: value}
		if held {
			r = bar(r, fmt.Sprintf("≥ %.0f %% of the cuts", 100*anchorWinsBar), float64(wins) >= anchorWinsBar*f)
		}
		rows = append(rows, r)
	}
	for _, a := range agentsOf(func(r *forwardResult) bool { return r.cut.Kind == cutAgent }) {
		readable := false
		for _, r := range results {
			if r.cut.Kind == cutAgent && r.cut.Agent == a && r.readable() {
				readable = true
			}
		}
		label := a
		if !readable {
			label += " (its summary is not readable: the anchor is what its compaction shows in clear)"
		}
		anchorRow(label, func(r *forwardResult) bool { return r.cut.Agent == a }, readable)
	}

	// Prompt cuts against truncation, per budget: all agents, then each.
	promptTally := func(b int, keep func(*forwardResult) bool) *tally {
		t := &tally{}
		for _, r := range results {
			c, ok := r.curve["auto"][b]
			if !isPromptCut(r.cut.Kind) || !ok || !keep(r) {
				continue
			}
			t.add(c, r.trunc["auto"][b])
		}
		return t
	}
	all := func(*forwardResult) bool { return true }
	for _, b := range forwardBudgets {
		t := promptTally(b, all)
		if t.n == 0 {
			continue
		}
		rows = append(rows, bar(row{
			Name:  fmt.Sprintf("%s split, 50/50 and 70/30 cuts at %s tokens: what compactd loses ÷ what plain truncation to the same tokens loses", split, tokens.Thousands(b)),
			Value: t.cell(),
		}, fmt.Sprintf("≤ %.2f", lossRatioBar), t.lossRatio() <= lossRatioBar))
	}
	for _, a := range agentsOf(func(r *forwardResult) bool { return isPromptCut(r.cut.Kind) }) {
		var cells []string
		worst := ""
		for _, b := range forwardBudgets {
			t := promptTally(b, func(r *forwardResult) bool { return r.cut.Agent == a })
			if t.n == 0 {
				continue
			}
			cells = append(cells, tokens.Thousands(b)+": "+t.cell())
			if t.ours < t.trunc && worst == "" {
				worst = tokens.Thousands(b)
			}
		}
		if len(cells) == 0 {
			continue
		}
		rows = append(rows, bar(row{
			Name:  fmt.Sprintf("%s split, %s, 50/50 and 70/30 cuts: loss ratio (compactd vs truncation, mean share) per budget", split, a),
			Value: strings.Join(cells, "; "),
		}, "compactd's mean ≥ truncation's at every budget", worst == ""))
	}
	// Working state, every prompt cut.
	var cells []string
	for _, b := range forwardBudgets {
		if t := promptTally(b, all); t.n > 0 && t.stateTotal > 0 {
			cells = append(cells, fmt.Sprintf("%s: compactd %.0f %%, truncation %.0f %% (%d files, %d cuts)", tokens.Thousands(b),
				100*float64(t.stateOurs)/float64(t.stateTotal), 100*float64(t.stTrunc)/float64(t.stateTotal), t.stateTotal, t.n))
		}
	}
	if len(cells) > 0 {
		rows = append(rows, row{Name: fmt.Sprintf("%s split, working state kept (of the files edited before a 50/50 or 70/30 cut and touched after it, those whose last written content the text still shows)", split), Value: strings.Join(cells, "; ")})
	}
	// Per project, on the tuning half: a change must help across them.
	if !barred {
		repos := map[string]bool{}
		for _, r := range results {
			repos[r.cut.Repo] = true
		}
		names := make([]string, 0, len(repos))
		for k := range repos {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, repo := range names {
			var cells []string
			for _, b := range forwardBudgets {
				if t := promptTally(b, func(r *forwardResult) bool { return r.cut.Repo == repo }); t.n > 0 {
					cells = append(cells, tokens.Thousands(b)+": "+t.cell())
				}
			}
			if len(cells) > 0 {
				rows = append(rows, row{Name: fmt.Sprintf("%s split, project %s (prompt cuts)", split, repo), Value: strings.Join(cells, "; ")})
			}
		}
	}
	// Every compaction succeeds.
	var failed []string
	for _, r := range results {
		for _, byBudget := range r.curve {
			for _, c := range byBudget {
				if c.Failed != "" {
					failed = append(failed, c.Failed)
				}
			}
		}
		if r.atAnchor.Failed != "" {
			failed = append(failed, r.atAnchor.Failed)
		}
	}
	sort.Strings(failed)
	value := "none"
	if len(failed) > 0 {
		value = fmt.Sprintf("%d: %s", len(failed), strings.Join(failed, "; "))
	}
	rows = append(rows, bar(row{Name: fmt.Sprintf("%s split, compactions that failed (each counts as keeping nothing)", split), Value: value}, "none", len(failed) == 0))
	// The budget is met.
	var runs, within int
	var worst float64
	for _, r := range results {
		for _, byBudget := range r.curve {
			for b, c := range byBudget {
				if c.Failed != "" {
					continue
				}
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
		rows = append(rows, bar(row{
			Name:  fmt.Sprintf("%s split, compactions that land within 5 %% of their budget (o200k count of the fork's visible text)", split),
			Value: fmt.Sprintf("%d of %d (worst %+.1f %%)", within, runs, 100*worst),
		}, "all", within == runs))
	}
	// The curve per strategy, both kinds of cut.
	for _, kind := range []string{cutAgent, "prompt"} {
		for _, strat := range forwardStrategies() {
			name := strings.Join(strat, "+")
			var cells []string
			for _, b := range forwardBudgets {
				t := &tally{}
				for _, r := range results {
					c, ok := r.curve[name][b]
					if !ok || (kind == cutAgent) != (r.cut.Kind == cutAgent) {
						continue
					}
					t.add(c, r.trunc[name][b])
				}
				if t.n > 0 {
					cells = append(cells, tokens.Thousands(b)+": "+t.cell())
				}
			}
			if len(cells) > 0 {
				rows = append(rows, row{Name: fmt.Sprintf("%s split, curve, %s cuts, %s vs truncation to the same tokens", split, kind, name), Value: strings.Join(cells, "; ")})
			}
		}
	}
	return rows
}
