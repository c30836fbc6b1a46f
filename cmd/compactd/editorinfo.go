package main

import (
	"context"
	"encoding/json"

	"github.com/compactd/compactd/lsp"
)

func init() {
	register(&command{
		name:    "editor-info",
		summary: "print, as JSON, the transcript file patterns and the recall-handle syntax the editors take from the server",
		run:     runEditorInfo,
	})
}

// runEditorInfo prints lsp.Info: what the server advertises in initialize,
// for an editor that needs it before it starts the server (which files to
// attach to).
func runEditorInfo(ctx context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return usagef("usage: compactd editor-info")
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(lsp.Info())
}
