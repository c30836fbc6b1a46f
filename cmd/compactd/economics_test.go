package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestDryRunEconomics: `compact --dry-run --json` prices compacting now
// from the price table — the kept context written once at Claude's
// cache-write rate ($3.75 per million for claude-sonnet-4-5), the removed
// tokens' cache reads ($0.30) saved per turn, the break-even in turns —
// and, with the clock past the 5-minute cache's lifetime since the last
// response, calls it a good time to compact at no one-time cost.
func TestDryRunEconomics(t *testing.T) {
	envs := isolatedEnv(t)
	src := gaugeFixture("claude-session.jsonl")
	// When the session's last response came, as the gauge counts from it.
	tr, err := readTranscript(src)
	if err != nil || tr.LastUsage() < 0 {
		t.Fatalf("fixture: %v", err)
	}
	last := tr.Messages[tr.LastUsage()].Timestamp
	run1 := func(now time.Time) compactWindow {
		t.Helper()
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return envs[k] }, now: func() time.Time { return now }}
		if code := run(context.Background(), e, []string{"compact", "--dry-run", "--json", "--strategy", "strip-tool-results", src}); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var res struct {
			Window *compactWindow `json:"window"`
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Window == nil || res.Window.Economics == nil {
			t.Fatalf("no window economics in %s (%v)", out.String(), err)
		}
		return *res.Window
	}
	warm := run1(last.Add(2 * time.Minute))
	e := warm.Economics
	kept, removed := warm.After, warm.Tokens-warm.After
	oneTime := float64(kept) * 3.75 / 1e6
	perTurn := float64(removed) * 0.30 / 1e6
	if e.Kept != kept || e.Removed != removed || math.Abs(e.OneTime-oneTime) > 1e-9 || math.Abs(e.PerTurn-perTurn) > 1e-9 {
		t.Fatalf("economics %+v; by hand: kept %d written at $3.75/M = $%v once, %d removed at $0.30/M = $%v a turn", e, kept, oneTime, removed, perTurn)
	}
	if want := int(math.Ceil(oneTime / perTurn)); e.BreakEven != want || e.Cold {
		t.Fatalf("break-even %d (cold %v), by hand %d", e.BreakEven, e.Cold, want)
	}
	cold := run1(last.Add(6 * time.Minute)).Economics
	if !cold.Cold || cold.OneTime != 0 || cold.BreakEven != 0 || !strings.Contains(cold.Line, "good time to compact") {
		t.Fatalf("six minutes idle on Anthropic's 5-minute cache: %+v", cold)
	}
}
