package store

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// Small records are stored in chunks. A row, a hash, a lookup and a
// compression call per record made recording a session of many short
// records cost far more than its bytes: 160k records of a 100 MB chat
// took 6 s of CPU to store, one by one. A chunk is a run of consecutive
// small records, normalized as they are (see normalize), stored as one
// segment whose patch holds all of theirs.
//
// Where a chunk ends depends only on the normalized records themselves,
// never on where the content or the chunk began: after a record whose
// body's checksum picks it (about one in chunkSpread), before and after
// a record too large to share a chunk, or once the chunk holds
// maxChunk bytes. Two versions that share a run of records — a source
// and its fork, whose ids the fork renewed, or a source and the same
// source grown — cut it in the same places again from the first pick
// after the last record where they differ, and share those chunks'
// storage; a record that differs costs the chunk around it.
const (
	// largeRecord is the normalized size from which a record is stored on
	// its own: it is worth a row, and it is shared record by record.
	largeRecord = 4 << 10
	chunkSpread = 12
	maxChunk    = 32 << 10
)

// A normalized record is one record's body and patch (see normalize) and
// its raw bytes.
type normalized struct {
	raw, body, patch []byte
}

// normalizeAll normalizes every record, on every core.
func normalizeAll(segs [][]byte) []normalized {
	out := make([]normalized, len(segs))
	parallel(len(segs), func(i int) {
		body, patch := normalize(segs[i])
		out[i] = normalized{raw: segs[i], body: body, patch: patch}
	})
	return out
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// endsChunk reports whether a small record's body ends the chunk it is in.
func endsChunk(body []byte) bool {
	return crc32.Checksum(body, castagnoli)%chunkSpread == 0
}

// chunkRecords groups recs (consecutive records of one content) into the
// segments to store, each joined and checked on every core. A segment
// whose patch does not give its bytes back is stored as its bytes: what
// is stored always comes back.
func chunkRecords(recs []normalized) []record {
	type span struct{ from, to int }
	var spans []span
	from, size := 0, 0
	for i, r := range recs {
		if len(r.body) >= largeRecord {
			if from < i {
				spans = append(spans, span{from, i})
			}
			spans = append(spans, span{i, i + 1})
			from, size = i+1, 0
			continue
		}
		size += len(r.body)
		if size >= maxChunk || endsChunk(r.body) {
			spans = append(spans, span{from, i + 1})
			from, size = i+1, 0
		}
	}
	if from < len(recs) {
		spans = append(spans, span{from, len(recs)})
	}
	out := make([]record, len(spans))
	parallel(len(spans), func(k int) {
		sp := spans[k]
		raw, body, patch := joinRecords(recs[sp.from:sp.to])
		if patch != nil {
			if back, err := applyPatch(make([]byte, 0, len(raw)), body, patch); err != nil || !bytes.Equal(back, raw) {
				body, patch = raw, nil
			}
		}
		out[k] = record{body: body, patch: patch}
	})
	return out
}

// joinRecords joins consecutive records into one: their raw bytes (which
// are adjacent in the content, so joining them copies nothing), their
// bodies, and one patch placing every record's pieces in the joined body.
func joinRecords(rs []normalized) (raw, body, patch []byte) {
	if len(rs) == 1 {
		return rs[0].raw, rs[0].body, rs[0].patch
	}
	raw = rs[0].raw[:0:0]
	if first, last := rs[0].raw, rs[len(rs)-1].raw; len(first) > 0 && len(last) > 0 {
		// Adjacent slices of one buffer: extend the first over the rest.
		n := 0
		for _, r := range rs {
			n += len(r.raw)
		}
		if cap(first) >= n && &first[:n][n-len(last)] == &last[0] {
			raw = first[:n]
		}
	}
	if len(raw) == 0 {
		for _, r := range rs {
			raw = append(raw, r.raw...)
		}
	}
	pieces, bodySize := 0, 0
	for _, r := range rs {
		bodySize += len(r.body)
		if len(r.patch) > 0 {
			n, _ := binary.Uvarint(r.patch)
			pieces += int(n)
		}
	}
	if pieces == 0 {
		if bodySize == len(raw) {
			return raw, raw, nil
		}
	}
	body = make([]byte, 0, bodySize)
	patch = binary.AppendUvarint(make([]byte, 0, 16+pieces*20), uint64(pieces))
	// gap counts the body bytes since the last piece, across records.
	gap := 0
	for _, r := range rs {
		body = append(body, r.body...)
		if len(r.patch) == 0 {
			gap += len(r.body)
			continue
		}
		n, k := binary.Uvarint(r.patch)
		p := r.patch[k:]
		used := 0
		for range n {
			g, k := binary.Uvarint(p)
			if k <= 0 || len(p) < k+1 {
				return raw, raw, nil // a patch normalize did not write: store the bytes
			}
			patch = binary.AppendUvarint(patch, uint64(gap+int(g)))
			gap, used = 0, used+int(g)
			p = p[k:]
			size := 1 + 16 // kind, UUID
			if p[0] == pieceBytes {
				m, k := binary.Uvarint(p[1:])
				if k <= 0 {
					return raw, raw, nil
				}
				size = 1 + k + int(m)
			}
			if size > len(p) {
				return raw, raw, nil
			}
			patch = append(patch, p[:size]...)
			p = p[size:]
		}
		gap += len(r.body) - used
	}
	return raw, body, patch
}
