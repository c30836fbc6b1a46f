// Package sessionstate carries what a command learnt of one transcript to
// its next run, so that a command run again and again on a growing
// session (Claude Code runs its status line after every change) reads only
// what was appended since its last run.
//
// The state is the transcript's index entry, suspended (index.Suspend):
// the codec's state for a continuing conversation, every message's count,
// the figures carried from append to append. It lives in one file per
// transcript in a folder beside compactd's store, never beside the
// transcript, and is replaced atomically: two runs at once each read a
// whole state or none, and the last to finish leaves its own.
//
// A state is used only for the file it was taken from, grown or not: the
// same file (inode, or volume and index), at least as long, its first
// bytes and the bytes just before where the state stops unchanged, and
// the same settings (the caller's key). Anything else (a rewrite, a
// truncation, another file moved to the path, other settings) reads the
// file whole, as a first run does. The figures are the same either way:
// an append the state cannot follow is read whole too (index.Resume).
package sessionstate

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// checkBytes is how many bytes of the file's head, and before where the
// state stops, must be unchanged for the state to be used.
const checkBytes = 4096

// magic starts a state file and names its layout: the header's fields
// in a fixed binary order (encodeHeader), then the suspended entry, then
// a CRC-32C of all that (a state damaged on disk is not resumed). A
// status line reads it on every run; a self-describing encoding (gob)
// cost more to set up than the whole header is worth.
const magic = "compactd-state 2\n"

// Dir is the folder the states live in, beside the store at storePath.
func Dir(storePath string) string {
	return filepath.Join(filepath.Dir(storePath), "sessions")
}

// header is what a state says of the file it was taken from.
type header struct {
	Path      string
	Key       string
	FileID    uint64
	Size      int64
	Head      [32]byte
	Before    [32]byte
	Suspended []byte
}

// A Session follows one transcript through an index that may resume
// from the state a previous run left.
type Session struct {
	dir, path, key string
	x              *index.Index
	// Resumed says the index started from a saved state.
	Resumed bool
}

// Open returns the session of the transcript at path, with its index
// built with opts and resumed from the state in dir when that state is
// the file's, under settings key. A state that cannot be used is ignored;
// with dir "" none is read or kept.
func Open(dir, path, key string, opts index.Options) (*Session, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	x, err := index.New(opts)
	if err != nil {
		return nil, err
	}
	s := &Session{dir: dir, path: abs, key: key, x: x}
	if dir == "" {
		return s, nil // nowhere to keep a state: every run reads the file whole
	}
	// A state is decoded in one go and kept: collecting while it is
	// (a 90 MB session's is a few MB of placeholders) only costs time.
	gc := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(gc)
	if h, ok := s.load(); ok && s.x.Resume(abs, h.Suspended) == nil {
		s.Resumed = true
	}
	return s, nil
}

// Snapshot brings the index up to date with the file and returns its
// snapshot.
func (s *Session) Snapshot() (*index.Snapshot, error) {
	if err := s.x.Refresh(s.path); err != nil {
		return nil, err
	}
	snap := s.x.Snapshot(s.path)
	if snap == nil {
		return nil, fmt.Errorf("%s: %w", s.path, index.ErrNotTranscript)
	}
	return snap, nil
}

// Pending is how many of the file's bytes the session has not read yet:
// what a resumed run reads (the whole file for one that was not).
func (s *Session) Pending() int64 {
	fi, err := os.Stat(s.path)
	if err != nil {
		return 0
	}
	if n, ok := s.x.Consumed(s.path); ok {
		return max(fi.Size()-n, 0)
	}
	return fi.Size()
}

// BytesRead is how many of the transcript's bytes this run read.
func (s *Session) BytesRead() int64 { return s.x.Stats().BytesRead }

// Save writes the session's state for the next run. A transcript whose
// state cannot be carried (its codec cannot suspend) leaves no state, and
// removes an older one.
func (s *Session) Save() error {
	if s.dir == "" {
		return nil
	}
	file := s.file()
	data, err := s.x.Suspend(s.path)
	if errors.Is(err, index.ErrNotSuspendable) {
		os.Remove(file)
		return nil
	}
	if err != nil {
		return err
	}
	h, err := s.identify(data)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.dir, filepath.Base(file)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(encodeHeader(h))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	// Once: another run replacing it at the same moment leaves a state
	// as good as this one.
	if err := platform.ReplaceOnce(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		if platform.InUse(err) {
			return nil
		}
		return err
	}
	return nil
}

