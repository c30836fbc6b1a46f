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
	"slices"
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

// segments splits b at cuts (sorted, deduplicated, out-of-range ignored).
func segments(b []byte, cuts []int64) [][]byte {
	cs := cuts
	if !slices.IsSorted(cs) {
		cs = slices.Sorted(slices.Values(cuts))
	}
	out := make([][]byte, 0, len(cs)+1)
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
	return out
}

// putContentV1 stores b as schema 2 knew it: raw segments, deflated, no
// patches. Only the migration to schema 2 uses it (later columns do not
// exist yet there).
func putContentV1(ctx context.Context, tx *sql.Tx, b []byte, cuts []int64) (string, error) {
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
	for _, seg := range segments(b, cuts) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		sum := sha256.Sum256(seg)
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
	var segs, patchList []byte
	err := s.db.QueryRowContext(ctx, `SELECT size, segments, patches FROM contents WHERE hash = ?`, hash).Scan(&size, &segs, &patchList)
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
	stmt, err := s.db.PrepareContext(ctx, `SELECT size, data, codec FROM blobs WHERE id = ?`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	blob := func(id int64) ([]byte, error) {
		var n int64
		var data []byte
		var codec int
		if err := stmt.QueryRowContext(ctx, id).Scan(&n, &data, &codec); errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("read content %.12s: segment %d is missing: %w", hash, id, ErrDamaged)
		} else if err != nil {
			return nil, fmt.Errorf("read content %.12s segment %d: %w", hash, id, err)
		}
		b, err := inflate(data, codec, n)
		if err != nil {
			return nil, fmt.Errorf("read content %.12s: segment %d is corrupt: %w", hash, id, ErrDamaged)
		}
		return b, nil
	}
	var patches [][]byte
	if patchList != nil {
		chunks, err := decodeIDs(patchList)
		if err != nil {
			return nil, fmt.Errorf("read content %.12s: %v: %w", hash, err, ErrDamaged)
		}
		for _, id := range chunks {
			b, err := blob(id)
			if err != nil {
				return nil, err
			}
			ps, err := splitPatches(b)
			if err != nil {
				return nil, fmt.Errorf("read content %.12s: patch chunk %d is corrupt: %w", hash, id, ErrDamaged)
			}
			patches = append(patches, ps...)
		}
		if len(patches) != len(ids) {
			return nil, fmt.Errorf("read content %.12s: %d patches for %d records: %w", hash, len(patches), len(ids), ErrDamaged)
		}
	}
	out := make([]byte, 0, size)
	for i, id := range ids {
		b, err := blob(id)
		if err != nil {
			return nil, err
		}
		if patches == nil {
			out = append(out, b...)
			continue
		}
		if out, err = applyPatch(out, b, patches[i]); err != nil {
			return nil, fmt.Errorf("read content %.12s: record %d: %w", hash, i, err)
		}
	}
	if ContentHash(out) != hash {
		return nil, fmt.Errorf("read content %.12s: its bytes do not match their hash: %w", hash, ErrDamaged)
	}
	return out, nil
}
