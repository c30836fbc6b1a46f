package summarize

import (
	"regexp"
	"strings"
	"sync"
)

// A secretPattern finds one kind of secret. When group > 0 only that
// submatch is the secret (the rest, such as "password=", is context worth
// keeping so the summary still says a password was set).
type secretPattern struct {
	kind  string
	re    *regexp.Regexp
	group int
}

// secretPatterns are ordered most specific first: a PEM block or an
// sk-ant- key must be claimed before the generic assignment rule sees it.
var secretPatterns = sync.OnceValue(func() []secretPattern {
	return []secretPattern{
		{kind: "private-key", re: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)},
		{kind: "anthropic-key", re: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_\-]{8,}`)},
		{kind: "openai-key", re: regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{16,}`)},
		{kind: "aws-key", re: regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b`)},
		{kind: "github-token", re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`)},
		{kind: "slack-token", re: regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9\-]{8,}`)},
		{kind: "jwt", re: regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{4,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}`)},
		{kind: "bearer-token", re: regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{8,}=*)`), group: 1},
		{kind: "url-password", re: regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:([^@\s/]+)@`), group: 1},
		{kind: "assignment", re: regexp.MustCompile(`(?i)\b(?:[a-z0-9]+[_\-])*(?:api[_\-]?key|apikey|secret(?:[_\-]?key)?|password|passwd|pwd|token|access[_\-]?key|private[_\-]?key|client[_\-]?secret|credentials?)["']?\s*[:=]\s*["']?([^\s"',;}{\]\[]{4,})`), group: 1},
	}
})

const redactedPrefix = "[REDACTED:"

// Redact removes secrets from s: API keys (OpenAI sk-, Anthropic sk-ant-,
// AWS AKIA…, GitHub ghp_…, Slack xox…-), bearer tokens, JWTs, PEM private
// keys, passwords in URLs and api_key=/password=/token: assignments. Each is
// replaced by "[REDACTED:kind]". It returns the cleaned text and how many
// secrets it removed. Text without secrets is returned unchanged.
func Redact(s string) (string, int) {
	total := 0
	for _, p := range secretPatterns() {
		var n int
		s, n = redactPattern(s, p)
		total += n
	}
	return s, total
}

func redactPattern(s string, p secretPattern) (string, int) {
	matches := p.re.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s))
	last, n := 0, 0
	for _, m := range matches {
		start, end := m[0], m[1]
		if p.group > 0 {
			start, end = m[2*p.group], m[2*p.group+1]
		}
		if start < 0 || start < last || strings.HasPrefix(s[start:], redactedPrefix) || isPlaceholder(s[start:end]) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(redactedPrefix + p.kind + "]")
		last = end
		n++
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// isPlaceholder spots values that are obviously not secrets — environment
// references and template holes — so "token: $GITHUB_TOKEN" is not counted.
func isPlaceholder(v string) bool {
	switch {
	case strings.HasPrefix(v, "$"), strings.HasPrefix(v, "%"), strings.HasPrefix(v, "<"), strings.HasPrefix(v, "process.env"), strings.HasPrefix(v, "os.environ"), strings.HasPrefix(v, "os.Getenv"):
		return true
	case strings.Trim(v, "*xX.") == "":
		return true
	case len(v) < 8 && strings.Trim(v, "0123456789") == "":
		// "token: 4096" is a count, not a credential.
		return true
	}
	return false
}
