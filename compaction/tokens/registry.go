package tokens

import (
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
)

// Provider is who serves a model; it decides image pricing.
type Provider string

const (
	ProviderAnthropic Provider = "anthropic"
	ProviderOpenAI    Provider = "openai"
	ProviderGoogle    Provider = "google"
	ProviderDeepSeek  Provider = "deepseek"
	ProviderMeta      Provider = "meta"
	ProviderQwen      Provider = "qwen"
	ProviderMistral   Provider = "mistral"
	ProviderUnknown   Provider = "unknown"
)

// ImagePricing returns the image rule of the provider.
func (p Provider) ImagePricing() ImagePricing {
	switch p {
	case ProviderAnthropic:
		return ImageAnthropic
	case ProviderGoogle:
		return ImageGemini
	default:
		return ImageOpenAI
	}
}

// A Model is what the registry knows of a model.
type Model struct {
	// Name is the registry entry that matched (a name prefix).
	Name     string
	Provider Provider
	// Encoding is the BPE used to count for it. For models without a public
	// tokenizer (Claude, Gemini) it is the nearest one; the calibrated gauge
	// measures the error.
	Encoding string
	// ContextWindow is the model's input window in tokens.
	ContextWindow int
	// ExtendedWindow is a larger window the model can run with (Claude's
	// 1M-token beta, the "[1m]" model suffix in Claude Code); 0 if none.
	ExtendedWindow int
	// Override marks an entry set by the user (config), which beats what
	// the transcript itself reports.
	Override bool
}

// DefaultModel is returned for names the registry does not know: the
// encoding of current OpenAI models and a 128k window, the most common
// window among current models and the smallest of the frontier ones.
var defaultModel = Model{Name: "", Provider: ProviderUnknown, Encoding: O200kBase, ContextWindow: 128_000}

// DefaultModel returns what Lookup reports for unknown names.
func DefaultModel() Model { return defaultModel }

// FormatInfo is what a transcript format tells about its agent.
type FormatInfo struct {
	// DefaultModel is assumed when the transcript names no model.
	DefaultModel string
	// AutoCompactRatio is the fill ratio at which the agent compacts on its
	// own (Claude Code ≈ 0.835, Codex 0.90, Cline 0.75); 0 if unknown.
	AutoCompactRatio float64
}

// A Registry maps model names to encodings and windows and transcript
// formats to their agents' defaults. Build one with NewRegistry, adjust it
// with Set and SetFormat (config overrides), then share it read-only.
type Registry struct {
	models  []Model // built-ins then overrides; Lookup prefers overrides
	formats map[transcript.Format]FormatInfo
}

