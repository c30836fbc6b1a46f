package jobs

import (
	"context"
	"sync"

	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/store"
)

// storeRegistry is what the store knows of recall handles, for a
// recall.Book: the first error it meets is kept for the job to report.
type storeRegistry struct {
	ctx context.Context
	s   *store.Store

	mu  sync.Mutex
	err error
}

func (g *storeRegistry) fail(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == nil {
		g.err = err
	}
}

func (g *storeRegistry) HandleOf(sum [32]byte) (string, bool) {
	h, ok, err := g.s.HandleOf(g.ctx, sum)
	if err != nil {
		g.fail(err)
	}
	return h, ok
}

func (g *storeRegistry) SumOf(handle string) ([32]byte, bool) {
	sum, ok, err := g.s.SumOf(g.ctx, handle)
	if err != nil {
		g.fail(err)
	}
	return sum, ok
}

func (g *storeRegistry) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// recallsOf returns what the view's stand-ins name, for the store: the
// book's entries whose handle the view writes (a stand-in a later step
// undid names nothing).
func recallsOf(view *transcript.View, book *recall.Book) []store.RecallContent {
	written := map[string]bool{}
	for _, s := range view.Summaries {
		for _, h := range recall.Find(s.Text) {
			written[h] = true
		}
	}
	for i := range view.Messages {
		for j := range view.Messages[i].Parts {
			p := &view.Messages[i].Parts[j]
			if !p.Changed {
				continue
			}
			for _, h := range recall.Find(p.Text) {
				written[h] = true
			}
			for _, h := range recall.Find(p.Args) {
				written[h] = true
			}
		}
	}
	var out []store.RecallContent
	for _, e := range book.Entries() {
		if written[e.Handle] {
			out = append(out, store.RecallContent{Handle: e.Handle, Sum: e.Sum, Content: []byte(e.Content)})
		}
	}
	return out
}
