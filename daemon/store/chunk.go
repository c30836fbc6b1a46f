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

// A scanned record is one record of a content to store: its bytes, the
// pieces normalize cuts out of it, and what chunking looks at: its body's
// size and checksum.
type scanned struct {
	raw      []byte
	cuts     []cut
	bodySize int
	sum      uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// scanAll finds every record's cuts and its body's checksum, on every
// core, building no body.
func scanAll(segs [][]byte) []scanned {
	out := make([]scanned, len(segs))
	parallel(len(segs), func(i int) {
		raw := segs[i]
		cuts := cutsOf(raw)
		var sum uint32
		prev, size := 0, len(raw)
		for _, c := range cuts {
			sum = crc32.Update(sum, castagnoli, raw[prev:c.at])
			prev = int(c.end)
			size -= int(c.end - c.at)
		}
		sum = crc32.Update(sum, castagnoli, raw[prev:])
		out[i] = scanned{raw: raw, cuts: cuts, bodySize: size, sum: sum}
	})
	return out
}

// chunkRecords groups recs (consecutive records of one content) into the
// segments to store, each normalized and checked on every core. A segment
// whose patch does not give its bytes back is stored as its bytes: what
// is stored always comes back.
func chunkRecords(recs []scanned) []record {
	type span struct{ from, to int }
	var spans []span
	from, size := 0, 0
	for i, r := range recs {
		if r.bodySize >= largeRecord {
			if from < i {
				spans = append(spans, span{from, i})
			}
			spans = append(spans, span{i, i + 1})
			from, size = i+1, 0
			continue
		}
		size += r.bodySize
		if size >= maxChunk || r.sum%chunkSpread == 0 {
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
		if patch != nil && !patchGives(body, patch, raw) {
			body, patch = raw, nil
		}
		out[k] = record{body: body, patch: patch}
	})
	return out
}

// joinRecords normalizes consecutive records into one segment: their raw
// bytes (adjacent in the content, so joining them copies nothing), the
// body, and one patch placing every record's pieces in it.
func joinRecords(rs []scanned) (raw, body, patch []byte) {
	first, last := rs[0].raw, rs[len(rs)-1].raw
	n, pieces, bodySize := 0, 0, 0
	for _, r := range rs {
		n += len(r.raw)
		pieces += len(r.cuts)
		bodySize += r.bodySize
	}
	// Records are consecutive slices of one buffer: extend the first over
	// the rest (copy them when they are not, which no caller does).
	if len(last) > 0 && cap(first) >= n && &first[:n][n-len(last)] == &last[0] {
		raw = first[:n]
	} else {
		raw = make([]byte, 0, n)
		for _, r := range rs {
			raw = append(raw, r.raw...)
		}
	}
	if pieces == 0 {
		return raw, raw, nil
	}
	body = make([]byte, 0, bodySize)
	patch = binary.AppendUvarint(make([]byte, 0, 8+pieces*24), uint64(pieces))
	gap := 0
	for _, r := range rs {
		body, patch, gap = appendNormalized(body, patch, r.raw, r.cuts, gap)
	}
	return raw, body, patch
}

// patchGives reports whether body and patch give want back (applyPatch,
// comparing instead of building).
func patchGives(body, patch, want []byte) bool {
	n, k := binary.Uvarint(patch)
	if k <= 0 {
		return false
	}
	patch = patch[k:]
	at := 0
	var text [36]byte
	for range n {
		gap, k := binary.Uvarint(patch)
		if k <= 0 || gap > uint64(len(body)-at) || len(patch) < k+1 {
			return false
		}
		g := int(gap)
		if !bytes.HasPrefix(want, body[at:at+g]) {
			return false
		}
		want, at = want[g:], at+g
		kind := patch[k]
		patch = patch[k+1:]
		switch kind {
		case pieceUUID:
			if len(patch) < 16 || !bytes.HasPrefix(want, appendUUID(text[:0], patch[:16])) {
				return false
			}
			want, patch = want[36:], patch[16:]
		case pieceBytes:
			size, k := binary.Uvarint(patch)
			if k <= 0 || size > uint64(len(patch)-k) {
				return false
			}
			piece := patch[k : k+int(size)]
			if !bytes.HasPrefix(want, piece) {
				return false
			}
			want, patch = want[len(piece):], patch[k+len(piece):]
		default:
			return false
		}
	}
	return len(patch) == 0 && bytes.Equal(want, body[at:])
}
