package pricing

// TableDate is when the bundled prices were last checked against the
// providers' pricing pages:
//
//   - Anthropic: platform.claude.com/docs/en/about-claude/pricing ("Model
//     pricing": base input, 5-minute cache writes, cache hits, output; "Long
//     context pricing" for prompts above 200k on the 1M-window models)
//   - OpenAI: developers.openai.com/api/docs/pricing (input, cached input,
//     output; no cache-write premium)
//   - Google: ai.google.dev/gemini-api/docs/pricing (prompts up to and
//     above 200k; context-cache reads; storage per hour is not modelled)
//   - DeepSeek: api-docs.deepseek.com/quick_start/pricing (cache hit,
//     cache miss, output)
//   - Qwen: alibabacloud.com/help/en/model-studio/models, international
//     (Singapore) prices by input band; implicit-cache hits at 20 % of input
//
// A price not in the table shows no cost; `[prices."<model>"]` in the
// settings adds or corrects one.
const TableDate = "2026-11-23"

// builtin is the bundled table, in dollars per million tokens. Names are
// prefixes of normalized model names; the longest matching one wins.
var builtin = []Price{
	// Anthropic. Cache writes are the 5-minute cache's (1.25× input),
	// Claude Code's default.
	{Model: "claude-opus-4", Provider: "anthropic", Rates: Rates{Input: 15, CacheWrite: 18.75, CachedInput: 1.50, Output: 75}},
	{Model: "claude-opus-4-5", Provider: "anthropic", Rates: Rates{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	{Model: "claude-opus-4-6", Provider: "anthropic", Rates: Rates{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	{Model: "claude-opus-4-7", Provider: "anthropic", Rates: Rates{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	{Model: "claude-opus-4-8", Provider: "anthropic", Rates: Rates{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	{Model: "claude-opus-5", Provider: "anthropic", Rates: Rates{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	{Model: "claude-3-opus", Provider: "anthropic", Rates: Rates{Input: 15, CacheWrite: 18.75, CachedInput: 1.50, Output: 75}},
	{Model: "claude-fable-5", Provider: "anthropic", Rates: Rates{Input: 10, CacheWrite: 12.50, CachedInput: 1, Output: 50}},
	{Model: "claude-fable-5-1", Provider: "anthropic", Rates: Rates{Input: 10, CacheWrite: 12.50, CachedInput: 0.25, Output: 50}},
	{Model: "claude-sonnet-4", Provider: "anthropic", Rates: Rates{Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15},
		Tiers: []Tier{{Above: 200_000, Rates: Rates{Input: 6, CacheWrite: 7.50, CachedInput: 0.60, Output: 22.50}}}},
	{Model: "claude-sonnet-5", Provider: "anthropic", Rates: Rates{Input: 2, CacheWrite: 2.50, CachedInput: 0.20, Output: 10}},
	{Model: "claude-sonnet-5-5", Provider: "anthropic", Rates: Rates{Input: 2, CacheWrite: 2.50, CachedInput: 0.10, Output: 10}},
	{Model: "claude-3-7-sonnet", Provider: "anthropic", Rates: Rates{Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15}},
	{Model: "claude-3-5-sonnet", Provider: "anthropic", Rates: Rates{Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15}},
	{Model: "claude-haiku-4", Provider: "anthropic", Rates: Rates{Input: 1, CacheWrite: 1.25, CachedInput: 0.10, Output: 5}},
	{Model: "claude-haiku-5-5", Provider: "anthropic", Rates: Rates{Input: 0.10, CacheWrite: 0.125, CachedInput: 0.01, Output: 0.50},
		Tiers: []Tier{{Above: 100_000, Rates: Rates{Input: 0.50, CacheWrite: 0.625, CachedInput: 0.05, Output: 2.50}}}},
	{Model: "claude-3-5-haiku", Provider: "anthropic", Rates: Rates{Input: 0.80, CacheWrite: 1, CachedInput: 0.08, Output: 4}},
	{Model: "claude-3-haiku", Provider: "anthropic", Rates: Rates{Input: 0.25, CacheWrite: 0.30, CachedInput: 0.03, Output: 1.25}},

	// OpenAI: cached input at a tenth of input for the GPT-5 family, a
	// quarter for GPT-4.1 and o3/o4, half for GPT-4o.
	{Model: "gpt-5", Provider: "openai", Rates: Rates{Input: 1.25, CachedInput: 0.125, Output: 10}},
	{Model: "gpt-5-mini", Provider: "openai", Rates: Rates{Input: 0.25, CachedInput: 0.025, Output: 2}},
	{Model: "gpt-5-nano", Provider: "openai", Rates: Rates{Input: 0.05, CachedInput: 0.005, Output: 0.40}},
	{Model: "gpt-5-pro", Provider: "openai", Rates: Rates{Input: 15, Output: 120}},
	{Model: "gpt-5.1", Provider: "openai", Rates: Rates{Input: 1.25, CachedInput: 0.125, Output: 10}},
	{Model: "gpt-5.1-codex-mini", Provider: "openai", Rates: Rates{Input: 0.25, CachedInput: 0.025, Output: 2}},
	{Model: "gpt-5.2", Provider: "openai", Rates: Rates{Input: 1.75, CachedInput: 0.175, Output: 14}},
	{Model: "gpt-5.3", Provider: "openai", Rates: Rates{Input: 1.75, CachedInput: 0.175, Output: 14}},
	{Model: "gpt-5.4", Provider: "openai", Rates: Rates{Input: 2.50, CachedInput: 0.25, Output: 15}},
	{Model: "gpt-5.4-mini", Provider: "openai", Rates: Rates{Input: 0.75, CachedInput: 0.075, Output: 4.50}},
	{Model: "gpt-5.5", Provider: "openai", Rates: Rates{Input: 5, CachedInput: 0.50, Output: 30}},
	{Model: "codex-mini", Provider: "openai", Rates: Rates{Input: 1.50, CachedInput: 0.375, Output: 6}},
	{Model: "gpt-4.1", Provider: "openai", Rates: Rates{Input: 2, CachedInput: 0.50, Output: 8}},
	{Model: "gpt-4.1-mini", Provider: "openai", Rates: Rates{Input: 0.40, CachedInput: 0.10, Output: 1.60}},
	{Model: "gpt-4.1-nano", Provider: "openai", Rates: Rates{Input: 0.10, CachedInput: 0.025, Output: 0.40}},
	{Model: "gpt-4o", Provider: "openai", Rates: Rates{Input: 2.50, CachedInput: 1.25, Output: 10}},
	{Model: "gpt-4o-mini", Provider: "openai", Rates: Rates{Input: 0.15, CachedInput: 0.075, Output: 0.60}},
	{Model: "o3", Provider: "openai", Rates: Rates{Input: 2, CachedInput: 0.50, Output: 8}},
	{Model: "o3-mini", Provider: "openai", Rates: Rates{Input: 1.10, CachedInput: 0.55, Output: 4.40}},
	{Model: "o3-pro", Provider: "openai", Rates: Rates{Input: 20, Output: 80}},
	{Model: "o4-mini", Provider: "openai", Rates: Rates{Input: 1.10, CachedInput: 0.275, Output: 4.40}},

	// Google: prompts above 200k pay the higher band.
	{Model: "gemini-2.5-pro", Provider: "google", Rates: Rates{Input: 1.25, CachedInput: 0.125, Output: 10},
		Tiers: []Tier{{Above: 200_000, Rates: Rates{Input: 2.50, CachedInput: 0.25, Output: 15}}}},
	{Model: "gemini-2.5-flash", Provider: "google", Rates: Rates{Input: 0.30, CachedInput: 0.03, Output: 2.50}},
	{Model: "gemini-2.5-flash-lite", Provider: "google", Rates: Rates{Input: 0.10, CachedInput: 0.01, Output: 0.40}},
	{Model: "gemini-3-pro", Provider: "google", Rates: Rates{Input: 2, CachedInput: 0.20, Output: 12},
		Tiers: []Tier{{Above: 200_000, Rates: Rates{Input: 4, CachedInput: 0.40, Output: 18}}}},

	// DeepSeek: both endpoints run V3.2 at one price.
	{Model: "deepseek-chat", Provider: "deepseek", Rates: Rates{Input: 0.28, CachedInput: 0.028, Output: 0.42}},
	{Model: "deepseek-reasoner", Provider: "deepseek", Rates: Rates{Input: 0.28, CachedInput: 0.028, Output: 0.42}},

	// Qwen (Model Studio, international): priced by the prompt's band.
	{Model: "qwen3-coder-plus", Provider: "qwen", Rates: Rates{Input: 1, CachedInput: 0.20, Output: 5},
		Tiers: []Tier{
			{Above: 32_000, Rates: Rates{Input: 1.80, CachedInput: 0.36, Output: 9}},
			{Above: 128_000, Rates: Rates{Input: 3, CachedInput: 0.60, Output: 15}},
			{Above: 256_000, Rates: Rates{Input: 6, CachedInput: 1.20, Output: 60}},
		}},
	{Model: "qwen3-coder-flash", Provider: "qwen", Rates: Rates{Input: 0.30, CachedInput: 0.06, Output: 1.50},
		Tiers: []Tier{
			{Above: 32_000, Rates: Rates{Input: 0.50, CachedInput: 0.10, Output: 2.50}},
			{Above: 128_000, Rates: Rates{Input: 0.80, CachedInput: 0.16, Output: 4}},
			{Above: 256_000, Rates: Rates{Input: 1.60, CachedInput: 0.32, Output: 9.60}},
		}},
	{Model: "qwen3-max", Provider: "qwen", Rates: Rates{Input: 1.20, CachedInput: 0.24, Output: 6},
		Tiers: []Tier{
			{Above: 32_000, Rates: Rates{Input: 2.40, CachedInput: 0.48, Output: 12}},
			{Above: 128_000, Rates: Rates{Input: 3, CachedInput: 0.60, Output: 15}},
		}},
}
