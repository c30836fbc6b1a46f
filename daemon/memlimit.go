package daemon

import (
	"math"
	"runtime/debug"
	"sync"
)

// A MemoryLimit is the server's soft memory limit (runtime/debug), which a
// job the user asked for lifts while it runs.
//
// The limit keeps a long-lived server from letting its heap double while
// it reads transcripts in the background. A compaction of a large
// conversation needs its parse, counts and pipeline at once: held under
// the limit, the garbage collector runs all the time and takes up to half
// the CPU (a 100 MB session's compaction took 2.5–4 s instead of 1.2–1.9 s).
// The user is waiting for that job, and its memory is freed when it ends.
type MemoryLimit struct {
	mu     sync.Mutex
	limit  int64 // the limit outside jobs
	active int   // jobs running
}

// NewMemoryLimit sets the process's soft memory limit to limit bytes and
// returns it for jobs to lift.
func NewMemoryLimit(limit int64) *MemoryLimit {
	debug.SetMemoryLimit(limit)
	return &MemoryLimit{limit: limit}
}

// Lift removes the limit until release is called; jobs running at once
// share one lift. A nil MemoryLimit lifts nothing.
func (m *MemoryLimit) Lift() (release func()) {
	if m == nil {
		return func() {}
	}
	m.mu.Lock()
	if m.active == 0 {
		debug.SetMemoryLimit(math.MaxInt64)
	}
	m.active++
	m.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			if m.active--; m.active == 0 {
				// Back under the limit, the collector brings the heap
				// down on its own; the job's garbage is returned to the
				// system now rather than when the scavenger gets to it.
				debug.SetMemoryLimit(m.limit)
				go debug.FreeOSMemory()
			}
		})
	}
}