// builtinModels are current models' windows. Names are matched as
// prefixes after normalization, the longest wins, so dated and suffixed
// variants (claude-sonnet-4-5-20250929, gpt-5-codex, o3-mini) resolve.
// Windows are the providers' own figures as of late 2026 (their model
// pages: platform.claude.com/docs/en/models, developers.openai.com,
// ai.google.dev, Alibaba Model Studio, Xiaomi MiMo's model cards). A name
// the table lacks, or a window that became larger, is corrected by the
// gauge as soon as a reported usage exceeds it (see NextWindow).
var builtinModels = []Model{
	// Anthropic. No public tokenizer: o200k_base is the nearest and the
	// gauge calibrates against reported usage. The 4.x models run with
	// 200k unless the session enabled their 1M option ("[1m]", or a usage
	// above 200k shows it); the 5 generation's window is 1M, except the
	// 4.5 Haiku's.
	{Name: "claude-", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 200_000, ExtendedWindow: 1_000_000},
	{Name: "claude-sonnet-4", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 200_000, ExtendedWindow: 1_000_000},
	{Name: "claude-opus-4-6", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 200_000, ExtendedWindow: 1_000_000},
	{Name: "claude-opus-4-7", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 200_000, ExtendedWindow: 1_000_000},
	{Name: "claude-opus-4-8", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 200_000, ExtendedWindow: 1_000_000},
	{Name: "claude-opus-4", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 200_000},
	{Name: "claude-haiku-4", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 200_000},
	{Name: "claude-opus-5", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 1_000_000},
	{Name: "claude-sonnet-5", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 1_000_000},
	{Name: "claude-haiku-5", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 1_000_000},
	{Name: "claude-fable-", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 1_000_000},
	{Name: "claude-3-7-sonnet", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 200_000},
	{Name: "claude-3-5-sonnet", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 200_000},
	{Name: "claude-3-5-haiku", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 200_000},
	{Name: "claude-2", Provider: ProviderAnthropic, Encoding: O200kBase, ContextWindow: 100_000},

	// OpenAI. Codex reports the window it enforces itself (272k of
	// gpt-5's 400k, 400k of gpt-5.5's), which beats this table.
	{Name: "gpt-5", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 400_000},
	{Name: "gpt-5.4", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 1_050_000},
	{Name: "gpt-5.5", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 1_050_000},
	{Name: "gpt-5-chat", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 128_000},
	{Name: "gpt-4.1", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 1_047_576},
	{Name: "gpt-4.5", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 128_000},
	{Name: "gpt-4o", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 128_000},
	{Name: "chatgpt-4o", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 128_000},
	{Name: "gpt-4-turbo", Provider: ProviderOpenAI, Encoding: CL100kBase, ContextWindow: 128_000},
	{Name: "gpt-4-32k", Provider: ProviderOpenAI, Encoding: CL100kBase, ContextWindow: 32_768},
	{Name: "gpt-4", Provider: ProviderOpenAI, Encoding: CL100kBase, ContextWindow: 8_192},
	{Name: "gpt-3.5-turbo", Provider: ProviderOpenAI, Encoding: CL100kBase, ContextWindow: 16_385},
	{Name: "gpt-oss", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 131_072},
	{Name: "codex-mini", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 200_000},
	{Name: "o1", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 200_000},
	{Name: "o1-mini", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 128_000},
	{Name: "o1-preview", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 128_000},
	{Name: "o3", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 200_000},
	{Name: "o4-mini", Provider: ProviderOpenAI, Encoding: O200kBase, ContextWindow: 200_000},

	// Google. No public BPE of Gemini's tokenizer in Go: nearest, calibrated.
	// Gemini 2.5 and 3.x take 1M (1,048,576).
	{Name: "gemini-", Provider: ProviderGoogle, Encoding: O200kBase, ContextWindow: 1_048_576},
	{Name: "gemini-1.5-pro", Provider: ProviderGoogle, Encoding: O200kBase, ContextWindow: 2_097_152},
	{Name: "gemini-1.0", Provider: ProviderGoogle, Encoding: O200kBase, ContextWindow: 32_760},
	{Name: "gemma-3", Provider: ProviderGoogle, Encoding: O200kBase, ContextWindow: 131_072},

	// DeepSeek, Llama, Qwen: their vocabularies descend from cl100k's.
	{Name: "deepseek-", Provider: ProviderDeepSeek, Encoding: CL100kBase, ContextWindow: 128_000},
	{Name: "deepseek-r1", Provider: ProviderDeepSeek, Encoding: CL100kBase, ContextWindow: 128_000},
	{Name: "deepseek-v4", Provider: ProviderDeepSeek, Encoding: CL100kBase, ContextWindow: 1_000_000},
	{Name: "llama-3", Provider: ProviderMeta, Encoding: CL100kBase, ContextWindow: 8_192},
	{Name: "llama-3.1", Provider: ProviderMeta, Encoding: CL100kBase, ContextWindow: 131_072},
	{Name: "llama-3.2", Provider: ProviderMeta, Encoding: CL100kBase, ContextWindow: 131_072},
	{Name: "llama-3.3", Provider: ProviderMeta, Encoding: CL100kBase, ContextWindow: 131_072},
	{Name: "llama-4-scout", Provider: ProviderMeta, Encoding: CL100kBase, ContextWindow: 10_000_000},
	{Name: "llama-4-maverick", Provider: ProviderMeta, Encoding: CL100kBase, ContextWindow: 1_000_000},
	{Name: "llama-2", Provider: ProviderMeta, Encoding: CL100kBase, ContextWindow: 4_096},
	{Name: "codellama", Provider: ProviderMeta, Encoding: CL100kBase, ContextWindow: 16_384},
	{Name: "qwen", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 32_768},
	{Name: "qwen2.5", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 131_072},
	{Name: "qwen2.5-coder", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 131_072},
	{Name: "qwen3", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 131_072},
	{Name: "qwen3-coder", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 262_144},
	{Name: "qwen3-coder-plus", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 1_000_000},
	{Name: "qwen3-coder-flash", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 1_000_000},
	{Name: "qwen3-max", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 262_144},
	{Name: "qwen3.5", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 1_000_000},
	{Name: "qwen3.6", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 1_000_000},
	// Qwen Code's name for the model its Qwen OAuth serves (qwen3.x-plus).
	{Name: "coder-model", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 1_000_000},
	{Name: "qwq", Provider: ProviderQwen, Encoding: CL100kBase, ContextWindow: 131_072},

	// Mistral.
	{Name: "mistral-", Provider: ProviderMistral, Encoding: CL100kBase, ContextWindow: 131_072},
	{Name: "codestral", Provider: ProviderMistral, Encoding: CL100kBase, ContextWindow: 256_000},
	{Name: "devstral", Provider: ProviderMistral, Encoding: CL100kBase, ContextWindow: 131_072},

	// Xiaomi MiMo (V2.5 and V2.5-Pro: 1M).
	{Name: "mimo-v2.5", Provider: ProviderUnknown, Encoding: O200kBase, ContextWindow: 1_000_000},
}

// windowTiers are the windows models are built with, smallest first: a
// reported usage above a model's assumed window proves the window is at
// least the next of them.
var windowTiers = []int{8_192, 16_384, 32_768, 65_536, 128_000, 131_072, 200_000, 262_144, 400_000, 1_000_000, 1_048_576, 2_000_000, 2_097_152, 10_000_000}

