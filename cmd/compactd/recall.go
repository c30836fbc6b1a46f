package main

import (
	"context"
	"fmt"

	"github.com/compactd/compactd/daemon/mcpserver"
)

func init() {
	register(&command{
		name:    "recall",
		summary: "print what a placeholder or summary replaced (recall HANDLE), byte for byte",
		run:     runRecall,
	})
}

// runRecall is the MCP server's recall for a person: the content a handle
// names, as the original transcript held it, on stdout.
func runRecall(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("recall", e)
	storeFlag := fs.String("store", "", "the store (default COMPACTD_STORE, else the XDG state folder)")
	maxTokens := fs.Int("max-tokens", 0, "print one page of at most this many tokens (default: all of it)")
	page := fs.Int("page", 1, "with --max-tokens, which page")
	asJSON := fs.Bool("json", false, "print the page and where it comes from as JSON")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: compactd recall [--max-tokens N [--page P]] [--json] HANDLE")
	}
	path, err := resolveStore(e, *storeFlag)
	if err != nil {
		return err
	}
	s := &mcpserver.Server{StorePath: path}
	defer s.Close()
	max := *maxTokens
	if max <= 0 {
		max = 1 << 30 // one page: all of it
	}
	res, err := s.Recall(ctx, mcpserver.RecallRequest{Handle: pos[0], MaxTokens: max, Page: *page})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	if _, err := fmt.Fprint(e.stdout, res.Text); err != nil {
		return err
	}
	if res.Pages > 1 {
		fmt.Fprintf(e.stderr, "compactd recall: page %d of %d\n", res.Page, res.Pages)
	}
	return nil
}
