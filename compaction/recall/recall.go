// Package recall names what a compaction replaces, so the agent can ask for
// it back: every placeholder and summary compactd writes carries a short
// handle ("… 5,210 tokens · recall r7f3c2"), and the store maps the handle
// to the exact text the placeholder stands for (compactd's MCP server
// answers recall(handle) with it).
//
// A handle is derived from the content it names ("r" and the first hex
// digits of its SHA-256), so it is the same across runs and restarts, and
// the same text always gets the same handle. Within one store a handle
// names one content: where two contents share the shortest prefix, the
// later one takes a longer one (Book, through a Registry over the store).
//
// Like the rest of compaction/ it is pure: it must not import the daemon,
// SQLite or anything that does I/O.
package recall

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

const (
	// Prefix starts every handle.
	Prefix = "r"
	// MinDigits is a handle's shortest hex part: 16.7 million names, so a
	// store needs a longer one for a few contents in a million.
	MinDigits = 6
	// maxDigits is all of the hash.
	maxDigits = 2 * sha256.Size
)

// Sum is the SHA-256 of a content: the store's key for it.
func Sum(content string) [32]byte { return sha256.Sum256([]byte(content)) }

// Handle is the handle of digits hex digits for a content of this sum.
func Handle(sum [32]byte, digits int) string {
	digits = min(max(digits, MinDigits), maxDigits)
	return Prefix + hex.EncodeToString(sum[:])[:digits]
}

// HandlePattern is a handle's syntax as a regular expression (RE2 and
// ECMAScript alike); Syntax says it in words. Editors take both from the
// server, which advertises them.
var HandlePattern = Prefix + "[0-9a-f]{" + strconv.Itoa(MinDigits) + "," + strconv.Itoa(maxDigits) + "}"

// Syntax says what a handle looks like, for error messages and prompts.
var Syntax = fmt.Sprintf("'%s' and %d to %d hex digits", Prefix, MinDigits, maxDigits)

var handleRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^` + HandlePattern + `$`) })

// Valid reports whether s has the shape of a handle.
func Valid(s string) bool { return handleRE().MatchString(s) }

// MarkPattern finds the handles a text names ("recall r7f3c2"): the
// handle is its first group.
var MarkPattern = `\b` + markWord + ` (` + HandlePattern + `)\b`

var markRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(MarkPattern) })

// Find returns the handles text names, in order, each once.
func Find(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range markRE().FindAllStringSubmatch(text, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// FindAt returns the handle whose mark covers byte offset at in text, ""
// if none does (an editor's "Recall…" under the cursor).
func FindAt(text string, at int) string {
	for _, loc := range markRE().FindAllStringSubmatchIndex(text, -1) {
		if at >= loc[0] && at <= loc[1] {
			return text[loc[2]:loc[3]]
		}
	}
	return ""
}

// Mark is how a placeholder names its handle.
func Mark(handle string) string { return markWord + " " + handle }

// markWord precedes a handle in the text compaction writes.
const markWord = "recall"

// Placeholder adds handle's mark to a one-line stand-in: inside its
// closing bracket when it has one ("[compacted: …, 5,210 tokens · recall
// r7f3c2]").
func Placeholder(text, handle string) string {
	if handle == "" {
		return text
	}
	if body, ok := strings.CutSuffix(text, "]"); ok {
		return body + " · " + Mark(handle) + "]"
	}
	return text + " · " + Mark(handle)
}

// SummaryNote is the line a summary ends with: the handle of what it
// replaced and how the model gets it back.
func SummaryNote(handle string) string {
	return "The turns this summary replaces are kept word for word: call the recall tool with handle " +
		handle + " (" + Mark(handle) + ") to see them again; placeholders marked \"recall r…\" work the same way."
}

// A Registry is what a store already knows of handles. Book asks it so
// that a content keeps the handle it was given before and no handle names
// two contents.
type Registry interface {
	// HandleOf returns the handle the store gives the content of this sum.
	HandleOf(sum [32]byte) (string, bool)
	// SumOf returns the sum of the content the store names handle.
	SumOf(handle string) ([32]byte, bool)
}

// An Entry is one content a Book named.
type Entry struct {
	Handle string
	Sum    [32]byte
	// Content is the exact text the handle stands for.
	Content string
	// New is set when the registry did not know the content yet: the
	// caller records it.
	New bool
}

// A Book hands out the handles of one compaction run and keeps what each
// names, for the caller to record beside the run's result. It is safe
// for concurrent use.
type Book struct {
	reg Registry

	mu       sync.Mutex
	byHandle map[string]int
	bySum    map[[32]byte]int
	entries  []Entry
}

// NewBook returns a Book checking handles against reg (nil: a fresh store).
func NewBook(reg Registry) *Book {
	return &Book{reg: reg, byHandle: map[string]int{}, bySum: map[[32]byte]int{}}
}

// Handle names content: the handle it already has in the registry or this
// book, else the shortest free one.
func (b *Book) Handle(content string) string {
	sum := Sum(content)
	b.mu.Lock()
	defer b.mu.Unlock()
	if i, ok := b.bySum[sum]; ok {
		return b.entries[i].Handle
	}
	e := Entry{Sum: sum, Content: content}
	if b.reg != nil {
		e.Handle, _ = b.reg.HandleOf(sum)
	}
	if e.Handle == "" {
		e.New = true
		for d := MinDigits; d <= maxDigits; d++ {
			h := Handle(sum, d)
			if _, used := b.byHandle[h]; used {
				continue
			}
			if b.reg != nil {
				if other, ok := b.reg.SumOf(h); ok && other != sum {
					continue
				}
			}
			e.Handle = h
			break
		}
	}
	b.bySum[sum] = len(b.entries)
	b.byHandle[e.Handle] = len(b.entries)
	b.entries = append(b.entries, e)
	return e.Handle
}

// Entries returns what the book named, in the order it was asked.
func (b *Book) Entries() []Entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Entry(nil), b.entries...)
}
