package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/daemon/search"
)

// DefaultSearchResults bounds a search's hits when the model names no
// max_results.
const DefaultSearchResults = 20

// Search scopes.
const (
	// ScopeSession is this conversation: its transcript and every
	// version compactd stored of it (before and after each compaction).
	ScopeSession = "session"
	// ScopeAll is every agent's sessions on the machine and every stored
	// version.
	ScopeAll = "all"
)

// SearchRequest is search's arguments.
type SearchRequest struct {
	Query      string `json:"query" jsonschema:"words to look for (all of them, in one place; case-insensitive), a \"quoted phrase\" (as written), word* (any word it begins)"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"the most sessions to return (default 20)"`
	Scope      string `json:"scope,omitempty" jsonschema:"session (default): this conversation, its transcript and every version compactd stored of it; all: every agent's past sessions on this machine"`
	Session    string `json:"session,omitempty" jsonschema:"with scope session: a session id or transcript path; by default the session this agent runs in"`
}

// SearchResult lists the hits, best first: where each says the words
// (its agent, project, date, transcript and line, or stored version) and
// the text around them.
type SearchResult struct {
	Query string `json:"query"`
	Scope string `json:"scope"`
	// Conversation is the store's key of the session searched (scope
	// session), "" when compactd recorded none of it yet.
	Conversation string       `json:"conversation,omitempty"`
	Hits         []search.Hit `json:"hits"`
	// More is set when hits beyond MaxResults were left out.
	More bool `json:"more,omitempty"`
}

// Search answers search(query): from compactd's search index in the
// store (the one `compactd search` and the editors read), brought up to
// date first with what changed — the session's own transcript and
// stored versions, or for scope all every session on the machine.
func (s *Server) Search(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	q := strings.TrimSpace(req.Query)
	if q == "" {
		return nil, fmt.Errorf("search needs a query: the words to look for")
	}
	scope := req.Scope
	if scope == "" {
		scope = ScopeSession
	}
	if scope != ScopeSession && scope != ScopeAll {
		return nil, fmt.Errorf("scope %q is neither %s (this conversation) nor %s (every session on the machine)", req.Scope, ScopeSession, ScopeAll)
	}
	limit := req.MaxResults
	if limit <= 0 {
		limit = DefaultSearchResults
	}
	st, err := s.store(ctx)
	if err != nil {
		return nil, err
	}
	var folders []string
	if s.Cwd != "" {
		folders = []string{s.Cwd}
	}
	x := search.New(search.Options{Store: st, Env: s.Env, Folders: func() []string { return folders }, MaxBytes: s.MaxIndexBytes})
	defer x.Close()
	res := &SearchResult{Query: q, Scope: scope}
	query := search.Query{Text: q, Limit: limit}
	if scope == ScopeAll {
		if _, err := x.Sync(ctx, nil); err != nil {
			return nil, err
		}
	} else {
		sess, err := s.findSession(ctx, req.Session)
		if err != nil {
			return nil, err
		}
		path, _ := filepath.Abs(sess.path)
		key := ""
		if t, err := readTranscript(path); err == nil && t.Meta.SessionID != "" {
			key = "session:" + t.Meta.SessionID
		}
		conv, ok, err := st.FindConversation(ctx, path, key)
		if err != nil {
			return nil, err
		}
		if ok {
			res.Conversation = conv.Key
		}
		if _, err := x.Update(ctx, path); err != nil {
			return nil, err
		}
		if err := x.SyncVersions(ctx); err != nil {
			return nil, err
		}
		query.Paths, query.Conversation = []string{path}, res.Conversation
		if res.Conversation == "" {
			query.Conversation = "\x00none" // no stored version: the transcript alone
		}
	}
	found, err := x.Search(ctx, query)
	if err != nil {
		return nil, err
	}
	res.Hits, res.More = found.Hits, found.More
	return res, nil
}
