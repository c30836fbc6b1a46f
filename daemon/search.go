package daemon

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/compactd/compactd/daemon/search"
	"github.com/compactd/compactd/daemon/store"
)

// The search index of every session on the machine (daemon/search), kept
// current by the daemon: each transcript change the index sees is
// indexed (what was appended) after a short quiet time, and the rest of
// the machine — every agent's sessions of other projects, their
// databases, the stored versions — is synced after the cold scan and
// every searchSyncEvery.

// searchSyncEvery is how often the sessions the watcher does not follow
// (other projects') are looked at: a sync that finds nothing changed
// costs a stat of each session file.
const searchSyncEvery = time.Minute

// defaultSearchDelay coalesces a session's appends: an agent streaming a
// turn writes many times a second, and each indexing is a transaction.
const defaultSearchDelay = time.Second

// ErrNoSearch says why there is no search index: it lives in the store.
var ErrNoSearch = errors.New("search needs the store, where its index lives")

// SearchRequest asks for sessions that say something.
type SearchRequest struct {
	// Query is words, "quoted phrases", word* prefixes.
	Query string
	Limit int
	// Agent keeps only that agent's sessions.
	Agent string
}

// Found is what a search reports: the hits, best first, and the agents a
// hit can be handed off to.
type Found struct {
	Message string `json:"-"`
	search.Results
	Targets []string `json:"targets"`
}

// Summary implements Result: a search says nothing by itself (the editor
// lists the hits as they come).
func (f *Found) Summary() (message, open string) { return f.Message, "" }

// searching is the daemon's part of search: the index, and the
// transcripts that changed since it last indexed.
type searching struct {
	index *search.Index
	mu    sync.Mutex
	dirty map[string]bool
	wake  chan struct{}
}

// newSearching opens the search index of the daemon's store, nil without
// a store.
func (d *Daemon) newSearching() *searching {
	if d.opts.Jobs == nil || d.opts.Jobs.Store == nil {
		return nil
	}
	return &searching{
		index: search.New(search.Options{Store: d.opts.Jobs.Store, Env: d.opts.Env, Folders: d.Folders,
			MaxBytes: d.resolvedFile("").Config.Search.MaxIndexBytes(), Now: d.opts.Now, Logger: d.log}),
		dirty: map[string]bool{},
		wake:  make(chan struct{}, 1),
	}
}

// changed notes a transcript to index again.
func (s *searching) changed(path string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.dirty[path] = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// runSearch keeps the index current until ctx ends.
func (d *Daemon) runSearch(ctx context.Context) {
	s := d.search
	defer s.index.Close()
	// After the cold scan: both read every transcript of the workspace.
	select {
	case <-d.index.ScanDone():
	case <-ctx.Done():
		return
	}
	delay := d.opts.SearchDelay
	if delay <= 0 {
		delay = defaultSearchDelay
	}
	syncAll := func() {
		st, err := s.index.Sync(ctx, nil)
		if err != nil && ctx.Err() == nil {
			d.log.Warn("search: the index could not be brought up to date", "err", err)
		}
		if d.opts.OnSearch != nil && ctx.Err() == nil {
			d.opts.OnSearch(st)
		}
	}
	syncAll()
	tick := time.NewTicker(searchSyncEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			syncAll()
		case <-s.wake:
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return
			}
			s.mu.Lock()
			paths := s.dirty
			s.dirty = map[string]bool{}
			s.mu.Unlock()
			var st search.Stats
			for p := range paths {
				one, err := s.index.Update(ctx, p)
				if err != nil && ctx.Err() == nil {
					d.log.Warn("search: a session could not be indexed", "path", p, "err", err)
				}
				st.Indexed += one.Indexed
				st.Removed += one.Removed
				st.Bytes += one.Bytes
				st.Text += one.Text
			}
			if d.opts.OnSearch != nil && ctx.Err() == nil {
				d.opts.OnSearch(st)
			}
		}
	}
}

// Search finds the sessions that say req.Query, from the index the
// daemon keeps (database sessions among the hits are rendered, so that
// every hit's Path opens).
func (d *Daemon) Search(ctx context.Context, req SearchRequest) (*Found, error) {
	if d.search == nil {
		if err := d.JobsUnavailable(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNoSearch, err)
		}
		return nil, ErrNoSearch
	}
	res, err := d.search.index.Search(ctx, search.Query{Text: req.Query, Limit: req.Limit, Agent: req.Agent})
	if err != nil {
		return nil, err
	}
	for i := range res.Hits {
		if res.Hits[i].Path != "" {
			if p, err := d.search.index.Materialize(ctx, res.Hits[i]); err == nil {
				res.Hits[i].Path = p
			}
		}
	}
	return &Found{Results: *res, Targets: HandoffTargets()}, nil
}

// SearchSize measures the search index.
func (d *Daemon) SearchSize(ctx context.Context) (store.SearchSize, error) {
	if d.search == nil {
		return store.SearchSize{}, ErrNoSearch
	}
	return d.search.index.Size(ctx)
}
