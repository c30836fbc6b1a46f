package lsp

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"
)

// clientLogHandler forwards records at or above the configured level to
// the client as window/logMessage, and every record to the next handler
// (stderr or the log file), which applies its own level.
type clientLogHandler struct {
	s     *Server
	next  slog.Handler
	attrs []slog.Attr
}

func (h *clientLogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.Level(h.s.logLevel.Load()) || h.next.Enabled(ctx, l)
}

func (h *clientLogHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.next.Enabled(ctx, r.Level) {
		_ = h.next.Handle(ctx, r)
	}
	if r.Level < slog.Level(h.s.logLevel.Load()) || h.s.conn == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true }
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	typ := protocol.MessageTypeLog
	switch {
	case r.Level >= slog.LevelError:
		typ = protocol.MessageTypeError
	case r.Level >= slog.LevelWarn:
		typ = protocol.MessageTypeWarning
	case r.Level >= slog.LevelInfo:
		typ = protocol.MessageTypeInfo
	}
	h.s.notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: b.String()})
	return nil
}

func (h *clientLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &clientLogHandler{s: h.s, next: h.next.WithAttrs(attrs), attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *clientLogHandler) WithGroup(name string) slog.Handler {
	return &clientLogHandler{s: h.s, next: h.next.WithGroup(name), attrs: h.attrs}
}
