package lsp

import (
	"context"

	"github.com/compactd/compactd/daemon"
)

// searchCommand runs compactd.search: the editors' "Find a session…",
// asked again as the user types (each request cancels the one before).
func searchCommand(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Found, error) {
	limit := 0
	if c.args.Limit != nil {
		limit = *c.args.Limit
	}
	return d.Search(ctx, daemon.SearchRequest{Query: c.args.Query, Limit: limit, Agent: c.args.Agent})
}
