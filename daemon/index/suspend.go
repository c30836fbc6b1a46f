package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/vmihailenco/msgpack/v5"
)

// Suspend and Resume carry one trimmed entry from a process that read a
// transcript to a later one, so that the later one reads only what was
// appended since (a status line, which Claude Code runs again and again).
// They serve commands that run once; the daemon keeps its entries in
// memory and never calls them.
//
// What is carried is what the next append reads: the codec's state as far
// as a continuing conversation needs it (format.Suspender), the records
// and messages from where that state starts, every message's count, role
// and origin, the turns, the figures carried from append to append
// (transcript.Stats, gauge.Tally) and the entry's marks. The rest is
// restored as zero placeholders, and an append that would read one falls
// back to reading the file whole, as a first read does. The line offsets
// are not carried: a resumed entry's snapshot knows no lines.

// suspendedVersion names the layout below; a state of another version is
// not resumed.
const suspendedVersion = 2

type suspendedEntry struct {
	Version     int
	Format      transcript.Format
	Codec       []byte
	Size        int64
	NumRecords  int
	FirstRecord int
	Records     []transcript.Record
	// Messages before FirstMessage are placeholders: their role and
	// origin (Heads indexes HeadNames) are what the gauge reads of them.
	NumMessages  int
	FirstMessage int
	HeadNames    []string
	Heads        []byte
	Messages     []transcript.Message
	// Turns and Counts are varints (a turn's start and length; a count
	// shifted left once, its low bit Approx): gob's per-element work on
	// a 90 MB session's 20k counts was a good part of a run.
	Turns       []byte
	Problems    []transcript.Problem
	Skipped     int
	Counts      []byte
	Same        int
	CountedWith string
	Stats       transcript.Stats
	Tally       []byte
	Ino         uint64
	Seq         uint64
	RawFrom     int
	Trimmed     int
	Long        []suspendedLong
	Skip        *suspendedLong
	Overhead    int
}

type suspendedLong struct {
	From, To  int64
	Nul, Done bool
}

// ErrNotSuspendable says an entry cannot be carried: its codec cannot
// suspend, or it holds no parsed transcript.
var ErrNotSuspendable = errors.New("the transcript's state cannot be carried to another process")

