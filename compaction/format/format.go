// Package format defines the codec interface every on-disk transcript format
// implements, and the registry that detects which codec reads a file.
//
// Codecs live in sub-packages (format/claude, format/codex, …) and register
// themselves from init; importing format/all brings in every codec.
package format

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/transcript"
)

// A Codec reads and writes one on-disk format.
type Codec interface {
	Format() transcript.Format
	// Detect scores how sure the codec is that head (the first bytes of a
	// file, up to DetectBytes) is in its format: 0 = no, 100 = certain.
	// It decides from content; name is a tiebreaker hint only.
	Detect(name string, head []byte) int
	// Parse reads a whole source. Malformed records are kept, counted and
	// reported in Transcript.Problems, never fatal; the error is for sources
	// that are not this format at all.
	Parse(src []byte) (*transcript.Transcript, error)
	// Write renders t. For a transcript straight from Parse the output is
	// byte-identical to the source.
	Write(t *transcript.Transcript) ([]byte, error)
	// Fork renders a compacted view as a new transcript in the same format,
	// one the agent can resume (new session id where the format has one).
	Fork(v *transcript.View, opts ForkOptions) ([]byte, error)
}

// An Appender is a codec for append-only formats that can parse
// incrementally.
type Appender interface {
	// Append parses the complete records in tail, which are the source's
	// bytes from prev.Size on, and returns the updated transcript. Only
	// complete records are consumed: a partial last line stays unconsumed
	// (the result's Size stops before it) until more data arrives. prev is
	// not modified.
	Append(prev *transcript.Transcript, tail []byte) (*transcript.Transcript, error)
}

// A Renewer writes a whole transcript as a new session of its format:
// every record kept as it is (branches, metadata, what an agent's own
// compaction replaced), only the ids renewed that the agent needs unique
// to tell two sessions apart (Claude Code's sessionId, Codex's session_meta
// id, Gemini CLI's sessionId). Codecs of formats without such ids need
// none: their transcript is copied as it is.
type Renewer interface {
	Renew(t *transcript.Transcript, opts ForkOptions) ([]byte, error)
}

// An AgentCompaction is a compaction the agent itself recorded in its
// transcript (Claude Code's compact_boundary and microcompact_boundary,
// Codex's compacted, Roo's condense). The history before it is still in
// the file.
type AgentCompaction struct {
	// Record is where the compaction begins (Transcript.Records index):
	// its marker record, or the first record the agent wrote for it (Codex
	// logs its summarisation request like a turn before the marker).
	Record int
	// Kind is the format's name for it: "compact_boundary",
	// "microcompact_boundary", "compacted", "condense".
	Kind string
	// Trigger is "auto" or "manual" when the agent recorded it.
	Trigger string
	// TokensBefore is the context size the agent recorded before it; 0
	// when none. TokensAfter is the one it recorded right after (Claude
	// Code's postTokens); 0 when none.
	TokensBefore int
	TokensAfter  int
	Timestamp    time.Time
	// Summary is the agent's summary text; "" when it wrote none (a
	// microcompact only clears tool results).
	Summary string
	// After are the messages the compaction left the model in place of
	// the history: the summary (Codex: the whole replacement history).
	After []transcript.Message
}

// A CompactionReader lists the agent's own compactions and gives back the
// conversation as the model had it just before one of them.
type CompactionReader interface {
	// AgentCompactions lists the compactions t records, in file order.
	AgentCompactions(t *transcript.Transcript) []AgentCompaction
	// BeforeCompaction renders the conversation as it stood just before
	// compaction i of AgentCompactions(t), as a new session the agent
	// resumes (a new session id where the format has one; records kept
	// as they are).
	BeforeCompaction(t *transcript.Transcript, i int, opts ForkOptions) ([]byte, error)
}

