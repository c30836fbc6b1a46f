package tokens

import (
	"container/list"
	"sync"
)

// A Key identifies a counted text: the sha256 of its bytes and the
// encoding it was counted with.
type Key struct {
	Sum      [32]byte
	Encoding string
}

// A Cache remembers counts by content so nothing is counted twice, across
// appends and (when backed by the store) across restarts. Implementations
// must be safe for concurrent use.
type Cache interface {
	Get(Key) (Count, bool)
	Put(Key, Count)
}

// MemoryCache is an in-memory LRU Cache holding at most a fixed number of
// entries.
type MemoryCache struct {
	mu      sync.Mutex
	max     int
	order   *list.List // front = most recently used; values are *memoryEntry
	entries map[Key]*list.Element
}

type memoryEntry struct {
	key   Key
	count Count
}

// NewMemoryCache returns an LRU cache of up to max entries (max <= 0 means
// 1<<20, about 100 MB).
func NewMemoryCache(max int) *MemoryCache {
	if max <= 0 {
		max = 1 << 20
	}
	return &MemoryCache{max: max, order: list.New(), entries: map[Key]*list.Element{}}
}

// Get returns the count stored for k.
func (m *MemoryCache) Get(k Key) (Count, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok {
		return Count{}, false
	}
	m.order.MoveToFront(e)
	return e.Value.(*memoryEntry).count, true
}

// Put stores n for k, evicting the least recently used entry when full.
func (m *MemoryCache) Put(k Key, n Count) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.entries[k]; ok {
		e.Value.(*memoryEntry).count = n
		m.order.MoveToFront(e)
		return
	}
	m.entries[k] = m.order.PushFront(&memoryEntry{key: k, count: n})
	for m.order.Len() > m.max {
		oldest := m.order.Back()
		m.order.Remove(oldest)
		delete(m.entries, oldest.Value.(*memoryEntry).key)
	}
}

// Len returns how many entries the cache holds.
func (m *MemoryCache) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}
