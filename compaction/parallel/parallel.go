// Package parallel is a WaitGroup whose goroutines' panics reach the
// goroutine that waits: a codec's or a strategy's panic on a worker ends
// the job that ran it (which recovers it and says so), never the process.
package parallel

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// A Panic is a worker goroutine's panic, carried to Wait: its value and
// where it happened.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) Error() string { return fmt.Sprintf("panic in a worker goroutine: %v", p.Value) }

// A WaitGroup runs functions on goroutines of their own; Wait waits for
// them and panics with the first one's *Panic, if one panicked. The zero
// value is ready to use.
type WaitGroup struct {
	wg    sync.WaitGroup
	once  sync.Once
	first *Panic
}

// Go runs f on a new goroutine.
func (g *WaitGroup) Go(f func()) {
	g.wg.Go(func() {
		defer func() {
			if v := recover(); v != nil {
				p := &Panic{Value: v, Stack: debug.Stack()}
				g.once.Do(func() { g.first = p })
			}
		}()
		f()
	})
}

// Wait waits for every function Go started, then panics with the first
// *Panic when one panicked.
func (g *WaitGroup) Wait() {
	g.wg.Wait()
	if g.first != nil {
		panic(g.first)
	}
}