// A Resender is a codec whose agent, resuming a fork, sends part of its
// source's conversation again beside the fork: Codex, resuming a fork
// that clears its context baseline (a compacted record with no world
// state after it), sends its initial context — developer instructions,
// AGENTS.md, environment — at the next turn, whether the fork kept the
// old copies or not. A fork's gauge counts what is resent: the window the
// agent fills on resume holds it.
type Resender interface {
	// Resent returns the messages of v.Source whose content the agent
	// sends again when it resumes the fork of v; nil when it sends none.
	Resent(v *transcript.View) []transcript.Message
}

// A Trimmer is an Appender whose sources can be read in pieces and whose
// transcripts can let go of what later appends no longer need, so that
// following a large file costs memory for its tail, not its history.
//
// Appending the source's lines piece by piece from a nil transcript gives
// what Parse gives (except that Append never consumes a last line without
// a newline).
type Trimmer interface {
	Codec
	Appender
	// Trim drops, in place, the parts of t's messages before message keep
	// and whatever t's state holds of them, except what the codec needs to
	// go on appending (a message that later lines may still extend). It
	// returns the index of the first message whose parts it kept: every
	// message before it now has nil Parts, its other fields intact. Only
	// the holder of the sole reference to t (and to the transcripts it was
	// appended from, which share its arrays) may call it; parts already
	// handed out stay intact, since Trim changes slices, not the parts.
	//
	// Append on a trimmed transcript either fails with an error wrapping
	// ErrTrimmed (the new lines need dropped content: a branch switch to
	// old records), or returns messages whose first Kept are unchanged and
	// whose others all carry their parts.
	Trim(t *transcript.Transcript, keep int) int
	// Floor is the first of t's messages a later Append may still change
	// (len(t.Messages) when none): what Trim(t, len(t.Messages)) keeps
	// the parts of. Figures carried from one append to the next resume
	// from there, never from a message whose parts may be gone.
	Floor(t *transcript.Transcript) int
	// Detach returns t for another holder: equal to t, sharing nothing
	// that Append or Trim writes with t or the transcripts appended from
	// it (successive transcripts share their lists' arrays and the
	// codec's maps). Appends to the copy and to t may then run on two
	// goroutines. The caller must hold t alone while Detach copies it.
	Detach(t *transcript.Transcript) *transcript.Transcript
}

// A Suspender is a Trimmer whose trimmed transcript can be carried to
// another process (a status line run again and again keeps it between
// runs), so that the next append there costs what it adds.
//
// Suspend encodes what Append needs to go on from t, which Trim left
// trimmed, beyond the lists the caller keeps itself (Records, Messages,
// Turns, Problems): its Frame, and its State as far as lines that
// continue the conversation need it. It returns the first record the
// state describes: the caller keeps the records from there on and may
// drop the ones before (Resume gets them back as zero placeholders).
//
// Resume restores that state into t, whose lists the caller restored.
// An Append on the resumed transcript either gives what it gives on the
// transcript Suspend was called on, or fails with ErrTrimmed (the new
// lines reach into what was dropped: the caller reads the file again).
type Suspender interface {
	Trimmer
	Suspend(t *transcript.Transcript) (state []byte, firstRecord int, err error)
	Resume(t *transcript.Transcript, state []byte) error
}

// Detached is t with its record, message, problem and turn lists copied
// and state as its State: what a Trimmer's Detach returns around a copy
// of its state.
func Detached(t *transcript.Transcript, state any) *transcript.Transcript {
	c := *t
	c.Records = slices.Clone(t.Records)
	c.Messages = slices.Clone(t.Messages)
	c.Problems = slices.Clone(t.Problems)
	c.Turns = slices.Clone(t.Turns)
	c.State = state
	return &c
}

// ErrTrimmed is returned (wrapped) by Append on a trimmed transcript when
// the new lines need content Trim dropped: parse the source again.
var ErrTrimmed = errors.New("the transcript was trimmed and the new lines need what was dropped")

// TrimParts sets the parts of msgs[from:to] to nil, in place: what every
// Trimmer does to the messages themselves (from is where its previous
// Trim stopped, so trimming a growing transcript costs what it grew).
func TrimParts(msgs []transcript.Message, from, to int) {
	for i := max(from, 0); i < min(to, len(msgs)); i++ {
		msgs[i].Parts = nil
	}
}

