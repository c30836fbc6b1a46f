// Package memo keeps what a pure function made of a text, so that the
// same text read again gives it back without the work. One compaction
// reads a conversation's texts many times over: the budget fit, its
// restore, the summary and the trade-off each index the same messages'
// names (salience), and every one of them decodes the same tool calls'
// arguments (facts).
//
// A Table is safe for concurrent use. It holds at most its limit of key
// bytes: past it, it forgets everything and starts again, so a long-lived
// process (the server) keeps no more than that of conversations it is
// done with.
package memo

import "sync"

// overhead is what one entry costs beyond its key's bytes (map slot,
// string header, value), counted against the limit so that many short
// keys cannot grow a table without bound.
const overhead = 64

// A Table maps texts to what a function made of them.
type Table[V any] struct {
	mu    sync.Mutex
	m     map[string]V
	bytes int
	limit int
}

// New returns a table holding at most limit bytes of keys.
func New[V any](limit int) *Table[V] {
	return &Table[V]{limit: limit}
}

// Get returns what was put for key.
func (t *Table[V]) Get(key string) (V, bool) {
	t.mu.Lock()
	v, ok := t.m[key]
	t.mu.Unlock()
	return v, ok
}

// Put keeps v for key. A key larger than the whole limit is not kept.
func (t *Table[V]) Put(key string, v V) {
	size := len(key) + overhead
	if size > t.limit {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.m[key]; ok {
		return
	}
	if t.m == nil || t.bytes+size > t.limit {
		t.m, t.bytes = map[string]V{}, 0
	}
	t.m[key] = v
	t.bytes += size
}

// Of returns f(key), made once while the table holds it.
func (t *Table[V]) Of(key string, f func(string) V) V {
	if v, ok := t.Get(key); ok {
		return v
	}
	v := f(key)
	t.Put(key, v)
	return v
}

// Len is how many entries the table holds.
func (t *Table[V]) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}
