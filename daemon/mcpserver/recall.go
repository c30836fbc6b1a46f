package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/daemon/store"
)

// DefaultRecallTokens bounds a page when the model names no max_tokens:
// below Claude Code's 25,000-token cap on one MCP result.
const DefaultRecallTokens = 20000

// minRecallTokens keeps a page from being smaller than a few lines.
const minRecallTokens = 100

// RecallRequest is recall's arguments.
type RecallRequest struct {
	Handle    string `json:"handle" jsonschema:"the handle a placeholder or summary names, as in 'recall r7f3c2'"`
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"the most tokens to return (default 20000); longer content comes in pages"`
	Page      int    `json:"page,omitempty" jsonschema:"which page to return, from 1 (default 1)"`
}

// RecallResult is one page of what a handle names.
type RecallResult struct {
	Handle string `json:"handle"`
	// Text is the page: the original bytes, whole when Pages is 1; the
	// pages joined in order are the original.
	Text   string `json:"text"`
	Page   int    `json:"page"`
	Pages  int    `json:"pages"`
	Tokens int    `json:"tokens"`
	// Sources are the versions whose placeholders or summaries name it.
	Sources []store.RecallSource `json:"sources,omitempty"`
}

// Recall answers recall(handle).
func (s *Server) Recall(ctx context.Context, req RecallRequest) (*RecallResult, error) {
	h := strings.TrimSpace(req.Handle)
	h = strings.TrimPrefix(h, "recall ")
	if !recall.Valid(h) {
		return nil, fmt.Errorf("%q is not a recall handle: a handle is %s, as a placeholder names it ('recall r7f3c2')", req.Handle, recall.Syntax)
	}
	if req.Page < 0 {
		return nil, fmt.Errorf("page %d: pages count from 1", req.Page)
	}
	max := req.MaxTokens
	switch {
	case max <= 0:
		max = DefaultRecallTokens
	case max < minRecallTokens:
		max = minRecallTokens
	}
	st, err := s.store(ctx)
	if err != nil {
		return nil, err
	}
	got, err := st.Recall(ctx, h)
	if err != nil {
		return nil, err
	}
	counter, err := s.textCounter()
	if err != nil {
		return nil, err
	}
	pages := paginate(string(got.Content), max, counter.Text)
	page := max1(req.Page)
	if page > len(pages) {
		return nil, fmt.Errorf("recall %s has %d page(s) of at most %d tokens; there is no page %d", h, len(pages), max, page)
	}
	text := pages[page-1]
	return &RecallResult{Handle: h, Text: text, Page: page, Pages: len(pages), Tokens: counter.Text(text), Sources: got.Versions}, nil
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// paginate cuts content into pages of at most max tokens (as count
// measures them), at line ends where it can; the pages joined are content.
func paginate(content string, max int, count func(string) int) []string {
	if count(content) <= max {
		return []string{content}
	}
	var pages []string
	var cur strings.Builder
	curTokens := 0
	flush := func() {
		if cur.Len() > 0 {
			pages = append(pages, cur.String())
			cur.Reset()
			curTokens = 0
		}
	}
	for _, line := range strings.SplitAfter(content, "\n") {
		n := count(line)
		if curTokens+n <= max {
			cur.WriteString(line)
			curTokens += n
			continue
		}
		flush()
		for n > max {
			// A line longer than a page: cut it where a page is full.
			head := cutTokens(line, max, count)
			pages = append(pages, head)
			line = line[len(head):]
			n = count(line)
		}
		cur.WriteString(line)
		curTokens = n
	}
	flush()
	return pages
}

// cutTokens returns the longest prefix of s ending on a rune boundary
// of at most max tokens, and at least one rune.
func cutTokens(s string, max int, count func(string) int) string {
	ends := make([]int, 0, len(s))
	for i := range s {
		if i > 0 {
			ends = append(ends, i)
		}
	}
	ends = append(ends, len(s))
	// The largest k with count(s[:ends[k]]) <= max; token counts grow
	// with the prefix.
	lo, hi := 0, len(ends)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if count(s[:ends[mid]]) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return s[:ends[lo]]
}
