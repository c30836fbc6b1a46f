package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/llm"
	"github.com/compactd/compactd/daemon/sourcefile"
	"github.com/compactd/compactd/daemon/store"
)

// Progress receives a stage name and a completion percentage (0–100).
type Progress func(stage string, pct int)

// Pipeline compacts a transcript; strategy.Run is the real one.
type Pipeline func(ctx context.Context, t *transcript.Transcript, c *tokens.Counter, opts strategy.Options) (*transcript.View, *strategy.Report, error)

// Runner runs jobs against one store. It is safe for concurrent use; jobs
// on the same conversation serialize on its lock, across processes too.
type Runner struct {
	Store *store.Store
	// Pipeline defaults to strategy.Run.
	Pipeline Pipeline
	// Encoding, when set, is the BPE encoding used for every count; ""
	// uses each transcript's model's encoding.
	Encoding string
	// Now defaults to time.Now (tests pin it).
	Now func() time.Time
	// LLMOptions are passed to llm.New when a request's summarize settings
	// name a model (tests point the client elsewhere).
	LLMOptions []llm.Option
	// Log, when set, gets what a job that panicked was doing and where
	// (the job itself answers a PanicError).
	Log *slog.Logger
	// LockWait is how long a job waits for another on its conversation
	// before answering ErrConversationBusy; 0 is DefaultLockWait.
	LockWait time.Duration

	// inPlace is how in-place writes replace a transcript (tests change
	// it; the zero value is the real behaviour).
	inPlace inPlace

	countersOnce sync.Once
	counters     *tokens.CounterSet
}

// New returns a runner on s with the real pipeline.
func New(s *store.Store) *Runner { return &Runner{Store: s} }

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) pipeline() Pipeline {
	if r.Pipeline != nil {
		return r.Pipeline
	}
	return strategy.Run
}

// tokenCounter returns the counter for t's model: its encoding and its
// provider's image pricing, the same figures the gauge shows for it, so a
// report's "after" matches the fork's gauge. Runner.Encoding, when set,
// forces one encoding for every transcript.
func (r *Runner) tokenCounter(t *transcript.Transcript) (*tokens.Counter, error) {
	m := gauge.Resolve(t, gauge.Options{}).Info
	if r.Encoding != "" {
		m.Encoding = r.Encoding
	}
	return r.counterSet().For(m)
}

// counterSet is the runner's counters, one per encoding and pricing.
func (r *Runner) counterSet() *tokens.CounterSet {
	r.countersOnce.Do(func() { r.counters = tokens.NewCounterSet() })
	return r.counters
}

// contentHash is data's store hash, computed once when first called.
func contentHash(data []byte) func() string {
	return sync.OnceValue(func() string { return store.ContentHash(data) })
}

// source is a transcript file as read at one moment.
type source struct {
	path string // absolute
	// id is the identity of the file data was read from (platform.FileID),
	// 0 when unknown.
	id   uint64
	data []byte
	// hash is data's store hash, computed when first asked: a dry run
	// never records the source, and hashing 100 MB cost it 0.1 s.
	hash  func() string
	codec format.Codec
	t     *transcript.Transcript
	// parts are counts of t's parts known before the job (a nil row
	// unknown), counted by the counter whose ID is partsBy.
	parts   [][]int
	partsBy string
	// counts are t's counts once the job has made them (sourceCounts).
	counts *strategy.Counts
}

// Parsed is a transcript a caller already holds parsed (the daemon's
// index keeps the conversation in use that way), so that a job neither
// parses nor counts it again.
type Parsed struct {
	// Transcript is the parse of the file's first Transcript.Size bytes,
	// in a JSON Lines format (Claude Code, Codex); its records need not
	// hold their bytes, which the job reads again. The job never changes
	// it.
	Transcript *transcript.Transcript
	Codec      format.Codec
	// Parts are the counts of its messages' parts (Parts[i][j] for
	// Messages[i].Parts[j]; a nil row is unknown), counted by the counter
	// whose ID is CounterID.
	Parts     [][]int
	CounterID string
}

// readSource reads and parses path.
func readSource(path string) (*source, error) {
	data, id, err := readSourceBytes(path)
	if err != nil {
		return nil, err
	}
	src, err := parseSource(path, data)
	if src != nil {
		src.id = id
	}
	return src, err
}

