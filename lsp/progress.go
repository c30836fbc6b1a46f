package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon/index"
)

var progressSeq atomic.Int64

// progress is one work-done progress the server created. All methods are
// no-ops when the client does not support progress.
type progress struct {
	s      *Server
	token  *protocol.ProgressToken
	mu     sync.Mutex
	ended  bool
	endMsg string
	last   time.Time
	cancel context.CancelFunc
}

func (s *Server) supportsProgress() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client.Window != nil && s.client.Window.WorkDoneProgress
}

// startProgress creates a progress token and begins it. With cancellable,
// the client may cancel it (window/workDoneProgress/cancel). It must not
// be called on the read loop: creating the token waits for the client.
func (s *Server) startProgress(title string, cancellable bool) *progress {
	p := &progress{s: s}
	s.beginProgress(p, title, cancellable)
	return p
}

// beginProgress creates p's token and sends begin; if p already ended
// (work faster than the client's answer), it sends end right after.
func (s *Server) beginProgress(p *progress, title string, cancellable bool) {
	if !s.supportsProgress() {
		return
	}
	tok := protocol.NewProgressToken(fmt.Sprintf("compactd-%d", progressSeq.Add(1)))
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	if _, err := s.conn.Call(ctx, protocol.MethodWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: *tok}, nil); err != nil {
		s.opts.Logger.Debug("progress create refused", "err", err)
		return
	}
	s.notify(protocol.MethodProgress, &protocol.ProgressParams{Token: *tok, Value: &protocol.WorkDoneProgressBegin{
		Kind: protocol.WorkDoneProgressKindBegin, Title: title, Cancellable: cancellable, Percentage: 0,
	}})
	p.mu.Lock()
	p.token = tok
	ended, msg := p.ended, p.endMsg
	p.ended = false
	p.mu.Unlock()
	if ended {
		p.end(msg)
	}
}

// report sends a report; before begin or after end it sends nothing.
func (p *progress) report(msg string, pct int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	tok := p.token
	if p.ended || tok == nil {
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	v := &protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: msg}
	if pct >= 0 {
		v.Percentage = uint32(min(pct, 100))
	}
	p.s.notify(protocol.MethodProgress, &protocol.ProgressParams{Token: *tok, Value: v})
}

func (p *progress) end(msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.ended || p.token == nil {
		p.ended, p.endMsg = true, msg
		p.mu.Unlock()
		return
	}
	p.ended = true
	tok := p.token
	p.mu.Unlock()
	p.s.mu.Lock()
	delete(p.s.progress, tok.String())
	p.s.mu.Unlock()
	p.s.notify(protocol.MethodProgress, &protocol.ProgressParams{Token: *tok, Value: &protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: msg}})
}

// onCancel registers what the client's cancel of this progress stops.
func (p *progress) onCancel(cancel context.CancelFunc) {
	p.mu.Lock()
	tok := p.token
	p.mu.Unlock()
	if tok == nil {
		return
	}
	p.s.mu.Lock()
	p.s.progress[tok.String()] = cancel
	p.s.mu.Unlock()
}

// scanReport turns the daemon's cold scan reports into progress, at most
// every 100 ms.
func (p *progress) scanReport(sp index.ScanProgress) {
	if sp.Finished {
		p.end(fmt.Sprintf("%d transcripts indexed in %s", sp.Total, sp.Elapsed.Round(time.Millisecond)))
		return
	}
	p.mu.Lock()
	due := time.Since(p.last) >= 100*time.Millisecond
	if due {
		p.last = time.Now()
	}
	p.mu.Unlock()
	if due && sp.Total > 0 {
		p.report(fmt.Sprintf("%d/%d transcripts", sp.Done, sp.Total), sp.Done*100/sp.Total)
	}
}

func (s *Server) workDoneProgressCancel(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.WorkDoneProgressCancelParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	cancel := s.progress[p.Token.String()]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil, nil
}
