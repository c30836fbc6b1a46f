package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/index"
)

// Tangent confirmation: classify-tangents removes a turn only when the
// user said yes. Before a compaction whose pipeline has the step, a dry
// run lists the tangents the model finds; the user is asked once
// (window/showMessageRequest); the real run gets the confirmed turns.

const (
	actionRemoveTangents = "Remove"
	actionKeepTangents   = "Keep"
)

// confirmTangents runs the dry run and asks; it returns the turns to
// remove (none when the model found none or the user kept them).
func (s *Server) confirmTangents(ctx context.Context, d *daemon.Daemon, req daemon.CompactRequest) ([]int, error) {
	dry := req
	dry.InPlace, dry.Progress = false, nil
	if req.Progress != nil {
		req.Progress("looking for tangents", -1)
	}
	res, err := d.DryRun(ctx, dry)
	if err != nil {
		return nil, fmt.Errorf("look for tangents: %w", err)
	}
	pending := res.PendingTangents()
	if len(pending) == 0 {
		return nil, nil
	}
	var chosen *protocol.MessageActionItem
	if _, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeInfo,
		Message: tangentQuestion(pending),
		Actions: []protocol.MessageActionItem{{Title: actionRemoveTangents}, {Title: actionKeepTangents}},
	}, &chosen); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A client that cannot ask keeps every turn: removal needs a yes.
		s.log.Info("could not ask about tangents; keeping them", "err", err)
		return nil, nil
	}
	if chosen == nil || chosen.Title != actionRemoveTangents {
		return nil, nil
	}
	turns := make([]int, len(pending))
	for i, t := range pending {
		turns[i] = t.Turn
	}
	return turns, nil
}

// tangentQuestion reads "Remove 3 turns unrelated to the task? turns 4,
// 9, 12 (12k tokens)"; turn numbers are the ones the dry-run report and
// `compactd compact --remove-tangent` use.
func tangentQuestion(tangents []strategy.Tangent) string {
	nums := make([]string, len(tangents))
	total := 0
	for i, t := range tangents {
		nums[i] = fmt.Sprint(t.Turn)
		total += t.Tokens
	}
	noun, label := "turns", "turns"
	if len(tangents) == 1 {
		noun, label = "turn", "turn"
	}
	return fmt.Sprintf("Remove %d %s unrelated to the task? %s %s (%s tokens)", len(tangents), noun, label, strings.Join(nums, ", "), index.Short(total))
}
