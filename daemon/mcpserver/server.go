package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/store"
)

// Server answers the tools. It is safe for concurrent use.
type Server struct {
	// StorePath is the store's file; a missing file means nothing was
	// recorded yet (recall and search say so), never that one is created.
	StorePath string
	// Env locates the agents' sessions; Cwd is the folder the agent runs
	// in (its sessions of that folder are the candidates).
	Env agents.Env
	Cwd string
	// Agent, when set, is the agent that started the server (`compactd mcp
	// --agent claude`, as `mcp install` writes it); nil looks at every
	// agent's sessions of Cwd.
	Agent *agents.Agent
	// SessionHint is the session id the agent's environment names, if any.
	SessionHint string
	// Getenv is the environment the agent runs with, which decides where
	// it compacts by itself (compactd mcp runs as the agent's child: its
	// own); nil reads no variable.
	Getenv func(string) string
	// MaxIndexBytes bounds the search index (config's
	// search.max_index_mb); 0 bounds nothing.
	MaxIndexBytes int64
	// Args is the agent's command line (compactd mcp's parent's), whose
	// flags may choose its settings; nil when unknown.
	Args []string

	mu      sync.Mutex
	st      *store.Store
	counter *tokens.Counter
	// counters count each model's transcripts, shared across calls.
	counters *tokens.CounterSet
	// status follows the sessions context_status read, under the
	// settings statusSettings holds per session.
	status         *index.Index
	statusSettings map[string]statusSettings
}

// ErrNoStore is returned when the store does not exist yet.
var ErrNoStore = errors.New("compactd has recorded nothing yet")

// Close closes the store, if it was opened.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		return nil
	}
	err := s.st.Close()
	s.st = nil
	return err
}

// store opens the store on first use. It is never created here: a
// missing file is ErrNoStore.
func (s *Server) store(ctx context.Context) (*store.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil {
		return s.st, nil
	}
	fi, err := os.Stat(s.StorePath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: there is no store at %s (compactd writes it when it first compacts or records a conversation)", ErrNoStore, s.StorePath)
	}
	if err != nil {
		return nil, fmt.Errorf("open the store %s: %w", s.StorePath, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the store %s is not a regular file", s.StorePath)
	}
	st, err := store.Open(ctx, s.StorePath)
	if err != nil {
		return nil, err
	}
	s.st = st
	return st, nil
}

// textCounter is the counter pages are measured with: o200k, the BPE of
// current models, offline.
func (s *Server) textCounter() (*tokens.Counter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counter != nil {
		return s.counter, nil
	}
	c, err := tokens.New(tokens.O200kBase, tokens.WithWorkers(1))
	if err != nil {
		return nil, fmt.Errorf("load the tokenizer: %w", err)
	}
	s.counter = c
	return c, nil
}

func (s *Server) counterSet() *tokens.CounterSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counters == nil {
		s.counters = tokens.NewCounterSet(tokens.WithCache(tokens.NewMemoryCache(0)))
	}
	return s.counters
}
