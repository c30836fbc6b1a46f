package store

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
)

// ContentHash is the hex sha256 of a file's bytes: how versions and the
// compare-and-swap on sources identify content.
func ContentHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// LineCuts returns the offsets just after each newline: the record starts
// of any line-oriented file. Callers that parsed the file pass record starts
// instead.
func LineCuts(b []byte) []int64 {
	var cuts []int64
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		if i < len(b) {
			cuts = append(cuts, int64(i))
		}
	}
	return cuts
}

// segments splits b at cuts (sorted, deduplicated, out-of-range ignored),
// then joins runs of small segments into chunks (see chunk).
func segments(b []byte, cuts []int64) [][]byte {
	cs := append([]int64(nil), cuts...)
	sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
	var out [][]byte
	prev := int64(0)
	for _, c := range cs {
		if c <= prev || c >= int64(len(b)) {
			continue
		}
		out = append(out, b[prev:c])
		prev = c
	}
	if prev < int64(len(b)) {
		out = append(out, b[prev:])
	}
	return chunk(out)
}

// Small records are stored in chunks: one row per record made a file of
// a million tiny lines cost a million lookups. A chunk ends after a record
// of at least minSegment bytes, after a record whose hash picks it (about
// one in chunkSpread), or at maxChunk bytes. The choice depends only on
// the records' own bytes, so two versions sharing a run of records cut it
// the same way again after the first place they differ, and keep sharing
// its storage.
const (
	minSegment  = 512
	chunkSpread = 16
	maxChunk    = 16 << 10
)

func chunk(segs [][]byte) [][]byte {
	out := segs[:0]
	start := -1 // first record of the open chunk (they are contiguous in b)
	size := 0
	for _, seg := range segs {
		if start < 0 && len(seg) >= minSegment {
			out = append(out, seg)
			continue
		}
		if start < 0 {
			start, size = len(out), 0
			out = append(out, seg[:0])
		}
		// Records are contiguous slices of one buffer: extend the chunk.
		open := out[start]
		out[start] = open[:len(open)+len(seg)]
		size += len(seg)
		if len(seg) >= minSegment || size >= maxChunk || picks(seg) {
			start = -1
		}
	}
	return out
}

// picks reports whether a small record ends its chunk (FNV-1a of its
// bytes, one in chunkSpread).
func picks(seg []byte) bool {
	h := uint32(2166136261)
	for _, c := range seg {
		h = (h ^ uint32(c)) * 16777619
	}
	return h%chunkSpread == 0
}

// putContent stores b as a list of segments, each stored once by hash, and
// returns b's content hash. Storing content already present costs one lookup.
func putContent(ctx context.Context, tx *sql.Tx, b []byte, cuts []int64) (string, error) {
	h := ContentHash(b)
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM contents WHERE hash = ?`, h).Scan(&one)
	if err == nil {
		return h, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("look up content: %w", err)
	}
	find, err := tx.PrepareContext(ctx, `SELECT id FROM blobs WHERE hash = ?`)
	if err != nil {
		return "", err
	}
	defer find.Close()
	insert, err := tx.PrepareContext(ctx, `INSERT INTO blobs(hash, size, data) VALUES (?, ?, ?)`)
	if err != nil {
		return "", err
	}
	defer insert.Close()

	var zbuf bytes.Buffer
	zw, _ := flate.NewWriter(&zbuf, flate.DefaultCompression)
	var ids []int64
	seen := map[[32]byte]int64{} // a segment repeated within b costs one lookup
	for _, seg := range segments(b, cuts) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		sum := sha256.Sum256(seg)
		if id, ok := seen[sum]; ok {
			ids = append(ids, id)
			continue
		}
		var id int64
		err := find.QueryRowContext(ctx, sum[:]).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			zbuf.Reset()
			zw.Reset(&zbuf)
			zw.Write(seg)
			zw.Close()
			res, err := insert.ExecContext(ctx, sum[:], len(seg), zbuf.Bytes())
			if err != nil {
				return "", fmt.Errorf("store segment: %w", err)
			}
			id, _ = res.LastInsertId()
		} else if err != nil {
			return "", fmt.Errorf("look up segment: %w", err)
		}
		seen[sum] = id
		ids = append(ids, id)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO contents(hash, size, segments) VALUES (?, ?, ?)`,
		h, len(b), encodeIDs(ids)); err != nil {
		return "", fmt.Errorf("store content: %w", err)
	}
	return h, nil
}

// encodeIDs packs blob ids as zigzag deltas in varints, deflated: records
// stored in order get consecutive ids, so a version's list costs about a
// byte per record instead of a 32-byte hash.
func encodeIDs(ids []int64) []byte {
	var raw []byte
	prev := int64(0)
	for _, id := range ids {
		raw = binary.AppendVarint(raw, id-prev)
		prev = id
	}
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.BestCompression)
	zw.Write(raw)
	zw.Close()
	return buf.Bytes()
}

func decodeIDs(b []byte) ([]int64, error) {
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(b)))
	if err != nil {
		return nil, err
	}
	var ids []int64
	prev := int64(0)
	for len(raw) > 0 {
		d, n := binary.Varint(raw)
		if n <= 0 {
			return nil, errors.New("corrupt segment list")
		}
		raw = raw[n:]
		prev += d
		ids = append(ids, prev)
	}
	return ids, nil
}

// Content returns the exact bytes stored under a content hash, verified
// against the hash.
func (s *Store) Content(ctx context.Context, hash string) ([]byte, error) {
	var size int64
	var segs []byte
	err := s.db.QueryRowContext(ctx, `SELECT size, segments FROM contents WHERE hash = ?`, hash).Scan(&size, &segs)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store %s has no content %.12s", s.path, hash)
	}
	if err != nil {
		return nil, fmt.Errorf("read content %.12s: %w", hash, err)
	}
	ids, err := decodeIDs(segs)
	if err != nil {
		return nil, fmt.Errorf("read content %.12s: %v: %w", hash, err, ErrDamaged)
	}
	stmt, err := s.db.PrepareContext(ctx, `SELECT size, data FROM blobs WHERE id = ?`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	var out bytes.Buffer
	out.Grow(int(size))
	zr := flate.NewReader(nil)
	for _, id := range ids {
		var n int64
		var data []byte
		if err := stmt.QueryRowContext(ctx, id).Scan(&n, &data); errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("read content %.12s: segment %d is missing: %w", hash, id, ErrDamaged)
		} else if err != nil {
			return nil, fmt.Errorf("read content %.12s segment %d: %w", hash, id, err)
		}
		zr.(flate.Resetter).Reset(bytes.NewReader(data), nil)
		got, err := out.ReadFrom(zr)
		if err != nil || got != n {
			return nil, fmt.Errorf("read content %.12s: segment %d is corrupt: %w", hash, id, ErrDamaged)
		}
	}
	if ContentHash(out.Bytes()) != hash {
		return nil, fmt.Errorf("read content %.12s: its bytes do not match their hash: %w", hash, ErrDamaged)
	}
	return out.Bytes(), nil
}
