package lsp

import (
	"context"
	"encoding/json"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// cancelHandler makes $/cancelRequest cancel the named request's context.
// protocol.CancelHandler does the same but only recognizes int32 ids,
// which JSON never decodes to, so numeric ids (what every client sends)
// were never cancelled.
func cancelHandler(next jsonrpc2.Handler) jsonrpc2.Handler {
	inner, cancel := jsonrpc2.CancelHandler(next)
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() != protocol.MethodCancelRequest {
			return inner(ctx, func(rctx context.Context, result any, err error) error {
				if rctx.Err() != nil && err == nil {
					err = protocol.ErrRequestCancelled
				}
				return reply(context.WithoutCancel(rctx), result, err)
			}, req)
		}
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			var n int64
			var str string
			if json.Unmarshal(p.ID, &n) == nil {
				cancel(jsonrpc2.NewNumberID(int32(n)))
			} else if json.Unmarshal(p.ID, &str) == nil {
				cancel(jsonrpc2.NewStringID(str))
			}
		}
		// A reply fails only when the client is gone (a $/cancelRequest
		// sent as a request, then the connection closed). Its error is not
		// returned: jsonrpc2 v0.10.0 stores a handler's error beside the
		// stream's read error in one atomic.Value and panics when the two
		// differ in type, which would crash the server.
		_ = reply(ctx, nil, nil)
		return nil
	}
}

// orderedHandler runs each message in its own goroutine, starting each
// only after the previous one replied (so didChange is seen before the
// hover after it), like jsonrpc2.AsyncHandler. Methods marked detached
// release the next message as soon as they start: a compaction that takes
// a minute must not hold back hovers, nor the progress cancel meant to
// stop it.
func orderedHandler(h jsonrpc2.Handler, detached map[string]bool) jsonrpc2.Handler {
	var mu sync.Mutex
	next := make(chan struct{})
	close(next)
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		mu.Lock()
		wait := next
		unlock := make(chan struct{})
		next = unlock
		mu.Unlock()
		var once sync.Once
		release := func() { once.Do(func() { close(unlock) }) }
		inner := reply
		reply = func(ctx context.Context, result any, err error) error {
			release()
			return inner(ctx, result, err)
		}
		go func() {
			defer release()
			<-wait
			if detached[req.Method()] {
				release()
			}
			_ = h(ctx, reply, req)
		}()
		return nil
	}
}
