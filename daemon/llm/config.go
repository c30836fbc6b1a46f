package llm

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/summarize"
)

// Provider names an API shape.
const (
	ProviderOpenAI    = "openai"    // OpenAI-compatible Chat Completions
	ProviderAnthropic = "anthropic" // Anthropic Messages
)

// Defaults for unset Config fields.
const (
	DefaultOpenAIBase    = "https://api.openai.com/v1"
	DefaultAnthropicBase = "https://api.anthropic.com"
	DefaultMaxTokens     = 2048
	DefaultTimeout       = 2 * time.Minute
	AnthropicVersion     = "2023-06-01"
)

// Config configures the summarizing model ([summarize] in the config file).
type Config struct {
	// Provider is "openai" (any OpenAI-compatible server) or "anthropic";
	// empty infers it from the model name.
	Provider string `toml:"provider" json:"provider,omitempty"`
	// BaseURL is the API root: https://api.openai.com/v1,
	// http://localhost:11434/v1 (Ollama), https://api.anthropic.com.
	BaseURL string `toml:"base_url" json:"baseURL,omitempty"`
	// Model is the model name. Empty means no model: summaries are extractive.
	Model string `toml:"model" json:"model,omitempty"`
	// APIKeyEnv names the environment variable holding the API key (never
	// the key itself); empty sends no key (local servers).
	APIKeyEnv string `toml:"api_key_env" json:"apiKeyEnv,omitempty"`
	// MaxTokens caps a summary (0 = DefaultMaxTokens).
	MaxTokens int `toml:"max_tokens" json:"maxTokens,omitempty"`
	// MaxTokensField is the request field for MaxTokens on OpenAI-compatible
	// servers: "max_tokens" (default, widest support) or
	// "max_completion_tokens" (required by OpenAI's reasoning models).
	MaxTokensField string `toml:"max_tokens_field" json:"maxTokensField,omitempty"`
	// Timeout bounds one request (0 = DefaultTimeout).
	Timeout time.Duration `toml:"timeout" json:"timeout,omitempty"`
	// Instructions are appended to the default summary prompt.
	Instructions string `toml:"instructions" json:"instructions,omitempty"`
}

// Configured reports whether a model is configured at all.
func (c Config) Configured() bool { return strings.TrimSpace(c.Model) != "" }

// An Option adjusts what New uses from its surroundings.
type Option func(*deps)

type deps struct {
	getenv func(string) string
	client *http.Client
}

// WithGetenv reads the API key through getenv instead of os.Getenv.
func WithGetenv(getenv func(string) string) Option { return func(d *deps) { d.getenv = getenv } }

// WithHTTPClient sends requests with c instead of a default client.
func WithHTTPClient(c *http.Client) Option { return func(d *deps) { d.client = c } }

// New returns the configured model. It validates the configuration and
// reads the API key; it opens no connection.
func New(cfg Config, opts ...Option) (summarize.Model, error) {
	d := deps{getenv: os.Getenv, client: &http.Client{}}
	for _, o := range opts {
		o(&d)
	}
	if !cfg.Configured() {
		return nil, fmt.Errorf("no summarizing model is configured")
	}
	provider := strings.ToLower(strings.TrimSpace(cfg.Provider))
	if provider == "" {
		provider = ProviderOpenAI
		if strings.HasPrefix(strings.ToLower(cfg.Model), "claude") && cfg.BaseURL == "" {
			provider = ProviderAnthropic
		}
	}
	key := ""
	if cfg.APIKeyEnv != "" {
		key = strings.TrimSpace(d.getenv(cfg.APIKeyEnv))
		if key == "" {
			return nil, fmt.Errorf("the environment variable %s, which should hold the API key for %s, is not set", cfg.APIKeyEnv, cfg.Model)
		}
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	c := client{cfg: cfg, key: key, http: d.client}
	switch provider {
	case ProviderOpenAI:
		if c.cfg.BaseURL == "" {
			c.cfg.BaseURL = DefaultOpenAIBase
		}
		switch cfg.MaxTokensField {
		case "", "max_tokens", "max_completion_tokens":
		default:
			return nil, fmt.Errorf("max_tokens_field must be max_tokens or max_completion_tokens, not %q", cfg.MaxTokensField)
		}
		c.cfg.BaseURL = strings.TrimRight(c.cfg.BaseURL, "/")
		return &OpenAI{c}, nil
	case ProviderAnthropic:
		if c.cfg.BaseURL == "" {
			c.cfg.BaseURL = DefaultAnthropicBase
		}
		c.cfg.BaseURL = strings.TrimSuffix(strings.TrimRight(c.cfg.BaseURL, "/"), "/v1")
		return &Anthropic{c}, nil
	}
	return nil, fmt.Errorf("unknown summarizing provider %q (want %s or %s)", cfg.Provider, ProviderOpenAI, ProviderAnthropic)
}
