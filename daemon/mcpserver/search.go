package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/store"
)

// DefaultSearchResults bounds a search's hits when the model names no
// max_results.
const DefaultSearchResults = 20

// snippetRunes is how much text a hit shows on each side of the match.
const snippetRunes = 160

// SearchRequest is search's arguments.
type SearchRequest struct {
	Query      string `json:"query" jsonschema:"the text to look for (case-insensitive)"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"the most hits to return (default 20)"`
	Session    string `json:"session,omitempty" jsonschema:"a session id or transcript path; by default the session this agent runs in"`
}

// SearchHit is one place a stored version says the query.
type SearchHit struct {
	// Version is the stored version's label ("v1") and Kind its kind
	// (source, compact, restore).
	Version string `json:"version"`
	Kind    string `json:"kind"`
	// Turn and Message locate the hit in that version (from 0).
	Turn    int    `json:"turn"`
	Message int    `json:"message"`
	Role    string `json:"role"`
	// Part is the part's kind, and Tool its tool for calls and results.
	Part    string `json:"part"`
	Tool    string `json:"tool,omitempty"`
	Snippet string `json:"snippet"`
}

// SearchResult lists the hits, oldest version first, each text once.
type SearchResult struct {
	Query        string      `json:"query"`
	Conversation string      `json:"conversation"`
	Versions     int         `json:"versions"`
	Hits         []SearchHit `json:"hits"`
	// More is set when hits beyond MaxResults were left out.
	More bool `json:"more,omitempty"`
	// Unreadable names versions that could not be read (a damaged store).
	Unreadable []string `json:"unreadable,omitempty"`
}

// Search answers search(query).
func (s *Server) Search(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	q := strings.TrimSpace(req.Query)
	if q == "" {
		return nil, fmt.Errorf("search needs a query: the text to look for")
	}
	limit := req.MaxResults
	if limit <= 0 {
		limit = DefaultSearchResults
	}
	sess, err := s.findSession(ctx, req.Session)
	if err != nil {
		return nil, err
	}
	path := sess.path
	st, err := s.store(ctx)
	if err != nil {
		return nil, err
	}
	key := ""
	if t, err := readTranscript(path); err == nil && t.Meta.SessionID != "" {
		key = "session:" + t.Meta.SessionID
	}
	abs, _ := filepath.Abs(path)
	conv, ok, err := st.FindConversation(ctx, abs, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("the store %s has no version of %s yet: compactd records a conversation when it compacts it (or when an agent's PreCompact hook runs)", st.Path(), path)
	}
	versions, err := st.Versions(ctx, conv.ID)
	if err != nil {
		return nil, err
	}
	res := &SearchResult{Query: q, Conversation: conv.Key, Versions: len(versions), Hits: []SearchHit{}}
	needle := strings.ToLower(q)
	seen := map[string]bool{}
	for _, v := range versions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t, err := parseVersion(ctx, st, v)
		if err != nil {
			res.Unreadable = append(res.Unreadable, v.Label+": "+err.Error())
			continue
		}
		turns := t.Turns
		if len(turns) == 0 {
			turns = transcript.BuildTurns(t.Messages)
		}
		for i := range t.Messages {
			m := &t.Messages[i]
			for j := range m.Parts {
				p := &m.Parts[j]
				for _, text := range []string{p.Text, p.Args} {
					at := strings.Index(strings.ToLower(text), needle)
					if at < 0 || seen[text] {
						continue
					}
					seen[text] = true
					if len(res.Hits) == limit {
						res.More = true
						return res, nil
					}
					res.Hits = append(res.Hits, SearchHit{
						Version: v.Label, Kind: v.Kind, Turn: transcript.TurnOf(turns, i), Message: i,
						Role: string(m.Role), Part: string(p.Kind), Tool: p.ToolName, Snippet: snippet(text, at, len(needle)),
					})
				}
			}
		}
	}
	return res, nil
}

// parseVersion reads a stored version back and parses it with its codec.
func parseVersion(ctx context.Context, st *store.Store, v store.Version) (*transcript.Transcript, error) {
	codec, ok := format.Lookup(transcript.Format(v.Format))
	if !ok {
		return nil, fmt.Errorf("format %q is unknown to this compactd", v.Format)
	}
	data, err := st.Content(ctx, v.ContentHash)
	if err != nil {
		return nil, err
	}
	return codec.Parse(data)
}

// snippet is the text around [at, at+n), cut on rune boundaries.
func snippet(text string, at, n int) string {
	from, to := at, min(at+n, len(text))
	for k := 0; k < snippetRunes && from > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(text[:from])
		from -= size
	}
	for k := 0; k < snippetRunes && to < len(text); k++ {
		_, size := utf8.DecodeRuneInString(text[to:])
		to += size
	}
	out := text[from:to]
	if from > 0 {
		out = "…" + out
	}
	if to < len(text) {
		out += "…"
	}
	return out
}
