package lsp

import (
	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/recall"
)

// EditorInfo is what the server owns and editors need: the files it
// reads (the codecs' file patterns) and the syntax of the recall handles
// compaction writes. The server advertises it in initialize's
// capabilities.experimental.compactd, and `compactd editor-info` prints it
// for editors that need it before they start the server (which files to
// attach to); neither editor repeats it.
type EditorInfo struct {
	// DocumentPatterns are doublestar globs matched against a whole path.
	DocumentPatterns []string `json:"documentPatterns"`
	// RecallHandle is a handle's syntax as a regular expression
	// (ECMAScript and Lua-convertible: letters, a class, a count);
	// RecallMark finds the handles a text names, the handle its first
	// group; RecallSyntax says it in words.
	RecallHandle string `json:"recallHandle"`
	RecallMark   string `json:"recallMark"`
	RecallSyntax string `json:"recallSyntax"`
}

// Info is the server's EditorInfo.
func Info() EditorInfo {
	return EditorInfo{
		DocumentPatterns: format.FilePatterns(),
		RecallHandle:     recall.HandlePattern, RecallMark: recall.MarkPattern, RecallSyntax: recall.Syntax,
	}
}
