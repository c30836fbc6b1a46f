package lsp

import (
	"context"
	"encoding/json"
	"reflect"
)

// The server's own protocol beside LSP's: notifications it sends and
// requests it answers, each typed by what it carries. A notification is
// sent only through its typed name (notification[T].send takes a T), and
// a request's handler returns its result type; the tables below are what
// the editors' TypeScript types are generated from (wire_ts_test.go) and
// what testdata/notifications and testdata/requests pin, as the command
// table is for commands.

// A notification is the method of one of the server's notifications,
// typed by its params.
type notification[T any] string

// send notifies the client.
func (n notification[T]) send(s *Server, params T) { s.notify(string(n), params) }

var (
	gaugeNotification           = notification[Gauge](methodGauge)
	agentCompactionNotification = notification[AgentCompactionNote](methodAgentCompaction)
)

// A message is one of the server's own methods and the Go types of what
// it carries: a notification's params (payload), a request's params and
// result (payload).
type message struct {
	method  string
	params  reflect.Type
	payload reflect.Type
}

// notifications are the server's own notifications.
var notifications = []message{
	noted(gaugeNotification),
	noted(agentCompactionNotification),
}

func noted[T any](n notification[T]) message {
	return message{method: string(n), payload: reflect.TypeFor[T]()}
}

// A request is one of the server's own requests and its handler.
type request struct {
	message
	route route
}

// NoParams are the params of a request that takes none (any it is sent
// are ignored).
type NoParams struct{}

// requests are the server's own requests (routes adds them).
var requests = []request{
	answered(methodGauges, (*Server).gauges),
	answered(methodContext, (*Server).contextView),
	answered(methodHealth, (*Server).health),
	answered(methodStats, (*Server).stats),
}

// answered is a request whose handler takes a P and answers an R.
func answered[P, R any](method string, h func(s *Server, ctx context.Context, params P) (R, error)) request {
	m := message{method: method, params: reflect.TypeFor[P](), payload: reflect.TypeFor[R]()}
	return request{m, func(s *Server, ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if _, none := any(p).(NoParams); !none { // whatever comes is ignored, as before
			if err := decode(raw, &p); err != nil {
				return nil, err
			}
		}
		res, err := h(s, ctx, p)
		if err != nil {
			return nil, err
		}
		return res, nil
	}}
}
