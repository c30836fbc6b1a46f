package pricing

import (
	"fmt"
	"math"
	"time"

	"github.com/compactd/compactd/compaction/tokens"
)

// cacheLifetimes are how long each provider keeps a prompt's prefix cached
// after its last use, the longest it may (a cache older than this is cold
// for sure): Anthropic's default cache lives 5 minutes (Claude Code's
// writes are 5-minute writes, priced so in the table); OpenAI keeps
// prefixes 5 to 10 minutes idle, up to an hour off-peak; Gemini's implicit
// cache is documented at no shorter. DeepSeek and Qwen keep theirs for
// hours, unpredictably: never called cold.
var cacheLifetimes = map[string]time.Duration{
	"anthropic": 5 * time.Minute,
	"openai":    time.Hour,
	"google":    time.Hour,
}

// CacheLifetime is how long the model's provider keeps a prefix cached
// once idle; 0 when unknown (the cache is then never called cold).
func (p Price) CacheLifetime() time.Duration { return cacheLifetimes[p.Provider] }

// Economics are what compacting now costs and saves, in dollars.
type Economics struct {
	// Context is the window's figure now, Kept what compacting leaves of
	// it, Removed the difference.
	Context int `json:"context"`
	Kept    int `json:"kept"`
	Removed int `json:"removed"`
	// OneTime is what the compaction costs once: the kept context written
	// to the cache at the cache-write rate (read uncached where the
	// provider charges no more to write), the prompt the next request
	// must send afresh. It is 0 when the cache is cold: the next request
	// writes the whole context anyway, compacted or not.
	OneTime float64 `json:"oneTime"`
	// PerTurn is the saving on every later turn: the removed tokens no
	// longer read from the cache (the Saving's cached figure).
	PerTurn float64 `json:"perTurn"`
	// BreakEven is how many turns the saving takes to pay the one-time
	// cost, 0 when it costs nothing; -1 when it never does (no saving).
	BreakEven int `json:"breakEven"`
	// IdleSeconds is the time since the last response (-1 unknown);
	// CacheLifetimeSeconds the provider's cache lifetime (0 unknown).
	// Cold: idle beyond it.
	IdleSeconds          int64 `json:"idleSeconds"`
	CacheLifetimeSeconds int64 `json:"cacheLifetimeSeconds"`
	Cold                 bool  `json:"cold"`
	// Line says it in one sentence.
	Line string `json:"line"`
}

// Economics prices compacting a context of context tokens down by removed
// tokens, idle after the last response (< 0 when unknown).
func (p Price) Economics(context, removed int, idle time.Duration) Economics {
	removed = min(max(removed, 0), context)
	lifetime := p.CacheLifetime()
	e := Economics{Context: context, Kept: context - removed, Removed: removed, IdleSeconds: -1, CacheLifetimeSeconds: int64(lifetime.Seconds()), BreakEven: -1}
	if idle >= 0 {
		e.IdleSeconds = int64(idle.Seconds())
	}
	e.Cold = idle >= 0 && lifetime > 0 && idle > lifetime
	if !e.Cold {
		e.OneTime = float64(e.Kept) * p.RatesFor(e.Kept).CacheWrite / 1e6
	}
	e.PerTurn = p.PerTurnSaving(context, removed).Cached
	switch {
	case e.OneTime == 0:
		e.BreakEven = 0
	case e.PerTurn > 0:
		e.BreakEven = int(math.Ceil(e.OneTime/e.PerTurn - 1e-9))
	}
	e.Line = e.sentence(idle, lifetime)
	return e
}

func (e Economics) sentence(idle, lifetime time.Duration) string {
	saves := fmt.Sprintf("saves %s a turn", Dollars(e.PerTurn))
	if e.Cold {
		return fmt.Sprintf("cache is cold (idle %s, the provider keeps it %s): good time to compact — it costs nothing extra now and %s", roundDuration(idle), roundDuration(lifetime), saves)
	}
	once := fmt.Sprintf("compacting costs %s once (%s kept tokens written to the cache)", Dollars(e.OneTime), tokens.Thousands(e.Kept))
	switch {
	case e.BreakEven < 0:
		return once + " and saves nothing per turn"
	case e.BreakEven == 0:
		return "compacting costs nothing once and " + saves
	case e.BreakEven == 1:
		return once + ", " + saves + ": pays back after 1 turn"
	}
	return fmt.Sprintf("%s, %s: pays back after %d turns", once, saves, e.BreakEven)
}

// roundDuration renders an idle time or a lifetime: "45 s", "12 min", "2 h 5 min".
func roundDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	}
	h, m := int(d.Hours()), int(d.Minutes())%60
	if m == 0 {
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}