// NextWindow returns the window a model must have when a request of used
// tokens went through while m was assumed to have window: its extended
// window when that holds them, else the next common window size above
// both, else used itself.
func NextWindow(m Model, window, used int) int {
	if used <= window {
		return window
	}
	if m.ExtendedWindow >= used {
		return m.ExtendedWindow
	}
	for _, w := range windowTiers {
		if w > window && w >= used {
			return w
		}
	}
	return used
}

var builtinFormats = map[transcript.Format]FormatInfo{
	transcript.FormatClaudeCode:        {DefaultModel: "claude-sonnet-4-5", AutoCompactRatio: 0.835},
	transcript.FormatCodex:             {DefaultModel: "gpt-5-codex", AutoCompactRatio: 0.90},
	transcript.FormatCline:             {DefaultModel: "claude-sonnet-4-5", AutoCompactRatio: 0.75},
	transcript.FormatClineUI:           {DefaultModel: "claude-sonnet-4-5", AutoCompactRatio: 0.75},
	transcript.FormatAnthropicMessages: {DefaultModel: "claude-sonnet-4-5"},
	transcript.FormatOpenAIChat:        {DefaultModel: "gpt-4o"},
	transcript.FormatOpenAIResponses:   {DefaultModel: "gpt-5"},
	transcript.FormatGeminiCLI:         {DefaultModel: "gemini-2.5-pro"},
	transcript.FormatJP:                {DefaultModel: "claude-sonnet-4-5"},
	transcript.FormatAider:             {DefaultModel: "gpt-4o"},
	transcript.FormatQwenCode:          {DefaultModel: "qwen3-coder"},
	transcript.FormatOpenCode:          {DefaultModel: "claude-sonnet-4-5"},
	transcript.FormatKilo:              {DefaultModel: "claude-sonnet-4-5"},
	transcript.FormatCopilotCLI:        {DefaultModel: "claude-sonnet-4-5"},
	transcript.FormatCursorAgent:       {DefaultModel: "claude-sonnet-4-5"},
	transcript.FormatCopilotChat:       {DefaultModel: "gpt-4.1"},
}

// NewRegistry returns a registry holding the built-in tables; each call
// returns an independent copy that may be overridden.
func NewRegistry() *Registry {
	r := &Registry{models: append([]Model(nil), builtinModels...), formats: map[transcript.Format]FormatInfo{}}
	for f, info := range builtinFormats {
		r.formats[f] = info
	}
	return r
}

// Set adds or replaces an entry matched by the name prefix m.Name (after
// the same normalization Lookup applies). It is marked Override: user
// entries win over built-ins whatever their length, and over the window a
// transcript reports.
func (r *Registry) Set(m Model) {
	m.Name = normalizeModel(m.Name)
	m.Override = true
	if m.Encoding == "" {
		m.Encoding = defaultModel.Encoding
	}
	if m.Provider == "" {
		m.Provider = ProviderUnknown
	}
	for i := range r.models {
		if r.models[i].Override && r.models[i].Name == m.Name {
			r.models[i] = m
			return
		}
	}
	r.models = append(r.models, m)
}

// SetFormat replaces what the registry knows of a format's agent.
func (r *Registry) SetFormat(f transcript.Format, info FormatInfo) { r.formats[f] = info }

// Format returns what the registry knows of format f's agent.
func (r *Registry) Format(f transcript.Format) FormatInfo { return r.formats[f] }

// Lookup resolves a model name such as "claude-sonnet-4-5-20250929",
// "anthropic/claude-opus-4-1", "gpt-5-codex", "o3", "models/gemini-2.5-pro",
// "deepseek-chat", "llama-3.1-70b", "llama3.1:70b" or "qwen2.5-coder-32b".
// Overrides are tried first, then built-ins; among matches the longest
// prefix wins. An unknown name returns DefaultModel() and false.
// A Claude name ending in "[1m]" gets its extended window.
func (r *Registry) Lookup(name string) (Model, bool) {
	n := normalizeModel(name)
	extended := strings.HasSuffix(n, "[1m]")
	n = strings.TrimSuffix(n, "[1m]")
	if n == "" {
		return defaultModel, false
	}
	for _, wantOverride := range []bool{true, false} {
		best := -1
		for i, m := range r.models {
			if m.Override == wantOverride && strings.HasPrefix(n, m.Name) && (best < 0 || len(m.Name) > len(r.models[best].Name)) {
				best = i
			}
		}
		if best >= 0 {
			m := r.models[best]
			if extended && m.ExtendedWindow > 0 {
				m.ContextWindow = m.ExtendedWindow
			}
			return m, true
		}
	}
	return defaultModel, false
}

// normalizeModel lower-cases a model name and strips provider routing
// (a "vendor/" path, Bedrock's "us.anthropic." region prefix, a Vertex
// "@date" suffix) and spells Ollama's "llama3.1:70b" as "llama-3.1-70b".
func normalizeModel(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	if i := strings.Index(n, "claude-"); i > 0 {
		n = n[i:]
	}
	if i := strings.IndexByte(n, '@'); i > 0 {
		n = n[:i]
	}
	n = strings.ReplaceAll(n, ":", "-")
	if rest, ok := strings.CutPrefix(n, "llama"); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		n = "llama-" + rest
	}
	return n
}