// Suspend returns path's entry as bytes for Resume in a later process.
func (x *Index) Suspend(path string) ([]byte, error) {
	tr := x.entry(filepath.Clean(path), false)
	if tr == nil {
		return nil, fmt.Errorf("%s is not tracked: %w", path, ErrNotSuspendable)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	sus, ok := tr.codec.(format.Suspender)
	if !ok || tr.t == nil {
		return nil, ErrNotSuspendable
	}
	if tr.hot.Load() {
		// Read whole and kept whole (a rewind in the file's history made
		// the read keep every part): what goes on appending is what a
		// trimmed entry keeps.
		tr.trim(sus)
	}
	t := tr.t
	codec, firstRecord, err := sus.Suspend(t)
	if err != nil {
		return nil, err
	}
	firstMessage := min(tr.trimmed, len(t.Messages))
	// The searches that can go back past the changed messages (the last
	// usage, the last model) must find real messages.
	if tr.stats.LastUsage >= 0 {
		firstMessage = min(firstMessage, tr.stats.LastUsage)
	} else {
		firstMessage = 0
	}
	if tr.stats.ModelAt >= 0 {
		firstMessage = min(firstMessage, tr.stats.ModelAt)
	}
	// A kept message's records are kept with it.
	for i := firstMessage; i < len(t.Messages); i++ {
		for _, r := range t.Messages[i].Records {
			if r >= 0 {
				firstRecord = min(firstRecord, r)
			}
		}
	}
	tally, err := tr.tally.MarshalBinary()
	if err != nil {
		return nil, err
	}
	s := suspendedEntry{
		Version: suspendedVersion, Format: t.Format, Codec: codec, Size: t.Size,
		NumRecords: len(t.Records), FirstRecord: firstRecord, Records: t.Records[firstRecord:],
		NumMessages: len(t.Messages), FirstMessage: firstMessage, Messages: t.Messages[firstMessage:],
		Turns: appendTurns(nil, t.Turns), Problems: t.Problems, Skipped: t.Skipped,
		Counts: appendCounts(nil, tr.counts), Same: tr.same, CountedWith: tr.countedWith, Stats: tr.stats, Tally: tally,
		Ino: tr.ino, Seq: tr.seq, RawFrom: tr.rawFrom, Trimmed: tr.trimmed, Overhead: tr.overhead,
	}
	// A session's messages have a handful of kinds: looking each up in
	// a short list (the strings mostly share their bytes, which compare
	// at once) costs less than hashing it, over a 90 MB session's 20k.
	type head struct {
		role   transcript.Role
		origin transcript.Origin
	}
	var kinds []head
	s.Heads = make([]byte, firstMessage)
	for i := range firstMessage {
		m := &t.Messages[i]
		k := slices.Index(kinds, head{m.Role, m.Origin})
		if k < 0 {
			if len(kinds) == 255 {
				return nil, fmt.Errorf("%s: more kinds of message than a state holds: %w", path, ErrNotSuspendable)
			}
			k = len(kinds)
			kinds = append(kinds, head{m.Role, m.Origin})
			s.HeadNames = append(s.HeadNames, string(m.Role)+"\x00"+string(m.Origin))
		}
		s.Heads[i] = byte(k)
	}
	for _, l := range tr.long {
		s.Long = append(s.Long, suspendedLong{l.from, l.to, l.nul, l.done})
	}
	if l := tr.skip; l != nil {
		s.Skip = &suspendedLong{l.from, l.to, l.nul, l.done}
	}
	data, err := marshalState(&s)
	if err != nil {
		return nil, fmt.Errorf("suspend %s: %w", path, err)
	}
	return data, nil
}

// Resume installs, as path's entry, what Suspend returned in an earlier
// process. The caller has made sure the file is the one suspended, grown
// or not (same identity, its bytes up to the suspended size unchanged);
// the next Refresh reads only what was appended. It publishes no
// snapshot: Refresh does.
func (x *Index) Resume(path string, data []byte) error {
	var s suspendedEntry
	if err := msgpack.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("resume %s: %w", path, err)
	}
	if s.Version != suspendedVersion {
		return fmt.Errorf("resume %s: a state of version %d, not %d", path, s.Version, suspendedVersion)
	}
	codec, _ := format.Lookup(s.Format)
	sus, ok := codec.(format.Suspender)
	if !ok {
		return fmt.Errorf("resume %s: %w", path, ErrNotSuspendable)
	}
	counts, cerr := readCounts(s.Counts, s.NumMessages)
	turns, terr := readTurns(s.Turns)
	if cerr != nil || terr != nil || s.FirstRecord < 0 || s.FirstRecord+len(s.Records) != s.NumRecords || s.FirstMessage < 0 ||
		s.FirstMessage+len(s.Messages) != s.NumMessages || len(s.Heads) != s.FirstMessage || len(counts) != s.NumMessages {
		return fmt.Errorf("resume %s: the state is inconsistent", path)
	}
	t := &transcript.Transcript{Format: s.Format, Size: s.Size, Turns: turns, Problems: s.Problems, Skipped: s.Skipped}
	t.Records = make([]transcript.Record, s.NumRecords, s.NumRecords+s.NumRecords/8)
	copy(t.Records[s.FirstRecord:], s.Records)
	t.Messages = make([]transcript.Message, s.NumMessages, s.NumMessages+s.NumMessages/8)
	// Each kind's strings are made once and shared by its messages.
	type head struct {
		role   transcript.Role
		origin transcript.Origin
	}
	kinds := make([]head, len(s.HeadNames))
	for k, name := range s.HeadNames {
		role, origin, _ := strings.Cut(name, "\x00")
		kinds[k] = head{transcript.Role(role), transcript.Origin(origin)}
	}
	for i, k := range s.Heads {
		if int(k) >= len(kinds) {
			return fmt.Errorf("resume %s: the state is inconsistent", path)
		}
		t.Messages[i].Role, t.Messages[i].Origin = kinds[k].role, kinds[k].origin
	}
	copy(t.Messages[s.FirstMessage:], s.Messages)
	if err := sus.Resume(t, s.Codec); err != nil {
		return fmt.Errorf("resume %s: %w", path, err)
	}
	tr := x.entry(filepath.Clean(path), true)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if err := tr.tally.UnmarshalBinary(s.Tally); err != nil {
		return fmt.Errorf("resume %s: %w", path, err)
	}
	tr.codec, tr.t, tr.counts, tr.parts, tr.same, tr.countedWith = codec, t, counts, nil, s.Same, s.CountedWith
	tr.stats, tr.ino, tr.seq, tr.rawFrom, tr.trimmed, tr.overhead = s.Stats, s.Ino, s.Seq, s.RawFrom, s.Trimmed, s.Overhead
	tr.resumedFrom = s.FirstMessage
	tr.long, tr.skip = nil, nil
	for _, l := range s.Long {
		tr.long = append(tr.long, longLine{l.From, l.To, l.Nul, l.Done})
	}
	if l := s.Skip; l != nil {
		tr.skip = &longLine{l.From, l.To, l.Nul, l.Done}
	}
	// No line offsets: nothing is scanned (absorb scans only from scanned).
	tr.lineStarts, tr.scanned = nil, -1
	tr.parsed.Store(true)
	tr.hot.Store(false)
	tr.seen.Store(true)
	return nil
}

