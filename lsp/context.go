package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/install"
	"github.com/compactd/compactd/daemon/jobs"
)

// compactd/context is what the editors' context views draw: the gauge
// with its breakdown, every turn's tokens, and what the configured dry
// run would take from each turn. It runs detached: the dry run of a large
// transcript takes a while and must not hold back hovers.
const methodContext = "compactd/context"

// ContextParams name the conversation; DryRun asks for the per-turn dry
// run too.
type ContextParams struct {
	URI    protocol.DocumentURI `json:"uri"`
	DryRun bool                 `json:"dryRun"`
}

// ContextResult is the compactd/context answer.
type ContextResult struct {
	Gauge Gauge         `json:"gauge"`
	Turns []ContextTurn `json:"turns"`
	// DryRun is absent when not asked for; DryRunError says why it is
	// missing when it was.
	DryRun      *ContextDryRun `json:"dryRun,omitempty"`
	DryRunError string         `json:"dryRunError,omitempty"`
	// AgentCompactions are the agent's own compactions of the
	// conversation, each with its figures and what it lost; Health how
	// they went together (a loop).
	AgentCompactions []jobs.AgentLoss `json:"agentCompactions"`
	Health           *gauge.Health    `json:"health,omitempty"`
	// Integrations say where compactd's MCP server (recall,
	// context_status, search) and hooks are installed for the user and
	// the transcript's workspace folder.
	Integrations install.Integrations `json:"integrations"`
}

// ContextTurn is one turn's bar.
type ContextTurn struct {
	Index      int    `json:"index"`
	Tokens     int    `json:"tokens"`
	Cumulative int    `json:"cumulative"`
	StartLine  int    `json:"startLine"`
	Prompt     string `json:"prompt,omitempty"`
	// Removed is what the dry run takes from the turn (0 without one).
	Removed int `json:"removed"`
}

// ContextDryRun sums the dry run.
type ContextDryRun struct {
	Strategies   []string `json:"strategies"`
	TokensBefore int      `json:"tokensBefore"`
	TokensAfter  int      `json:"tokensAfter"`
	// After is the window's estimated figure after compacting: the
	// result's count plus what lies outside the transcript.
	After         int             `json:"after"`
	Why           string          `json:"why,omitempty"`
	SavingPerTurn *pricing.Saving `json:"savingPerTurn,omitempty"`
	// Economics is what compacting now costs once, saves per turn and
	// after how many turns it pays back; whether the cache is cold.
	Economics *pricing.Economics `json:"economics,omitempty"`
	// TradeOff is the same compaction at a few budgets — what each takes
	// and keeps — the knee marked, for "Compact to fit…".
	TradeOff []strategy.TradePoint `json:"tradeOff,omitempty"`
}

func (s *Server) contextView(ctx context.Context, p ContextParams) (*ContextResult, error) {
	d := s.currentDaemon()
	snap := s.snapshotOf(p.URI)
	if d == nil || snap == nil {
		return nil, fmt.Errorf("%s is not a transcript compactd tracks", uriPath(p.URI))
	}
	res := &ContextResult{Gauge: gaugeOf(snap, d.Active(), d.Now()), Turns: make([]ContextTurn, len(snap.Turns))}
	for i, t := range snap.Turns {
		res.Turns[i] = ContextTurn{Index: t.Index, Tokens: t.Tokens, Cumulative: t.Cumulative, StartLine: t.StartLine, Prompt: t.Prompt}
	}
	res.Integrations = d.IntegrationsOf(snap.Path)
	res.AgentCompactions = []jobs.AgentLoss{}
	if l, err := d.AgentLedger(ctx, snap.Path); err == nil && len(l.Compactions) > 0 {
		res.AgentCompactions, res.Health = l.Compactions, &l.Health
	}
	if !p.DryRun {
		return res, nil
	}
	dr, err := d.DryRunTurns(ctx, snap.Path)
	if err != nil {
		res.DryRunError = err.Error()
		return res, nil
	}
	if dr.Seq == snap.Seq && len(dr.Turns) == len(res.Turns) {
		for i, c := range dr.Turns {
			res.Turns[i].Removed = c.Removed()
		}
	}
	saved := dr.TokensBefore - dr.TokensAfter
	cd := &ContextDryRun{Strategies: dr.Strategies, TokensBefore: dr.TokensBefore, TokensAfter: dr.TokensAfter, TradeOff: dr.TradeOff,
		After: snap.Tokens - saved, SavingPerTurn: snap.Insight.SavingPerTurn(snap.Tokens, saved), Economics: snap.Insight.Economics(snap.Tokens, saved, d.Now())}
	if b := snap.Insight.Breakdown; b != nil {
		cd.Why = b.WhyLittle(saved)
	}
	res.DryRun = cd
	return res, nil
}
