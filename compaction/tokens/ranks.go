package tokens

import (
	_ "embed"
	"fmt"

	"github.com/compactd/compactd/compaction/tokens/internal/ranktable"
)

//go:generate go run ./internal/rankgen ranks

// The rank tables are the tiktoken rank files laid out as hash tables
// (internal/ranktable) when the repository is built, and read in place:
// building a map of an encoding's 200k tokens took most of the time of a
// command that counts a little (a status line after an append).
var (
	//go:embed ranks/o200k_base.ranks
	o200kRanks string
	//go:embed ranks/cl100k_base.ranks
	cl100kRanks string
)

// rankFiles are the tables by encoding.
var rankFiles = map[string]*string{O200kBase: &o200kRanks, CL100kBase: &cl100kRanks}

// rankTable maps the tokens of one encoding to their ranks, read in place
// from its table (see internal/ranktable for the layout).
type rankTable struct {
	data         string
	n            int
	mask         uint64
	slots, arena int // offsets in data
}

// readRanks opens the table of an encoding.
func readRanks(encoding string) (*rankTable, error) {
	p, ok := rankFiles[encoding]
	if !ok {
		return nil, fmt.Errorf("unknown token encoding %q", encoding)
	}
	d := *p
	if len(d) < ranktable.HeaderSize || d[:4] != ranktable.Magic {
		return nil, fmt.Errorf("the %s rank table is damaged", encoding)
	}
	t := &rankTable{data: d}
	n, k, arena := int(t.u32(4)), int(t.u32(8)), int(t.u32(12))
	t.n, t.mask = n, uint64(1)<<k-1
	t.slots = ranktable.HeaderSize + 4*n
	t.arena = t.slots + 4<<k
	if k >= 32 || t.arena+arena != len(d) {
		return nil, fmt.Errorf("the %s rank table is damaged", encoding)
	}
	return t, nil
}

func (t *rankTable) u32(off int) uint32 {
	d := t.data[off : off+4]
	return uint32(d[0]) | uint32(d[1])<<8 | uint32(d[2])<<16 | uint32(d[3])<<24
}

func (t *rankTable) token(i int) string {
	start := 0
	if i > 0 {
		start = int(t.u32(ranktable.HeaderSize + 4*(i-1)))
	}
	return t.data[t.arena+start : t.arena+int(t.u32(ranktable.HeaderSize+4*i))]
}

// get returns the rank of token s.
func (t *rankTable) get(s string) (int, bool) {
	for j := ranktable.Hash(s) & t.mask; ; j = (j + 1) & t.mask {
		e := int(t.u32(t.slots + 4*int(j)))
		if e == 0 {
			return 0, false
		}
		if t.token(e-1) == s {
			return e - 1, true
		}
	}
}

// len is the number of tokens.
func (t *rankTable) len() int { return t.n }
