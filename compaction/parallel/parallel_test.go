package parallel

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// TestWaitCarriesTheWorkersPanic: every function runs, Wait returns only
// after all of them, and a worker's panic comes out of Wait with its value
// and its stack — never on the worker's own goroutine, which would end
// the process.
func TestWaitCarriesTheWorkersPanic(t *testing.T) {
	var g WaitGroup
	var ran atomic.Int32
	boom := errors.New("boom")
	for i := range 8 {
		g.Go(func() {
			ran.Add(1)
			if i == 3 {
				panic(boom)
			}
		})
	}
	defer func() {
		p, ok := recover().(*Panic)
		if !ok || p.Value != boom || !strings.Contains(string(p.Stack), "parallel_test.go") {
			t.Fatalf("Wait panicked with %#v, want the worker's *Panic", p)
		}
		if ran.Load() != 8 {
			t.Fatalf("%d of 8 functions ran before Wait returned", ran.Load())
		}
	}()
	g.Wait()
	t.Fatal("Wait did not carry the panic")
}

func TestWaitWithoutPanic(t *testing.T) {
	var g WaitGroup
	var sum atomic.Int64
	for i := range 100 {
		g.Go(func() { sum.Add(int64(i)) })
	}
	g.Wait()
	if sum.Load() != 4950 {
		t.Fatalf("sum %d", sum.Load())
	}
}
