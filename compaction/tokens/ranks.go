package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"hash/maphash"
	"math/bits"
	"path"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// rankTable maps the tokens of one encoding to their ranks. It is an
// open-addressing hash table over one arena of token bytes, built in one
// pass over the rank file: a map[string]int of the same 200k entries took
// one allocation per token and most of the time of every command that
// counts (a status line run again and again is mostly that load).
type rankTable struct {
	// arena holds every token's bytes; token i is arena[ends[i-1]:ends[i]]
	// (from 0 for the first).
	arena string
	ends  []uint32
	ranks []uint32
	// slots hold, for a used slot, the token's index plus one in the low
	// 32 bits and its hash's high 32 bits above, so most probes that miss
	// compare no bytes.
	slots []uint64
	mask  uint64
	seed  maphash.Seed
}

func (t *rankTable) token(i uint32) string {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.arena[start:t.ends[i]]
}

// get returns the rank of token s.
func (t *rankTable) get(s string) (int, bool) {
	h := maphash.String(t.seed, s)
	tag := h &^ 0xffffffff
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i]
		if e == 0 {
			return 0, false
		}
		if e&^0xffffffff == tag {
			if k := uint32(e) - 1; t.token(k) == s {
				return int(t.ranks[k]), true
			}
		}
	}
}

// len is the number of tokens.
func (t *rankTable) len() int { return len(t.ends) }

// insert adds token i (already in the arena). A token listed twice takes
// its later rank, as in the offline loader's map.
func (t *rankTable) insert(i uint32) {
	s := t.token(i)
	h := maphash.String(t.seed, s)
	tag := h &^ 0xffffffff
	for j := h & t.mask; ; j = (j + 1) & t.mask {
		e := t.slots[j]
		if e == 0 {
			t.slots[j] = tag | uint64(i+1)
			return
		}
		if e&^0xffffffff == tag && t.token(uint32(e)-1) == s {
			t.slots[j] = tag | uint64(i+1)
			return
		}
	}
}

// readRanks reads the rank file the offline loader embeds as its
// LoadTiktokenBpe does (each line a base64 token and its rank).
func readRanks(file string) (*rankTable, error) {
	data, err := assets.Assets.ReadFile(path.Base(file))
	if err != nil {
		return nil, err
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	// Base64 holds 3 bytes in 4: the tokens take at most that of the file.
	arena := make([]byte, 0, base64.StdEncoding.DecodedLen(len(data)))
	t := &rankTable{ends: make([]uint32, 0, lines), ranks: make([]uint32, 0, lines), seed: maphash.MakeSeed()}
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		if len(line) == 0 {
			continue
		}
		b64, num, _ := bytes.Cut(line, []byte{' '})
		n, err := base64.StdEncoding.Decode(arena[len(arena):cap(arena)], b64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(file), err)
		}
		rank, ok := atou32(num)
		if !ok {
			return nil, fmt.Errorf("%s: rank %q is not a number", path.Base(file), num)
		}
		arena = arena[:len(arena)+n]
		t.ends = append(t.ends, uint32(len(arena)))
		t.ranks = append(t.ranks, rank)
	}
	t.arena = string(arena)
	size := uint64(1) << bits.Len(uint(2*len(t.ends)))
	t.slots, t.mask = make([]uint64, size), size-1
	for i := range t.ends {
		t.insert(uint32(i))
	}
	return t, nil
}

// atou32 parses a decimal rank.
func atou32(b []byte) (uint32, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	var n uint32
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint32(c-'0')
	}
	return n, true
}