// Consumed is how many of path's bytes its entry has read (complete
// lines, and a long line skipped so far); ok is false when it holds no
// parsed transcript.
func (x *Index) Consumed(path string) (int64, bool) {
	tr := x.entry(filepath.Clean(path), false)
	if tr == nil {
		return 0, false
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.t == nil {
		return 0, false
	}
	return tr.position(), true
}

func appendCounts(b []byte, counts []tokens.Count) []byte {
	for _, c := range counts {
		v := uint64(c.N) << 1
		if c.Approx {
			v |= 1
		}
		b = binary.AppendUvarint(b, v)
	}
	return b
}

func readCounts(b []byte, n int) ([]tokens.Count, error) {
	counts := make([]tokens.Count, 0, n+n/8)
	for len(b) > 0 {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errors.New("a damaged count")
		}
		counts = append(counts, tokens.Count{N: int(v >> 1), Approx: v&1 == 1})
		b = b[k:]
	}
	return counts, nil
}

func appendTurns(b []byte, turns []transcript.Turn) []byte {
	for _, t := range turns {
		b = binary.AppendUvarint(b, uint64(t.Start))
		b = binary.AppendUvarint(b, uint64(t.End-t.Start))
	}
	return b
}

func readTurns(b []byte) ([]transcript.Turn, error) {
	var turns []transcript.Turn
	for len(b) > 0 {
		start, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errors.New("a damaged turn")
		}
		n, j := binary.Uvarint(b[k:])
		if j <= 0 {
			return nil, errors.New("a damaged turn")
		}
		turns = append(turns, transcript.Turn{Start: int(start), End: int(start + n)})
		b = b[k+j:]
	}
	return turns, nil
}

// marshalState encodes a suspended entry as MessagePack, each struct an
// array of its fields. A state is read by the same build that wrote it
// (the caller's key names the build), so no field names travel. A status
// line decodes one on every run: gob, which describes and compiles its
// types in every stream, cost more than the rest of the run.
func marshalState(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseArrayEncodedStructs(true)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
