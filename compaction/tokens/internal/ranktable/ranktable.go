// Package ranktable builds the BPE rank tables compaction/tokens embeds:
// each encoding's tiktoken rank file (as github.com/pkoukk/tiktoken-go-
// loader ships it) laid out as an open-addressing hash table that a
// counter reads in place, so no command spends its first milliseconds
// building one (a status line runs in about 20).
//
// The layout, all integers little-endian uint32:
//
//	"CDR1" n log2(slots) len(arena)
//	ends[n]      token i is arena[ends[i-1]:ends[i]] (from 0 for the first); its rank is i
//	slots[1<<k]  0 for an empty slot, else a token's index plus one
//	arena        every token's bytes
//
// A token's slot is Hash(token) masked to the slots, probed linearly.
package ranktable

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
)

// Magic starts every table.
const Magic = "CDR1"

// HeaderSize is the bytes before ends.
const HeaderSize = 16

// Hash is FNV-1a (64 bits) of s.
func Hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Build lays out the tiktoken rank file src (a base64 token and its rank
// on each line). Ranks must run 0, 1, 2… in line order (they do in every
// file tiktoken publishes): a token's rank is then its index.
func Build(src []byte) ([]byte, error) {
	var arena []byte
	var ends []uint32
	for n := 0; len(src) > 0; {
		var line []byte
		line, src, _ = bytes.Cut(src, []byte{'\n'})
		if len(line) == 0 {
			continue
		}
		b64, num, _ := bytes.Cut(line, []byte{' '})
		tok, err := base64.StdEncoding.DecodeString(string(b64))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		rank, err := strconv.Atoi(string(num))
		if err != nil || rank != n {
			return nil, fmt.Errorf("line %d: rank %q; a rank must be its line's index", n+1, num)
		}
		arena = append(arena, tok...)
		ends = append(ends, uint32(len(arena)))
		n++
	}
	k := bits.Len(uint(2 * len(ends)))
	slots := make([]uint32, 1<<k)
	mask := uint64(len(slots) - 1)
	token := func(i uint32) []byte {
		start := uint32(0)
		if i > 0 {
			start = ends[i-1]
		}
		return arena[start:ends[i]]
	}
	for i := range ends {
		tok := token(uint32(i))
		for j := Hash(string(tok)) & mask; ; j = (j + 1) & mask {
			if slots[j] == 0 {
				slots[j] = uint32(i) + 1
				break
			}
			if bytes.Equal(token(slots[j]-1), tok) {
				return nil, fmt.Errorf("token %q is listed twice", tok)
			}
		}
	}
	out := make([]byte, 0, HeaderSize+4*len(ends)+4*len(slots)+len(arena))
	out = append(out, Magic...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(ends)))
	out = binary.LittleEndian.AppendUint32(out, uint32(k))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(arena)))
	for _, e := range ends {
		out = binary.LittleEndian.AppendUint32(out, e)
	}
	for _, s := range slots {
		out = binary.LittleEndian.AppendUint32(out, s)
	}
	return append(out, arena...), nil
}
