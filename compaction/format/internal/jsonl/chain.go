package jsonl

import (
	"bytes"
	"encoding/json"

	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/newid"
)

// A Chain writes a fork's records as one linear chain of ids, as agents
// that link their records (Qwen Code's uuid/parentUuid, Copilot CLI's
// id/parentId) resume them: each record keeps its id, or gets a new one,
// and names the record written before it as its parent; the first names
// none (null).
type Chain struct {
	// IDKey and ParentKey are the members holding a record's id and its
	// parent's.
	IDKey, ParentKey string
	// Seed (the fork's session id) derives the ids the chain makes, so
	// the same fork is written the same way twice.
	Seed string
	// Out is what has been written: one record a line.
	Out  bytes.Buffer
	prev string
	made int
}

// NewID returns the next id derived from the seed.
func (c *Chain) NewID() string {
	c.made++
	return newid.Derived(c.Seed, c.made)
}

// Link gives o an id when it has none and names the previous record as
// its parent; o becomes the record the next one links to.
func (c *Chain) Link(o *jsonx.Object) {
	id := ""
	_ = json.Unmarshal(o.Get(c.IDKey), &id)
	if id == "" {
		id = c.NewID()
		_ = o.Set(c.IDKey, id)
	}
	if c.prev == "" {
		o.SetRaw(c.ParentKey, json.RawMessage("null"))
	} else {
		_ = o.Set(c.ParentKey, c.prev)
	}
	c.prev = id
}

// Write writes o as the next line.
func (c *Chain) Write(o *jsonx.Object) {
	c.Out.Write(o.Bytes())
	c.Out.WriteByte('\n')
}

// Emit links o into the chain and writes it.
func (c *Chain) Emit(o *jsonx.Object) {
	c.Link(o)
	c.Write(o)
}
