// Command compactd watches AI agent transcripts, shows how full the model's
// context window is, and compacts conversations into versioned forks.
//
// Each subcommand lives in its own file and registers itself in init.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"
)

// A command is one subcommand: `compactd NAME args...`.
type command struct {
	name    string
	summary string
	// run executes the command. It returns an error for failures; a
	// usageError exits 2, anything else 1.
	run func(ctx context.Context, env *env, args []string) error
}

// env is what a command may touch: its streams and environment lookups,
// passed explicitly so tests can run commands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// now is the clock (nil: the system's); tests set it to say how long
	// a session has been idle.
	now func() time.Time
}

// clock is the time now.
func (e *env) clock() time.Time {
	if e.now != nil {
		return e.now()
	}
	return time.Now()
}

// usageError marks errors caused by how the command was called (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// stopGrace is how long a command has, after SIGTERM or Ctrl-C, to stop
// on its own (every wait honours its context) before the process ends
// anyway: a parse or a checksum that does not look at its context must
// not make an interrupt wait. Ending there is safe: compactd replaces a
// file only by renaming a complete one over it, and SQLite rolls back an
// unfinished transaction; a temporary file left behind is removed by the
// next job in that folder or by `compactd doctor --fix`.
const stopGrace = time.Second

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		cancel()
		code := 130
		if sig == syscall.SIGTERM {
			code = 143
		}
		select {
		case <-sigs: // a second signal: stop now
		case <-time.After(stopGrace):
		}
		fmt.Fprintf(os.Stderr, "compactd: stopped by %v before the command finished; nothing half-written replaced any file\n", sig)
		os.Exit(code)
	}()
	stopProfile := startProfile(os.Getenv)
	code := run(ctx, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stopProfile()
	signal.Stop(sigs)
	os.Exit(code)
}

// run dispatches args to a subcommand and returns the process exit code.
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(e.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "compactd: unknown command %q; run 'compactd help' for the list\n", args[0])
		return 2
	}
	err := c.run(ctx, e, args[1:])
	if err == nil {
		return 0
	}
	fmt.Fprintf(e.stderr, "compactd %s: %v\n", c.name, err)
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: compactd <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}