// ForkOptions parameterize Fork.
type ForkOptions struct {
	// SessionID is the new session's id; codecs that need one and get ""
	// generate it.
	SessionID string
	// Timestamp is written on synthesized records (RFC 3339); "" means now.
	Timestamp string
	// TokensBefore and TokensAfter are recorded in markers that hold them
	// (Claude compactMetadata.preTokens).
	TokensBefore, TokensAfter int
	// InPlace says the output replaces its source while the agent may
	// still be writing it: records keep their ids (Claude uuids) so lines
	// the agent appends next, naming them as parents, stay attached.
	InPlace bool
}

// WithDefaults returns opts with what a fork needs filled in: a new random
// session id when SessionID is "", and now (UTC, milliseconds, as the
// agents write it) when Timestamp is "".
func (o ForkOptions) WithDefaults() ForkOptions {
	if o.SessionID == "" {
		o.SessionID = newid.UUID()
	}
	if o.Timestamp == "" {
		o.Timestamp = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	return o
}

// BOM is the UTF-8 byte order mark some editors and tools write at the
// start of a file. Codecs read a file that starts with one as they read it
// without, and write it back with it.
var BOM = []byte("\xef\xbb\xbf")

// DetectBytes is how much of a file Detect sees.
const DetectBytes = 64 << 10

var (
	mu     sync.RWMutex
	codecs = map[transcript.Format]Codec{}
)

// Register makes a codec available to Detect and Lookup. Codecs call it
// from init.
func Register(c Codec) {
	mu.Lock()
	defer mu.Unlock()
	codecs[c.Format()] = c
}

// Lookup returns the codec for f.
func Lookup(f transcript.Format) (Codec, bool) {
	mu.RLock()
	defer mu.RUnlock()
	c, ok := codecs[f]
	return c, ok
}

// Formats lists the registered formats, sorted.
func Formats() []transcript.Format {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]transcript.Format, 0, len(codecs))
	for f := range codecs {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ErrUnrecognized is returned (wrapped) when no codec recognizes a file.
type ErrUnrecognized struct {
	Name  string
	Tried []transcript.Format
}

func (e *ErrUnrecognized) Error() string {
	names := make([]string, len(e.Tried))
	for i, f := range e.Tried {
		names[i] = string(f)
	}
	return fmt.Sprintf("%s is not a recognized transcript (tried %s)", e.Name, strings.Join(names, ", "))
}

// Detect picks the codec that reads head best. name is the file's path or
// base name, used only to break ties.
func Detect(name string, head []byte) (Codec, error) {
	if len(head) > DetectBytes {
		head = head[:DetectBytes]
	}
	// A byte order mark (an editor on Windows saved the file) says
	// nothing of the format: the codecs judge what follows it.
	head = bytes.TrimPrefix(head, BOM)
	var best Codec
	bestScore := 0
	for _, f := range Formats() {
		c, _ := Lookup(f)
		if s := c.Detect(name, head); s > bestScore {
			best, bestScore = c, s
		}
	}
	if best == nil {
		return nil, &ErrUnrecognized{Name: name, Tried: Formats()}
	}
	return best, nil
}

// A SessionWriter starts a new session of its format from a neutral one
// (a handoff from another agent): records as the agent writes them, under
// s.ID, which the agent resumes. s keeps handoff.Session's invariants.
type SessionWriter interface {
	WriteSession(s *handoff.Session) ([]byte, error)
}

// A MediaReader gives back the images a transcript it parsed holds at
// ref (a block holding an image, or a tool result holding several), in
// order, so that a handoff keeps them images.
type MediaReader interface {
	Media(t *transcript.Transcript, ref transcript.Ref) ([]Media, error)
}

// Media is one image's type and bytes.
type Media struct {
	MIME string
	Data []byte
}
