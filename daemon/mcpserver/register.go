package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Instructions tell the agent what the server is for; clients show them
// to the model beside the tools.
const Instructions = `compactd keeps every version of this conversation. Placeholders it writes ("[compacted: … · recall r7f3c2]") and its summaries name a recall handle: call recall with the handle to get back, byte for byte, what was replaced. context_status shows how full the context window is and what a compaction would save; search finds what was said before a compaction, in this conversation or any past session.`

// New returns an MCP server serving s's tools.
func New(s *Server, version string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "compactd", Title: "compactd", Version: version},
		&mcp.ServerOptions{Instructions: Instructions})
	Register(srv, s)
	return srv
}

// readOnly marks a tool that changes nothing.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}

// Register adds recall, context_status and search to srv.
func Register(srv *mcp.Server, s *Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "recall",
		Title:       "Recall what compaction replaced",
		Description: "Returns, exactly as the original transcript held it, what a compaction placeholder or summary replaced: pass the handle it names ('recall r7f3c2'). Long content comes in pages of at most max_tokens tokens; ask for the next page when the result says there is one.",
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RecallRequest) (*mcp.CallToolResult, any, error) {
		res, err := s.Recall(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		// The first block is the original bytes and nothing else: agents
		// hand a text block to the model as it is.
		content := []mcp.Content{&mcp.TextContent{Text: res.Text}}
		if res.Pages > 1 {
			next := ""
			if res.Page < res.Pages {
				next = fmt.Sprintf("; call recall with handle %s and page %d for the next", res.Handle, res.Page+1)
			}
			content = append(content, &mcp.TextContent{Text: fmt.Sprintf("[recall %s: page %d of %d%s]", res.Handle, res.Page, res.Pages, next)})
		}
		return &mcp.CallToolResult{Content: content}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "context_status",
		Title:       "Context window status",
		Description: "How full the context window of this session is: tokens used (the last usage the API reported plus what was added since), the window, where the agent compacts on its own, what fills the window and what a compactd compaction would save.",
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in StatusRequest) (*mcp.CallToolResult, any, error) {
		res, err := s.ContextStatus(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		return jsonResult(res)
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "search",
		Title:       "Search this conversation's history, or every past session",
		Description: "Finds where words were said: by default in this conversation — its transcript and every version compactd stored of it, before and after each compaction — or, with scope all, in every agent's past sessions on this machine. Words match whole (case-insensitive), all of them in one place; a \"quoted phrase\" matches as written; word* matches words it begins. Each hit names its session (agent, project, date, transcript path and line, or stored version) with the text around the match.",
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in SearchRequest) (*mcp.CallToolResult, any, error) {
		res, err := s.Search(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		return jsonResult(res)
	})
}

// jsonResult is a result as one text block of indented JSON (not
// structured content: clients differ in what they pass on of that).
func jsonResult(v any) (*mcp.CallToolResult, any, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
}