// rereadSource reads path again and keeps prev's parse when the bytes are
// the same: parsing a large transcript twice doubled a compaction's time.
func rereadSource(path string, prev *source) (*source, error) {
	if unchanged(path, prev) {
		return prev, nil
	}
	data, id, err := readSourceBytes(path)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(data, prev.data) && id == prev.id {
		return prev, nil
	}
	src, err := reread(prev, data)
	if src != nil {
		src.id = id
	}
	return src, err
}

// unchanged reports whether path is still prev's file (the same identity
// before and after) holding exactly prev's bytes. It reads the file in
// pieces beside them, not whole: a job holding a 100 MB transcript would
// otherwise hold it twice, the peak of its memory.
func unchanged(path string, prev *source) bool {
	id, err := fileID(path)
	if err != nil || id != prev.id {
		return false
	}
	r, err := sourcefile.Open(path)
	if err != nil {
		return false
	}
	defer r.Close()
	buf := make([]byte, 1<<20)
	rest := prev.data
	for {
		n, err := io.ReadFull(r, buf)
		if n > len(rest) || !bytes.Equal(buf[:n], rest[:n]) {
			return false
		}
		rest = rest[n:]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return false
		}
	}
	after, err := fileID(path)
	return len(rest) == 0 && err == nil && after == id
}

// readSourceBytes reads a transcript, refusing from its head a file that is
// none and from a streamed scan one too large to compact (see
// sourcefile.ReadTranscript), and returns the identity of the file it read
// (0 when unknown). Another file taking the path while it read is
// errSourceChanged: the bytes may be of either.
func readSourceBytes(path string) ([]byte, uint64, error) {
	before, _ := fileID(path)
	data, _, err := sourcefile.ReadTranscript(path)
	var unrecognized *format.ErrUnrecognized
	var notRegular *sourcefile.NotRegularError
	switch {
	case err == nil:
		if after, _ := fileID(path); after != before {
			return nil, 0, errSourceChanged
		}
		return data, before, nil
	case errors.Is(err, os.ErrNotExist):
		return nil, 0, fmt.Errorf("%s does not exist", path)
	case errors.As(err, &unrecognized), errors.As(err, &notRegular), errors.Is(err, sourcefile.ErrTooLarge), errors.Is(err, sourcefile.ErrTruncated):
		return nil, 0, err // these name the path and say what to do
	}
	return nil, 0, fileErr("read", path, err)
}

func parseSource(path string, data []byte) (*source, error) {
	codec, err := format.Detect(sourcefile.PlainName(path), data)
	if err != nil {
		return nil, err
	}
	t, err := codec.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s as %s: %w", path, codec.Format(), err)
	}
	return &source{path: path, data: data, hash: contentHash(data), codec: codec, t: t}, nil
}

// readSourceFrom reads path, starting from p when p is a parse of the
// file's beginning: the records get their bytes back, and what was
// appended since is parsed on top. Anything else (no p, a file that was
// rewritten) parses the file whole.
func readSourceFrom(path string, p *Parsed) (*source, error) {
	data, id, err := readSourceBytes(path)
	if err != nil {
		return nil, err
	}
	src := withBytes(path, data, p)
	if src == nil {
		if src, err = parseSource(path, data); err != nil {
			return nil, err
		}
	}
	src.id = id
	return src, nil
}

// withBytes is p's transcript with its records' bytes taken from data,
// extended by the complete lines data holds after it; nil when data does
// not start with what p parsed.
func withBytes(path string, data []byte, p *Parsed) *source {
	if p == nil || p.Transcript == nil || p.Codec == nil {
		return nil
	}
	app, ok := p.Codec.(format.Appender)
	if !ok {
		return nil
	}
	pt := p.Transcript
	if pt.Size > int64(len(data)) {
		return nil // shorter than it was: rewritten
	}
	t := *pt
	t.Records = make([]transcript.Record, len(pt.Records))
	for i, r := range pt.Records {
		if r.Start < 0 || r.End < r.Start || r.End > pt.Size || (r.End < int64(len(data)) && data[r.End] != '\n' && data[r.End] != '\r') {
			return nil
		}
		r.Raw = data[r.Start:r.End:r.End]
		t.Records[i] = r
	}
	parts := p.Parts
	tp := &t
	if int64(len(data)) > t.Size {
		next, err := app.Append(tp, data[t.Size:])
		if err != nil {
			return nil
		}
		kept := next.Kept
		if kept == 0 && len(next.Messages) >= len(tp.Messages) {
			kept = len(tp.Messages) // nothing consumed
		}
		parts = append(parts[:min(kept, len(parts)):min(kept, len(parts))], make([][]int, max(len(next.Messages)-kept, 0))...)
		tp = next
	}
	return &source{path: path, data: data, hash: contentHash(data), codec: p.Codec, t: tp, parts: parts, partsBy: p.CounterID}
}

