package jobs

import (
	"fmt"
	"runtime/debug"

	"github.com/compactd/compactd/compaction/parallel"
)

// A PanicError is a job that panicked: a bug in compactd, which reaches
// the user as one sentence (the editor's error, the command's stderr)
// while the server goes on serving. Value and Stack say what and where,
// for the log.
type PanicError struct {
	// Job is what was running: "compact /path/to/session.jsonl".
	Job   string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s stopped on an internal error (%v): a bug in compactd, whose log says where it happened", e.Job, e.Value)
}

// recovered turns a panic of the job running on this goroutine into *err
// and logs where it happened. Every job entry point defers it, as does
// every goroutine a job starts (a panic there would end the process
// whatever the job's goroutine recovers). The locks a job holds are
// released by their own defers as the panic unwinds.
func (r *Runner) recovered(err *error, job string) {
	if v := recover(); v != nil {
		var log ErrorLogger
		if r.Log != nil {
			log = r.Log
		}
		*err = panicked(job, v, log)
	}
}

// An ErrorLogger gets what panicked and where (a *slog.Logger is one).
type ErrorLogger interface {
	Error(msg string, args ...any)
}

// Recovered is recovered for work the server runs beside the jobs (its
// index, its background estimates): defer jobs.Recovered(&err, what, log).
func Recovered(err *error, job string, log ErrorLogger) {
	if v := recover(); v != nil {
		*err = panicked(job, v, log)
	}
}

func panicked(job string, v any, log ErrorLogger) *PanicError {
	pe := &PanicError{Job: job, Value: v, Stack: debug.Stack()}
	if r, ok := v.(*parallel.Panic); ok {
		// A worker goroutine's panic, carried to the job's: its own value
		// and where it happened.
		pe.Value, pe.Stack = r.Value, r.Stack
	}
	if log != nil {
		log.Error("a job panicked", "job", job, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
	}
	return pe
}
