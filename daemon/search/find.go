package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/store"
	"github.com/compactd/compactd/daemon/watch"
)

// DefaultLimit is how many sessions a search returns when asked for no
// number.
const DefaultLimit = 20

// MaxLimit bounds what one search returns.
const MaxLimit = 200

// candidateWindow is how many pieces holding every term a query ranks:
// all of them for anything but common words, the newest this many for
// those (the index walks pieces newest first).
const candidateWindow = 1000

// maxReads bounds the pieces one query reads again to check its phrases
// and cut snippets (each well under a millisecond).
const maxReads = 150

// minPiecesPerSource and maxPiecesPerSource bound how many of a source's
// best pieces are read for a place that says the query as typed (or, for
// quoted phrases, says them at all) before the source is given up or
// shown with its best piece: the reads are shared among the sources a
// query can list, so a search of one session reads many of its pieces.
const (
	minPiecesPerSource = 3
	maxPiecesPerSource = 50
)

// A Query is what to look for and where.
type Query struct {
	// Text is the query: words (all of them, in one place of a
	// session), "quoted phrases" (as written), a word ending in * (any
	// word it begins).
	Text  string
	Limit int
	// Agent keeps only that agent's sessions ("" every one).
	Agent string
	// Paths and Conversation keep only these transcripts and the stored
	// versions of that conversation (the store's key): one session's
	// history, as the MCP tool searches by default. Both empty: every
	// session.
	Paths        []string
	Conversation string
}

// A Hit is one session (a transcript, a database session or a stored
// version) that says what was asked, and where.
type Hit struct {
	Agent  string `json:"agent,omitempty"`
	Format string `json:"format"`
	// Project is the folder the session ran in, when known.
	Project string `json:"project,omitempty"`
	Session string `json:"session,omitempty"`
	Title   string `json:"title,omitempty"`
	// Path is the transcript to open (a database session's rendering,
	// a stored version's fork when it is on disk); "" for a stored
	// version whose file is gone (restore it from Conversation).
	Path string `json:"path,omitempty"`
	// Line is the line of Path where the match's message starts
	// (1-based; 0 when unknown).
	Line int64 `json:"line,omitempty"`
	// Version and Conversation name a stored version.
	Version      string `json:"version,omitempty"`
	Conversation string `json:"conversation,omitempty"`
	// Date is the session's last activity.
	Date time.Time `json:"date"`
	// Role, Part and Tool say what the match is in: a prompt (user,
	// text), an answer, a tool call or its result.
	Role    string `json:"role"`
	Part    string `json:"part"`
	Tool    string `json:"tool,omitempty"`
	Snippet string `json:"snippet"`
	// Exact: the words occur as typed (or the quoted phrase does).
	Exact bool `json:"exact,omitempty"`
	// Resume is the agent's command that resumes the session (run in
	// Project), when the agent has one.
	Resume string `json:"resume,omitempty"`

	score float64
	// source is the index's name of the hit's source.
	source string
}

// Results are a search's hits, best first.
type Results struct {
	Query string `json:"query"`
	Hits  []Hit  `json:"hits"`
	// More: sessions past the limit (or past what one query reads) hold
	// the words too.
	More bool `json:"more,omitempty"`
}

// Search answers q from the index (it does not sync first: the daemon
// keeps the index current, the CLI syncs before it asks).
func (x *Index) Search(ctx context.Context, q Query) (*Results, error) {
	pq, err := parseQuery(q.Text)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	var within []int64
	if len(q.Paths) > 0 || q.Conversation != "" {
		if within, err = x.scope(ctx, q); err != nil {
			return nil, err
		}
		if within == nil {
			within = []int64{}
		}
	}
	cands, err := x.st.MatchSearch(ctx, pq.expr, within, candidateWindow)
	if err != nil {
		return nil, err
	}
	res := &Results{Query: q.Text, Hits: []Hit{}}
	if len(cands) == 0 {
		return res, nil
	}
	bySource := map[int64][]store.SearchCandidate{}
	var ids []int64
	for _, c := range cands {
		if bySource[c.Doc] == nil {
			ids = append(ids, c.Doc)
		}
		bySource[c.Doc] = append(bySource[c.Doc], c)
	}
	docs, err := x.st.SearchDocsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	now := x.opts.Now()
	type ranked struct {
		doc   store.SearchDoc
		cands []store.SearchCandidate
		score float64
	}
	var order []ranked
	for _, id := range ids {
		d, ok := docs[id]
		if !ok || q.Agent != "" && d.Agent != q.Agent {
			continue
		}
		cs := bySource[id]
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Rank < cs[j].Rank })
		order = append(order, ranked{doc: d, cands: cs, score: relevance(cs) * recency(now, d.Updated)})
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].score > order[j].score })
	reader := newReader(x, pq)
	reads := 0
	perSource := min(max(maxReads/max(min(len(order), limit), 1), minPiecesPerSource), maxPiecesPerSource)
	for i, r := range order {
		if len(res.Hits) >= limit || reads >= maxReads {
			res.More = i < len(order)
			break
		}
		// The source's best pieces in turn, until one says the words as
		// typed (else the first that holds them all).
		var found *Hit
		for k, c := range r.cands {
			if k == perSource || reads >= maxReads {
				break
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			reads++
			ps, lineOf, err := reader.passages(ctx, r.doc, c)
			if err != nil {
				x.log.Debug("search: a piece could not be read again", "source", r.doc.Source, "err", err)
				continue
			}
			m, ok := pq.check(ps)
			if !ok {
				continue
			}
			h := x.hit(r.doc, m)
			h.Line = lineOf(m.passage.Message)
			h.score = r.score
			if m.typed {
				h.score *= 2
			}
			if found == nil || m.typed {
				found = &h
			}
			if m.typed {
				break
			}
		}
		if found != nil {
			res.Hits = append(res.Hits, *found)
		}
	}
	sort.SliceStable(res.Hits, func(i, j int) bool { return res.Hits[i].score > res.Hits[j].score })
	res.Hits = collapse(res.Hits)
	return res, nil
}