// reread is src after its file was read again as data: what was appended
// parsed on top of src, anything else parsed afresh.
func reread(src *source, data []byte) (*source, error) {
	if app, ok := src.codec.(format.Appender); ok && len(data) > len(src.data) && bytes.Equal(data[:len(src.data)], src.data) {
		if next, err := app.Append(src.t, data[src.t.Size:]); err == nil {
			parts := src.parts
			if parts != nil {
				kept := min(next.Kept, len(parts))
				parts = append(parts[:kept:kept], make([][]int, len(next.Messages)-kept)...)
			}
			return &source{path: src.path, data: data, hash: contentHash(data), codec: src.codec, t: next, parts: parts, partsBy: src.partsBy}, nil
		}
	}
	return parseSource(src.path, data)
}

// conversationKey identifies a conversation: its session id where the
// format has one (so renames and moves keep the history), else its path.
func conversationKey(t *transcript.Transcript, absPath string) string {
	if t != nil && t.Meta.SessionID != "" {
		return "session:" + t.Meta.SessionID
	}
	return "path:" + absPath
}

// recordCuts are the offsets where a transcript's records start, so
// versions sharing records share storage. Bytes after the last record
// (separators, a closing bracket) form their own segment.
func recordCuts(t *transcript.Transcript) []int64 {
	if t == nil {
		return nil
	}
	cuts := make([]int64, 0, len(t.Records)+1)
	for _, rec := range t.Records {
		cuts = append(cuts, rec.Start)
	}
	if n := len(t.Records); n > 0 {
		// End of the last record's separator (JSONL newline) ends the
		// record's segment; what follows is framing.
		cuts = append(cuts, t.Records[n-1].End+1)
	}
	return cuts
}

// conversation finds or creates the conversation src belongs to.
func (r *Runner) conversation(ctx context.Context, src *source) (store.Conversation, error) {
	key := conversationKey(src.t, src.path)
	c, ok, err := r.Store.FindConversation(ctx, src.path, key)
	if err != nil || ok {
		return c, err
	}
	return r.Store.EnsureConversation(ctx, store.Conversation{
		Key: key, Format: string(src.codec.Format()), SourcePath: src.path,
		SessionID: src.t.Meta.SessionID, Created: r.now(),
	})
}

// recordSource commits src's bytes as a version (reusing an identical one)
// whose parent is the last version written to this path.
func (r *Runner) recordSource(ctx context.Context, conv store.Conversation, src *source) (store.Version, error) {
	var parent int64
	versions, err := r.Store.Versions(ctx, conv.ID)
	if err != nil {
		return store.Version{}, err
	}
	for i := len(versions) - 1; i >= 0; i-- {
		if versions[i].ForkPath == src.path {
			parent = versions[i].ID
			break
		}
	}
	v, _, err := r.Store.RecordVersion(ctx, store.NewVersion{
		Conversation: conv, Kind: store.KindSource, ParentID: parent,
		SourcePath: src.path, SourceHash: src.hash(), Format: string(src.codec.Format()),
		Content: src.data, ContentHash: src.hash(), Cuts: recordCuts(src.t), Created: r.now(),
	})
	return v, err
}

func absPath(path string) (string, error) {
	if path == "" {
		return "", errors.New("no transcript path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	return abs, nil
}

// forkPath names a new transcript beside src as its agent names its
// sessions (agents.Agent.ForkName), so the agent lists it; else as
// <name>.compactd-<label><ext>.
func forkPath(src string, f transcript.Format, sessionID, label string, now time.Time) string {
	src = sourcefile.PlainName(src) // forks are written uncompressed
	dir := filepath.Dir(src)
	if a := agents.ByFormat(f); a != nil && a.ForkName != nil {
		if name := a.ForkName(src, sessionID, now); name != "" {
			return filepath.Join(dir, name)
		}
	}
	base := filepath.Base(src)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	// A fork of a fork would otherwise grow .compactd-v2.compactd-v4…
	if i := strings.Index(stem, ".compactd-"); i > 0 {
		stem = stem[:i]
	}
	return filepath.Join(dir, stem+".compactd-"+label+ext)
}

func report(p Progress, stage string, pct int) {
	if p != nil {
		p(stage, pct)
	}
}
