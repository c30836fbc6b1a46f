package tokens

import (
	"fmt"
	"math"
	"strings"
	"sync"
)

// bpe counts tokens with an encoding's merge ranks, as tiktoken does:
// pretokenize, then byte-pair merge each piece. pkoukk/tiktoken-go exports
// neither step, only Encode on whole texts, so bytePairCount follows its
// bytePairMerge (itself tiktoken's Rust _byte_pair_merge) and returns how
// many parts remain instead of the tokens. The ranks are the library's
// offline loader's files, embedded as tables (ranks.go).
type bpe struct {
	ranks  *rankTable
	cl100k bool
}

// mergedCounts caches the counts of pieces that needed merging. Pieces
// repeat a lot across a transcript (identifiers, paths, JSON keys) and a
// lookup costs one hash where the merge costs a few per byte. A count is a
// pure function of the piece, so the cache is exact. Each goroutine takes
// its own from its Counter's pool: no locks on the hot path.
type mergedCounts map[string]int

// maxMergedCounts bounds one cache (a few MB); a full one is emptied.
const maxMergedCounts = 1 << 16

// bpes memoizes opened encodings (a table read in place, immutable):
// every Counter of an encoding shares it.
var bpes sync.Map // encoding name -> *bpeOnce

type bpeOnce struct {
	once sync.Once
	bpe  *bpe
	err  error
}

func loadBPE(name string) (*bpe, error) {
	if _, ok := rankFiles[name]; !ok {
		return nil, fmt.Errorf("unknown token encoding %q (known: %s, %s)", name, O200kBase, CL100kBase)
	}
	v, _ := bpes.LoadOrStore(name, &bpeOnce{})
	e := v.(*bpeOnce)
	e.once.Do(func() {
		ranks, err := readRanks(name)
		if err != nil {
			e.err = fmt.Errorf("load token encoding %s: %w", name, err)
			return
		}
		e.bpe = &bpe{ranks: ranks, cl100k: name == CL100kBase}
	})
	return e.bpe, e.err
}

// count returns the number of tokens of s as ordinary text, looking up
// and storing the counts of merged pieces in cache.
func (b *bpe) count(s string, cache mergedCounts) int {
	s = validUTF8(s)
	sc := newScanner(s)
	n := 0
	for i := 0; i < len(s); {
		e := sc.next(i, b.cl100k)
		n += b.pieceCount(s[i:e], cache)
		i = e
	}
	return n
}

// pieceCount is the number of tokens of one pretokenized piece.
func (b *bpe) pieceCount(p string, cache mergedCounts) int {
	if len(p) == 1 {
		return 1 // every byte is a token
	}
	if _, ok := b.ranks.get(p); ok {
		return 1
	}
	if n, ok := cache[p]; ok {
		return n
	}
	n := bytePairCount(p, b.ranks)
	if len(cache) >= maxMergedCounts {
		clear(cache)
	}
	// Cloned: p points into the caller's text, which must not be retained.
	cache[strings.Clone(p)] = n
	return n
}

// mergePart is one part of a piece during merging: where it starts, and
// the rank of merging it with the part after it.
type mergePart struct{ start, rank int }

// bytePairCount merges the bytes of piece by lowest rank first (leftmost
// on ties) until no adjacent pair is a token, and returns the number of
// parts left.
func bytePairCount(piece string, ranks *rankTable) int {
	var stack [64]mergePart
	var parts []mergePart
	if len(piece)+1 <= len(stack) {
		parts = stack[:len(piece)+1]
	} else {
		parts = make([]mergePart, len(piece)+1)
	}
	for i := range parts {
		parts[i] = mergePart{start: i, rank: math.MaxInt}
	}
	// rank of the bytes from part i to part i+skip+2, or MaxInt.
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := ranks.get(piece[parts[i].start:parts[i+skip+2].start]); ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 1 {
		minRank, minIdx := math.MaxInt, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < minRank {
				minRank, minIdx = parts[i].rank, i
			}
		}
		if minIdx < 0 {
			break
		}
		i := minIdx
		parts[i].rank = rank(i, 1)
		if i > 0 {
			parts[i-1].rank = rank(i-1, 1)
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	return len(parts) - 1
}