// file is the state's file: named by the transcript's path.
func (s *Session) file() string {
	sum := sha256.Sum256([]byte(s.path))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:12])+".state")
}

// identify describes the file as the suspended state covers it: up to
// the size it consumed.
func (s *Session) identify(suspended []byte) (header, error) {
	size, ok := s.x.Consumed(s.path)
	if !ok {
		return header{}, fmt.Errorf("%s is not tracked", s.path)
	}
	f, fi, err := s.openFile()
	if err != nil {
		return header{}, err
	}
	defer f.Close()
	h := header{Path: s.path, Key: s.key, FileID: platform.FileID(s.path, fi), Size: size, Suspended: suspended}
	if h.Head, h.Before, err = checksums(f, size); err != nil {
		return header{}, err
	}
	return h, nil
}

// load reads the state and checks it is the file's.
func (s *Session) load() (header, bool) {
	data, err := os.ReadFile(s.file())
	if err != nil {
		return header{}, false
	}
	h, ok := decodeHeader(data)
	if !ok || h.Path != s.path || h.Key != s.key {
		return header{}, false
	}
	f, fi, err := s.openFile()
	if err != nil {
		return header{}, false
	}
	defer f.Close()
	if fi.Size() < h.Size || platform.FileID(s.path, fi) != h.FileID {
		return header{}, false // truncated, or another file now
	}
	head, before, err := checksums(f, h.Size)
	if err != nil || head != h.Head || before != h.Before {
		return header{}, false // rewritten
	}
	return h, true
}

func (s *Session) openFile() (*os.File, os.FileInfo, error) {
	if sourcefile.Compressed(s.path) {
		return nil, nil, errors.New("a compressed transcript is read whole")
	}
	f, err := sourcefile.OpenRegular(s.path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// checksums hashes the first checkBytes of f and the checkBytes before
// size.
func checksums(f *os.File, size int64) (head, before [32]byte, err error) {
	read := func(from int64) ([32]byte, error) {
		n := min(int64(checkBytes), size-from)
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
			return [32]byte{}, err
		}
		return sha256.Sum256(buf), nil
	}
	if head, err = read(0); err != nil {
		return
	}
	before, err = read(max(size-checkBytes, 0))
	return
}

// encodeHeader lays h out as magic, the path and key (each a uvarint
// length and its bytes), the file's id and the size covered (8 bytes
// each, little-endian), the two checksums, the suspended entry, and the
// CRC-32C of what follows magic (4 bytes, little-endian).
func encodeHeader(h header) []byte {
	b := make([]byte, 0, len(magic)+len(h.Path)+len(h.Key)+2*binary.MaxVarintLen64+16+64+len(h.Suspended))
	b = append(b, magic...)
	b = binary.AppendUvarint(b, uint64(len(h.Path)))
	b = append(b, h.Path...)
	b = binary.AppendUvarint(b, uint64(len(h.Key)))
	b = append(b, h.Key...)
	b = binary.LittleEndian.AppendUint64(b, h.FileID)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.Size))
	b = append(b, h.Head[:]...)
	b = append(b, h.Before[:]...)
	b = append(b, h.Suspended...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[len(magic):], castagnoli))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decodeHeader reads what encodeHeader wrote; ok is false for anything
// else (another layout, a damaged or cut file). The suspended entry is
// data's own tail, not a copy.
func decodeHeader(data []byte) (h header, ok bool) {
	rest, found := bytes.CutPrefix(data, []byte(magic))
	if !found || len(rest) < 4 {
		return header{}, false
	}
	sum := binary.LittleEndian.Uint32(rest[len(rest)-4:])
	if rest = rest[:len(rest)-4]; crc32.Checksum(rest, castagnoli) != sum {
		return header{}, false
	}
	text := func() (string, bool) {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return "", false
		}
		s := string(rest[k : k+int(n)])
		rest = rest[k+int(n):]
		return s, true
	}
	if h.Path, ok = text(); !ok {
		return header{}, false
	}
	if h.Key, ok = text(); !ok {
		return header{}, false
	}
	if len(rest) < 16+64 {
		return header{}, false
	}
	h.FileID = binary.LittleEndian.Uint64(rest)
	h.Size = int64(binary.LittleEndian.Uint64(rest[8:]))
	copy(h.Head[:], rest[16:])
	copy(h.Before[:], rest[48:])
	h.Suspended = rest[80:]
	return h, h.Size >= 0
}
