package store

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
)

// Records are stored normalized: the values that change from one version
// of a conversation to the next while the record stays the same — ids
// (Claude Code renews every uuid, parentUuid and sessionId in a fork) and
// the API usage a fork drops from the records it keeps — are cut out and
// kept beside the record as a patch. Records equal but for those share
// one stored body, so a fork costs its ids and the records it changed,
// not a copy of the conversation.
//
// The cut is lexical, so it needs no codec and cannot lose a byte:
//   - a quoted canonical UUID ("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
//     lowercase hex) loses its 36 characters, kept as 16 bytes;
//   - a member `,"usage":{…}` loses itself whole (its object scanned with
//     strings and escapes respected).
//
// A patch lists, in order, where each cut piece goes back in the body.
// normalize checks that the patch gives the record back before it is
// used, and Content checks every version against its hash.

const (
	pieceBytes = 0 // the piece as it was
	pieceUUID  = 1 // a UUID, 16 bytes
)

var usageMember = []byte(`,"usage":{`)

// A cut is one piece normalize cuts out of a record: rec[at:end], a UUID
// or a usage member.
type cut struct {
	at, end int32
	uuid    bool
}

// normalize returns rec's body and the patch that gives rec back.
// A record with nothing to cut is its own body, with an empty patch.
func normalize(rec []byte) (body, patch []byte) {
	cuts := cutsOf(rec)
	if len(cuts) == 0 {
		return rec, nil
	}
	body = make([]byte, 0, len(rec))
	patch = binary.AppendUvarint(nil, uint64(len(cuts)))
	body, patch, _ = appendNormalized(body, patch, rec, cuts, 0)
	return body, patch
}

// cutsOf returns the pieces normalize cuts out of rec, in order.
func cutsOf(rec []byte) []cut {
	var usage []cut
	// Usage members first: UUIDs inside one go with it.
	for off := 0; ; {
		i := bytes.Index(rec[off:], usageMember)
		if i < 0 {
			break
		}
		start := off + i
		end := objectEnd(rec, start+len(usageMember)-1)
		if end < 0 {
			break
		}
		usage = append(usage, cut{at: int32(start), end: int32(end)})
		off = end
	}
	inUsage := func(i int) bool {
		for _, c := range usage {
			if i >= int(c.at) && i < int(c.end) {
				return true
			}
		}
		return false
	}
	// A quoted UUID is found by its first hyphen, nine bytes after the
	// opening quote: JSON has far fewer hyphens than quotes to look at.
	var uuids []cut
	next := 0 // where the next UUID may open (after the last one's quote)
	for off := 9; off < len(rec); {
		i := bytes.IndexByte(rec[off:], '-')
		if i < 0 {
			break
		}
		q := off + i - 9
		if q >= next && q+38 <= len(rec) && rec[q] == '"' && rec[q+37] == '"' && isUUID(rec[q+1:q+37]) && !inUsage(q) {
			uuids = append(uuids, cut{at: int32(q + 1), end: int32(q + 37), uuid: true})
			next = q + 38
			off = q + 38 + 9
			continue
		}
		off += i + 1
	}
	if len(usage) == 0 {
		return uuids
	}
	return mergeCuts(usage, uuids, func(c cut) int32 { return c.at })
}

// appendNormalized appends rec's body (rec without its cuts) to body and
// its pieces to patch, each placed gap body bytes after the piece before
// it (gap counts the body bytes since the last piece, across the records
// of one segment); it returns the gap after rec.
func appendNormalized(body, patch, rec []byte, cuts []cut, gap int) ([]byte, []byte, int) {
	prev := 0
	for _, c := range cuts {
		at, end := int(c.at), int(c.end)
		body = append(body, rec[prev:at]...)
		// Where the piece goes: this many body bytes after the last one.
		patch = binary.AppendUvarint(patch, uint64(gap+at-prev))
		gap = 0
		if c.uuid {
			patch = append(patch, pieceUUID)
			var raw [16]byte
			hexUUID(raw[:], rec[at:end])
			patch = append(patch, raw[:]...)
		} else {
			patch = append(patch, pieceBytes)
			patch = binary.AppendUvarint(patch, uint64(end-at))
			patch = append(patch, rec[at:end]...)
		}
		prev = end
	}
	body = append(body, rec[prev:]...)
	return body, patch, gap + len(rec) - prev
}

// mergeCuts merges two lists sorted by key into one sorted list.
func mergeCuts[T any, K int | int32](a, b []T, key func(T) K) []T {
	out := make([]T, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if key(a[0]) <= key(b[0]) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// applyPatch appends to dst the record that body and patch stand for.
func applyPatch(dst, body, patch []byte) ([]byte, error) {
	if len(patch) == 0 {
		return append(dst, body...), nil
	}
	n, k := binary.Uvarint(patch)
	if k <= 0 {
		return nil, errCorruptPatch
	}
	patch = patch[k:]
	at := 0
	for range n {
		gap, k := binary.Uvarint(patch)
		if k <= 0 || gap > uint64(len(body)-at) || len(patch) < k+1 {
			return nil, errCorruptPatch
		}
		dst = append(dst, body[at:at+int(gap)]...)
		at += int(gap)
		kind := patch[k]
		patch = patch[k+1:]
		switch kind {
		case pieceUUID:
			if len(patch) < 16 {
				return nil, errCorruptPatch
			}
			dst = appendUUID(dst, patch[:16])
			patch = patch[16:]
		case pieceBytes:
			size, k := binary.Uvarint(patch)
			if k <= 0 || size > uint64(len(patch)-k) {
				return nil, errCorruptPatch
			}
			dst = append(dst, patch[k:k+int(size)]...)
			patch = patch[k+int(size):]
		default:
			return nil, errCorruptPatch
		}
	}
	if len(patch) != 0 {
		return nil, errCorruptPatch
	}
	return append(dst, body[at:]...), nil
}

var errCorruptPatch = errors.New("corrupt record patch")

// objectEnd returns the index just after the JSON object opening at
// b[open] ('{'), or -1 when it does not close.
func objectEnd(b []byte, open int) int {
	depth := 0
	for i := open; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// isUUID reports whether b is a canonical lowercase UUID.
func isUUID(b []byte) bool {
	if len(b) != 36 || b[8] != '-' || b[13] != '-' || b[18] != '-' || b[23] != '-' {
		return false
	}
	for i, c := range b {
		switch i {
		case 8, 13, 18, 23:
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// hexUUID decodes a canonical UUID into 16 bytes.
func hexUUID(dst, uuid []byte) {
	var digits [32]byte
	n := 0
	for _, c := range uuid {
		if c != '-' {
			digits[n] = c
			n++
		}
	}
	hex.Decode(dst, digits[:])
}

// appendUUID appends the canonical text of a 16-byte UUID.
func appendUUID(dst, raw []byte) []byte {
	var h [32]byte
	hex.Encode(h[:], raw)
	dst = append(dst, h[:8]...)
	dst = append(dst, '-')
	dst = append(dst, h[8:12]...)
	dst = append(dst, '-')
	dst = append(dst, h[12:16]...)
	dst = append(dst, '-')
	dst = append(dst, h[16:20]...)
	dst = append(dst, '-')
	return append(dst, h[20:]...)
}