// relevance of a source is its best piece's bm25 (FTS5's, negated: higher
// is better), and a little more for each other piece that holds the words.
func relevance(cs []store.SearchCandidate) float64 {
	return -cs[0].Rank + 0.1*math.Log(float64(len(cs)))
}

// recency weighs a session by its last activity: a month old counts half
// as much as one active now (and never less than a tenth as much).
func recency(now, updated time.Time) float64 {
	days := now.Sub(updated).Hours() / 24
	if days < 0 {
		days = 0
	}
	return math.Max(1/(1+days/30), 0.1)
}

// collapse keeps one hit per session, where it ranks best: a stored
// version of a session whose transcript is a hit too (the same agent and
// session id) adds nothing but a place to open, and the transcript's
// place wins.
func collapse(hits []Hit) []Hit {
	at := map[string]int{}
	out := hits[:0]
	for _, h := range hits {
		if h.Session != "" {
			k := h.Agent + "\x00" + h.Format + "\x00" + h.Session
			if i, ok := at[k]; ok {
				if out[i].Path == "" && h.Path != "" {
					kept := out[i]
					h.score, h.Exact, h.Snippet, h.Role, h.Part, h.Tool = kept.score, kept.Exact, kept.Snippet, kept.Role, kept.Part, kept.Tool
					h.Line = 0
					if h.Version == "" {
						h.Conversation = ""
					}
					out[i] = h
				}
				continue
			}
			at[k] = len(out)
		}
		out = append(out, h)
	}
	return out
}

// scope is the sources q keeps: its transcripts and its conversation's
// stored versions.
func (x *Index) scope(ctx context.Context, q Query) ([]int64, error) {
	docs, err := x.st.SearchDocs(ctx)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, d := range docs {
		if q.Conversation != "" && d.Conversation == q.Conversation || slices.ContainsFunc(q.Paths, func(p string) bool { return agents.SamePath(p, d.Source) }) {
			out = append(out, d.ID)
		}
	}
	return out, nil
}

// hit describes a source's match.
func (x *Index) hit(d store.SearchDoc, m match) Hit {
	h := Hit{Agent: d.Agent, Format: d.Format, Project: d.Project, Session: d.SessionID, Title: d.Title,
		Version: d.Version, Conversation: d.Conversation, Date: d.Updated,
		Role: string(m.passage.Role), Part: string(m.passage.Part), Tool: m.passage.Tool,
		Snippet: snippet(m.passage.Text, m.start, m.end), Exact: m.typed, source: d.Source}
	switch d.Kind {
	case store.SearchFile:
		h.Path = d.Source
	case store.SearchDatabase:
		h.Path = x.renderedPath(d)
	}
	if a := agents.ByFormat(transcript.Format(d.Format)); a != nil && a.Resume != nil && h.Session != "" && d.Kind != store.SearchVersion {
		h.Resume = a.Resume(h.Path, h.Session)
	}
	return h
}

// renderedPath is where a database session is (or will be) rendered.
func (x *Index) renderedPath(d store.SearchDoc) string {
	db, session := splitDBSource(d.Source)
	a := agents.ByFormat(transcript.Format(d.Format))
	if a == nil || a.Everywhere == nil {
		return ""
	}
	for _, r := range a.Everywhere(x.opts.Env) {
		if r.Database == db && r.Scope != "" {
			return watch.RenderedSession(r.Scope, session)
		}
	}
	return ""
}

// Materialize makes a hit's transcript a file to open: a database
// session is rendered to its Path (as the server renders the workspace's
// sessions); a stored version without a file on disk has none.
func (x *Index) Materialize(ctx context.Context, h Hit) (string, error) {
	if h.Path == "" {
		if h.Version != "" {
			return "", fmt.Errorf("version %s of %s has no file on disk: restore it (compactd restore)", h.Version, h.Conversation)
		}
		return "", errors.New("this hit has no transcript to open")
	}
	d, ok, err := x.st.SearchDoc(ctx, h.source)
	if err != nil || !ok || d.Kind != store.SearchDatabase {
		return h.Path, err
	}
	db, session := splitDBSource(d.Source)
	return watch.RenderDatabaseSession(ctx, x.opts.Env, db, session)
}
