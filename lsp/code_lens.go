package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon/index"
)

// codeLens puts each turn's tokens above its first line.
func (s *Server) codeLens(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.CodeLensParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	lenses := []protocol.CodeLens{}
	snap := s.snapshotOf(p.TextDocument.URI)
	if snap == nil {
		return lenses, nil
	}
	for _, t := range snap.Turns {
		pos := protocol.Position{Line: uint32(t.StartLine)}
		lenses = append(lenses, protocol.CodeLens{
			Range: protocol.Range{Start: pos, End: pos},
			Command: &protocol.Command{
				Title: fmt.Sprintf("turn %d · %s tokens · %s through here (%.0f %%)", t.Index+1,
					index.Short(t.Tokens), index.Short(t.Cumulative), float64(t.Cumulative)*100/float64(snap.Window)),
			},
		})
	}
	return lenses, nil
}
